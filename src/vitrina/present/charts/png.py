"""PNG charts drawn with Pillow: the same ChartData as the Chart.js spec, in milliseconds.

Margins come from measured text extents, so labels neither overlap nor get clipped. Text
is drawn once at full size (FreeType anti-aliases it); lines, markers and pie slices are
drawn on a 2x layer that is reduced to size, which anti-aliases them; bars are axis-aligned
rectangles on whole pixels and need neither. Russian text renders with a DejaVu Sans subset
shipped in ``fonts/``; axis ticks use the answer's number formatting (``1 234 567`` /
``1,234,567``). Why not matplotlib: docs/decisions/120-pillow-png-charts.md.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from vitrina.present.charts.data import ChartData, Dataset
from vitrina.present.charts.ticks import aligned_ticks, axis_labels, nice_ticks
from vitrina.present.numbers import Lang, format_percent

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
RGB = tuple[int, int, int]

WIDTH, HEIGHT = 1000, 560
SCALE = 2  # supersampling of the anti-aliased layer
PAD = 16
MAX_X_TICKS = 14
MAX_MARKERS = 40
COMPRESS_LEVEL = 1  # 20-26 KB a chart; zlib level 6 saves 5-8 KB for several times the time
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
BG: RGB = (255, 255, 255)
INK: RGB = (34, 34, 34)
MUTED: RGB = (90, 90, 90)
GRID: RGB = (232, 232, 232)
AXIS: RGB = (140, 140, 140)
ZERO: RGB = (120, 120, 120)
TITLE_PX, AXIS_TITLE_PX, TICK_PX, LEGEND_PX, PIE_LABEL_PX = 18, 14, 13, 13, 14
ELLIPSIS = "…"
FONT_DIR = Path(__file__).with_name("fonts")
BAR_KINDS = ("bar", "grouped_bar", "stacked_bar")
HEADROOM = 0.03  # of the value range, above the highest bar or point


def _rgb(hex_colour: str) -> RGB:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


COLOURS: tuple[RGB, ...] = tuple(_rgb(c) for c in PALETTE)


def colour(j: int) -> RGB:
    """The j-th series colour (the palette repeats after ten)."""
    return COLOURS[j % len(COLOURS)]


def _tint(c: RGB, share: float) -> RGB:
    """``c`` mixed with white: ``share`` of the colour is kept."""
    return tuple(round(255 - (255 - v) * share) for v in c)  # type: ignore[return-value]


# --- text ------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans of ``size`` px (the shipped subset has Latin, Cyrillic, Greek and the
    symbols numbers use); Pillow's own scalable font if the file cannot be read."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
        return ImageFont.load_default(size)


def _clean(text: str) -> str:
    """One line: control characters would start new lines or draw as boxes."""
    return "".join(ch if ch >= " " else " " for ch in str(text))


@lru_cache(maxsize=4096)
def text_width(text: str, f: Font) -> int:
    return math.ceil(f.getlength(text))


@lru_cache(maxsize=64)
def line_height(f: Font) -> int:
    ascent, descent = f.getmetrics()  # type: ignore[union-attr]
    return ascent + descent


def fit(text: str, f: Font, max_width: float) -> str:
    """``text``, or its longest prefix with an ellipsis, within ``max_width`` px."""
    text = _clean(text)
    if text_width(text, f) <= max_width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid].rstrip() + ELLIPSIS, f) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ELLIPSIS


def text_mask(text: str, f: Font, angle: int = 0) -> Image.Image:
    """Anti-aliased coverage of ``text`` (mode L), rotated counter-clockwise by ``angle``."""
    mask = Image.new("L", (text_width(text, f) + 2, line_height(f)))
    ImageDraw.Draw(mask).text((1, 0), text, font=f, fill=255)
    if angle == 90:
        return mask.transpose(Image.Transpose.ROTATE_90)
    if angle:
        return mask.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    return mask


# --- surfaces: the canvas itself, or a 2x layer over a part of it ----------------------


class Surface:
    """A drawing target in canvas pixels: the canvas, or a supersampled layer over ``box``
    that `finish` reduces and pastes back (anti-aliased lines and slices)."""

    def __init__(self, canvas: Image.Image, box: tuple[int, int, int, int], scale: int) -> None:
        self.canvas, self.scale = canvas, scale
        self.ox, self.oy = (box[0], box[1]) if scale > 1 else (0, 0)
        if scale > 1:
            size = ((box[2] - box[0]) * scale, (box[3] - box[1]) * scale)
            self.image = Image.new("RGB", size, BG)
        else:
            self.image = canvas
        self.draw = ImageDraw.Draw(self.image)

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.ox) * self.scale, (y - self.oy) * self.scale

    def rect(self, x0: int, y0: int, x1: int, y1: int, fill: RGB) -> None:
        """Fill whole canvas pixels: columns [x0, x1), rows [y0, y1)."""
        if x1 <= x0 or y1 <= y0:
            return
        s = self.scale
        a, b = self.pt(x0, y0)
        self.draw.rectangle((a, b, a + (x1 - x0) * s - 1, b + (y1 - y0) * s - 1), fill=fill)

    def polyline(self, points: Sequence[tuple[float, float]], fill: RGB, width: float) -> None:
        self.draw.line(
            [self.pt(x, y) for x, y in points],
            fill=fill,
            width=max(1, round(width * self.scale)),
            joint="curve",
        )

    def dot(self, x: float, y: float, radius: float, fill: RGB, ring: RGB | None = None) -> None:
        cx, cy = self.pt(x, y)
        r = radius * self.scale
        self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
        if ring is not None:
            self.draw.ellipse(
                (cx - r, cy - r, cx + r, cy + r), outline=ring, width=max(1, self.scale)
            )

    def finish(self) -> None:
        if self.scale > 1:
            self.canvas.paste(self.image.reduce(self.scale), (self.ox, self.oy))


def _dashes(
    points: Sequence[tuple[float, float]], on: float = 8.0, off: float = 5.0
) -> list[list[tuple[float, float]]]:
    """The pieces of a polyline that a dashed line draws (``on`` px drawn, ``off`` skipped)."""
    pieces: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = [points[0]]
    drawing, left = True, on
    for (x0, y0), (x1, y1) in pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length
            p = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if drawing:
                current.append(p)
                pieces.append(current)
            else:
                current = [p]
            drawing = not drawing
            left = on if drawing else off
        left -= length - done
        if drawing:
            current.append((x1, y1))
    if drawing and len(current) > 1:
        pieces.append(current)
    return pieces


# --- the common frame: title, legend ---------------------------------------------------


def _title(draw: ImageDraw.ImageDraw, text: str, y: int) -> int:
    """Draw the centred title at ``y``; return the y below it."""
    f = font(TITLE_PX, bold=True)
    text = fit(text, f, WIDTH - 2 * PAD)
    if not text:
        return y
    draw.text((WIDTH // 2, y), text, font=f, fill=INK, anchor="ma")
    return y + line_height(f)


@dataclass
class LegendItem:
    label: str
    colour: RGB
    line: bool  # a line swatch, else a box
    second_axis: bool  # dashed line / hatched box


SWATCH, SWATCH_GAP, ITEM_GAP = 22, 6, 18


def _legend_rows(items: list[LegendItem]) -> list[list[tuple[LegendItem, str, int]]]:
    """Items with their shortened labels and widths, wrapped into rows of the image width."""
    f = font(LEGEND_PX)
    rows: list[list[tuple[LegendItem, str, int]]] = [[]]
    used = 0
    for item in items:
        label = fit(item.label, f, 260)
        width = SWATCH + SWATCH_GAP + text_width(label, f)
        if rows[-1] and used + ITEM_GAP + width > WIDTH - 2 * PAD:
            rows.append([])
            used = 0
        used += (ITEM_GAP if rows[-1] else 0) + width
        rows[-1].append((item, label, width))
    return rows


def _legend(canvas: Image.Image, items: list[LegendItem], y: int) -> int:
    """Draw the legend rows centred from ``y``; return the y below them."""
    if len(items) < 2:
        return y
    f = font(LEGEND_PX)
    draw = ImageDraw.Draw(canvas)
    h = line_height(f)
    for row in _legend_rows(items):
        total = sum(w for *_, w in row) + ITEM_GAP * (len(row) - 1)
        x = (WIDTH - total) // 2
        mid = y + h // 2
        for item, label, width in row:
            if item.line:
                if item.second_axis:
                    for dx in (0, 9, 18):
                        draw.rectangle((x + dx, mid - 1, x + dx + 4, mid + 1), fill=item.colour)
                else:
                    draw.rectangle((x, mid - 1, x + SWATCH - 1, mid + 1), fill=item.colour)
            else:
                box = (x + 5, mid - 6, x + 5 + 11, mid + 6)
                _box(canvas, box, item.colour, hatched=item.second_axis)
            draw.text((x + SWATCH + SWATCH_GAP, mid), label, font=f, fill=INK, anchor="lm")
            x += width + ITEM_GAP
        y += h + 4
    return y


def _box(canvas: Image.Image, box: tuple[int, int, int, int], c: RGB, *, hatched: bool) -> None:
    """A bar or a legend box: solid, or (second axis) a pale fill with diagonal hatching."""
    x0, y0, x1, y1 = box  # inclusive pixel corners
    draw = ImageDraw.Draw(canvas)
    if not hatched:
        draw.rectangle(box, fill=c)
        return
    draw.rectangle(box, fill=_tint(c, 0.3), outline=c)
    height = y1 - y0
    for start in range(x0 - height, x1 + 1, 6):  # lines x = start + t, y = y1 - t
        t0, t1 = max(0, x0 - start), min(height, x1 - start)
        if t0 < t1:
            draw.line((start + t0, y1 - t0, start + t1, y1 - t1), fill=c, width=1)


# --- x/y charts: line, bar, grouped_bar, stacked_bar -----------------------------------


def _finite(v: float | None) -> float | None:
    return v if v is not None and math.isfinite(v) else None


def _values(ds: Dataset, n: int) -> list[float | None]:
    vs = [_finite(v) for v in ds.values[:n]]
    return vs + [None] * (n - len(vs))


@dataclass
class Axis:
    """A value axis: ticks, their labels, and the pixel rows it spans."""

    ticks: list[float]
    labels: list[str]
    top: int = 0
    bottom: int = 0

    @property
    def intervals(self) -> int:
        return len(self.ticks) - 1

    def y(self, value: float) -> float:
        lo, hi = self.ticks[0], self.ticks[-1]
        return self.bottom - (value - lo) / (hi - lo) * (self.bottom - self.top)


def _extent(
    series: list[list[float | None]], *, stacked: bool, bars: bool
) -> tuple[float, float] | None:
    """(min, max) a set of series needs on its axis, with 3% headroom so the highest bar or
    point does not touch the frame (never across zero); stacked bars pile up and down."""
    if stacked:
        n = len(series[0]) if series else 0
        ups = [sum(max(s[i] or 0.0, 0.0) for s in series) for i in range(n)]
        downs = [sum(min(s[i] or 0.0, 0.0) for s in series) for i in range(n)]
        if not n:
            return None
        lo, hi = min(downs), max(ups)
    else:
        values = [v for s in series for v in s if v is not None]
        if not values:
            return None
        lo, hi = min(values), max(values)
    pad = HEADROOM * ((max(hi, 0.0) - min(lo, 0.0)) if bars else (hi - lo))
    new_lo, new_hi = lo - pad, hi + pad
    if lo >= 0 > new_lo:  # headroom never makes a positive axis show negatives
        new_lo = 0.0
    if hi <= 0 < new_hi:
        new_hi = 0.0
    return new_lo, new_hi


@dataclass
class XLabels:
    """The x tick labels kept (every ``step``-th), and how they are laid out."""

    index: list[int]
    texts: list[str]
    masks: list[Image.Image] | None  # rotated 30 degrees, else None: horizontal
    height: int


def _x_labels(labels: list[str], slot: float) -> XLabels:
    """Horizontal labels when every kept one fits its room, else rotated 30 degrees."""
    f = font(TICK_PX)
    n = len(labels)
    step = max(1, -(-n // MAX_X_TICKS))
    index = list(range(0, n, step))
    room = slot * step - 8
    texts = [_clean(labels[i]) for i in index]
    if all(text_width(t, f) <= room for t in texts):
        return XLabels(index, texts, None, line_height(f))
    texts = [fit(t, f, 170) for t in texts]
    masks = [text_mask(t, f, 30) for t in texts]
    return XLabels(index, texts, masks, max((m.height for m in masks), default=0))


def _label_spans(xl: XLabels, centres: list[float]) -> list[tuple[float, float]]:
    """Left and right pixel edges of each kept x label."""
    f = font(TICK_PX)
    spans = []
    for k, i in enumerate(xl.index):
        if xl.masks is None:
            w = text_width(xl.texts[k], f)
            spans.append((centres[i] - w / 2, centres[i] + w / 2))
        else:
            spans.append((centres[i] + 4 - xl.masks[k].width, centres[i] + 4))
    return spans


def _draw_xy(canvas: Image.Image, data: ChartData, lang: Lang | str) -> None:
    draw = ImageDraw.Draw(canvas)
    kind = data.kind
    n = len(data.labels)
    stacked = kind == "stacked_bar"
    bars = kind in BAR_KINDS
    datasets = data.datasets
    series = [_values(ds, n) for ds in datasets]
    on_y2 = [ds.axis == "y2" and not stacked for ds in datasets]
    if all(on_y2):  # nothing on the first axis: the second becomes the first
        on_y2 = [False] * len(datasets)
    has_y2 = any(on_y2)

    first = _extent(
        [s for s, b in zip(series, on_y2, strict=True) if not b], stacked=stacked, bars=bars
    )
    y_fmt = data.y_format
    ticks = nice_ticks(*(first or (0.0, 1.0)), include_zero=bars)
    y_axis = Axis(ticks, axis_labels(ticks, y_fmt, lang))
    y2_axis: Axis | None = None
    if has_y2:
        second = _extent(
            [s for s, b in zip(series, on_y2, strict=True) if b], stacked=False, bars=bars
        )
        y2_fmt = data.y2_format or y_fmt
        ticks2 = aligned_ticks(*(second or (0.0, 1.0)), y_axis.intervals, include_zero=bars)
        y2_axis = Axis(ticks2, axis_labels(ticks2, y2_fmt, lang))

    tick_f, title_f = font(TICK_PX), font(AXIS_TITLE_PX)
    items = [
        LegendItem(ds.label, colour(j), kind == "line", on_y2[j]) for j, ds in enumerate(datasets)
    ]

    # vertical frame: title, legend, plot, x labels, x title
    top = _title(draw, data.title, PAD) + 8
    legend_top = top
    if len(items) > 1:
        rows = len(_legend_rows(items))
        top += rows * (line_height(font(LEGEND_PX)) + 4) + 4
    top += line_height(tick_f) // 2 + 4  # the top tick label is centred on the top edge

    # horizontal frame: y title, y tick labels | plot | y2 tick labels, y2 title
    left = PAD + max(text_width(t, tick_f) for t in y_axis.labels) + 8
    if data.y_title:
        left += line_height(title_f) + 6
    right = WIDTH - PAD
    if y2_axis is not None:
        right -= max(text_width(t, tick_f) for t in y2_axis.labels) + 8
        if data.y2_title:
            right -= line_height(title_f) + 6

    bottom_reserved = PAD + (line_height(title_f) + 6 if data.x_title else 0) + 8
    xl = XLabels([], [], None, 0)
    centres: list[float] = []
    for _ in range(3):  # labels can widen the margins, which changes the slots
        slot = (right - left) / max(n, 1)
        centres = [left + (i + 0.5) * slot for i in range(n)]
        xl = _x_labels(data.labels, slot) if n else xl
        spans = _label_spans(xl, centres)
        overflow_left = max((PAD // 2 - a for a, _ in spans), default=0)
        overflow_right = max((b - (WIDTH - PAD // 2) for _, b in spans), default=0)
        if overflow_left <= 0 and overflow_right <= 0:
            break
        left += max(0, math.ceil(overflow_left))
        right -= max(0, math.ceil(overflow_right))
    bottom = HEIGHT - bottom_reserved - xl.height
    y_axis.top, y_axis.bottom = top, bottom
    if y2_axis is not None:
        y2_axis.top, y2_axis.bottom = top, bottom

    # the plot: grid, spines, data (lines on a 2x layer for anti-aliasing)
    box = (left, top - 8, right + 1, bottom + 8)
    surface = Surface(canvas, box, SCALE if kind == "line" else 1)
    for v in y_axis.ticks:
        row = round(y_axis.y(v))
        surface.rect(left, row, right, row + 1, GRID)
    surface.rect(left, top, left + 1, bottom + 1, AXIS)
    if y2_axis is not None:
        surface.rect(right, top, right + 1, bottom + 1, AXIS)
    if y_axis.ticks[0] < 0 < y_axis.ticks[-1]:
        row = round(y_axis.y(0.0))
        surface.rect(left, row, right, row + 1, ZERO)
    surface.rect(left, bottom, right + 1, bottom + 1, AXIS)
    slot = (right - left) / max(n, 1)
    if kind == "line":
        _lines(surface, series, on_y2, y_axis, y2_axis, centres)
    elif stacked:
        _stacked(surface, series, y_axis, centres, slot)
    else:
        _grouped(canvas, series, on_y2, y_axis, y2_axis, centres, slot)
    surface.finish()

    # text, drawn on the canvas after the layer is pasted
    if len(items) > 1:
        _legend(canvas, items, legend_top)
    for v, label in zip(y_axis.ticks, y_axis.labels, strict=True):
        draw.text((left - 8, y_axis.y(v)), label, font=tick_f, fill=MUTED, anchor="rm")
    if y2_axis is not None:
        for v, label in zip(y2_axis.ticks, y2_axis.labels, strict=True):
            draw.text((right + 8, y2_axis.y(v)), label, font=tick_f, fill=MUTED, anchor="lm")
    for k, i in enumerate(xl.index):
        if xl.masks is None:
            draw.text((centres[i], bottom + 8), xl.texts[k], font=tick_f, fill=MUTED, anchor="ma")
        else:
            mask = xl.masks[k]
            draw.bitmap((round(centres[i]) + 4 - mask.width, bottom + 6), mask, fill=MUTED)
    mid_y = (top + bottom) // 2
    if data.y_title:
        mask = text_mask(fit(data.y_title, title_f, bottom - top), title_f, 90)
        draw.bitmap((PAD, mid_y - mask.height // 2), mask, fill=INK)
    if data.y2_title and y2_axis is not None:
        mask = text_mask(fit(data.y2_title, title_f, bottom - top), title_f, 90)
        draw.bitmap((WIDTH - PAD - mask.width, mid_y - mask.height // 2), mask, fill=INK)
    if data.x_title:
        text = fit(data.x_title, title_f, right - left)
        y = HEIGHT - PAD - line_height(title_f)
        draw.text(((left + right) / 2, y), text, font=title_f, fill=INK, anchor="ma")


def _lines(
    surface: Surface,
    series: list[list[float | None]],
    on_y2: list[bool],
    y_axis: Axis,
    y2_axis: Axis | None,
    centres: list[float],
) -> None:
    markers = len(centres) <= MAX_MARKERS
    for j, values in enumerate(series):
        axis = y2_axis if on_y2[j] and y2_axis is not None else y_axis
        c = colour(j)
        runs: list[list[tuple[float, float]]] = [[]]
        for x, v in zip(centres, values, strict=True):
            if v is None:  # a gap: the line stops and starts again
                if runs[-1]:
                    runs.append([])
            else:
                runs[-1].append((x, axis.y(v)))
        for run in runs:
            if len(run) > 1:
                for piece in _dashes(run) if on_y2[j] else [run]:
                    surface.polyline(piece, c, 2.5)
            for x, y in run if markers or len(run) == 1 else ():
                surface.dot(x, y, 4.0, c, ring=BG)


def _bar_rect(
    axis: Axis, x0: float, x1: float, base: float, value: float
) -> tuple[int, int, int, int]:
    """Canvas pixels [x0, x1) x [top, bottom) of a bar from ``base`` to ``base + value``."""
    a, b = round(axis.y(base)), round(axis.y(base + value))
    top, bottom = min(a, b), max(a, b)
    if top == bottom:  # a tiny value still shows
        top, bottom = (top - 1, top) if value > 0 else (top, top + 1)
    return round(x0), top, max(round(x1), round(x0) + 1), bottom


def _grouped(
    canvas: Image.Image,
    series: list[list[float | None]],
    on_y2: list[bool],
    y_axis: Axis,
    y2_axis: Axis | None,
    centres: list[float],
    slot: float,
) -> None:
    k = max(len(series), 1)
    width = slot * 0.8 / k
    gap = 1 if width > 6 else 0  # a hairline between neighbouring bars of a group
    for j, values in enumerate(series):
        axis = y2_axis if on_y2[j] and y2_axis is not None else y_axis
        for x, v in zip(centres, values, strict=True):
            if not v:  # None or zero: no bar
                continue
            x0 = x - slot * 0.4 + j * width
            r = _bar_rect(axis, x0, x0 + width - gap, 0.0, v)
            _box(canvas, (r[0], r[1], r[2] - 1, r[3] - 1), colour(j), hatched=on_y2[j])


def _stacked(
    surface: Surface,
    series: list[list[float | None]],
    y_axis: Axis,
    centres: list[float],
    slot: float,
) -> None:
    n = len(centres)
    ups, downs = [0.0] * n, [0.0] * n  # positives pile up from zero, negatives down
    for j, values in enumerate(series):
        for i, (x, v) in enumerate(zip(centres, values, strict=True)):
            if not v:
                continue
            piles = ups if v > 0 else downs
            x0, top, x1, bottom = _bar_rect(y_axis, x - slot * 0.4, x + slot * 0.4, piles[i], v)
            surface.rect(x0, top, x1, bottom, colour(j))
            piles[i] += v
            if j and bottom - top > 2:  # a white seam between stacked pieces
                seam = bottom - 1 if v > 0 else top
                surface.rect(x0, seam, x1, seam + 1, BG)


# --- pie and kpi -----------------------------------------------------------------------


def _luminance(c: RGB) -> float:
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255


def _draw_pie(canvas: Image.Image, data: ChartData, lang: Lang | str) -> None:
    draw = ImageDraw.Draw(canvas)
    top = _title(draw, data.title, PAD) + 12
    label_f, pct_f = font(PIE_LABEL_PX), font(TICK_PX, bold=True)
    lh = line_height(label_f)
    radius = min((HEIGHT - PAD - top) // 2 - lh, 210)
    cx, cy = WIDTH // 2, (top + HEIGHT - PAD) // 2
    raw = _values(data.datasets[0], len(data.labels)) if data.datasets else []
    values = [max(v or 0.0, 0.0) for v in raw]
    total = sum(values)

    box = (cx - radius - 2, cy - radius - 2, cx + radius + 3, cy + radius + 3)
    surface = Surface(canvas, box, SCALE)
    s = surface.scale
    a, b = surface.pt(cx - radius, cy - radius)
    bbox = (a, b, a + 2 * radius * s, b + 2 * radius * s)
    slices: list[tuple[int, float, float]] = []  # index, start angle, share
    start = -90.0  # from twelve o'clock, clockwise, as Chart.js draws the inline pie
    for i, v in enumerate(values):
        if v > 0 and total > 0:
            slices.append((i, start, v / total))
            start += 360 * v / total
    centre = surface.pt(cx, cy)
    r = radius * s
    for i, start_angle, share in slices:
        if share >= 1 - 1e-9:
            surface.draw.ellipse(bbox, fill=colour(i))
            continue
        steps = max(2, math.ceil(360 * share / 2))  # a point every 2 degrees or less
        arc = [
            (
                centre[0] + r * math.cos(math.radians(start_angle + 360 * share * k / steps)),
                centre[1] + r * math.sin(math.radians(start_angle + 360 * share * k / steps)),
            )
            for k in range(steps + 1)
        ]
        surface.draw.polygon([centre, *arc], fill=colour(i))
    if len(slices) > 1:  # white seams between the slices
        for _, start_angle, _ in slices:
            a = math.radians(start_angle)
            edge = (centre[0] + r * math.cos(a), centre[1] + r * math.sin(a))
            surface.draw.line([centre, edge], fill=BG, width=2 * s)
    if not slices:
        surface.draw.ellipse(bbox, outline=GRID, width=2 * s)
    surface.finish()

    ring = radius + 14  # labels sit on this circle, outside the slices
    sides: dict[bool, list[tuple[float, int]]] = {True: [], False: []}  # right? -> (y, index)
    for i, start_angle, share in slices:
        mid = math.radians(start_angle + 180 * share)
        cos, sin = math.cos(mid), math.sin(mid)
        pct = format_percent(round(share * 100, 1), lang)
        chord = 2 * 0.64 * radius * math.sin(min(math.pi * share, math.pi / 2))
        if len(slices) > 1 and text_width(pct, pct_f) + 8 <= chord:  # the share, if it fits
            ink = INK if _luminance(colour(i)) > 0.6 else BG
            at = (cx + 0.64 * radius * cos, cy + 0.64 * radius * sin)
            draw.text(at, pct, font=pct_f, fill=ink, anchor="mm")
        sides[cos >= 0].append((cy + ring * sin, i))
    for right, labels in sides.items():
        labels.sort()
        rows = _spread([y for y, _ in labels], lh, top + lh / 2, HEIGHT - 4 - lh / 2)
        for y, (_, i) in zip(rows, labels, strict=True):
            dx = math.sqrt(max(ring * ring - (y - cy) ** 2, 0.0))
            x = cx + dx if right else cx - dx
            room = (WIDTH - PAD - x) if right else (x - PAD)
            text = fit(data.labels[i], label_f, room)
            draw.text((x, y), text, font=label_f, fill=INK, anchor="lm" if right else "rm")


def _spread(ys: list[float], gap: float, lo: float, hi: float) -> list[float]:
    """Sorted label rows moved apart by at least ``gap`` and kept within [lo, hi]."""
    out: list[float] = []
    for y in ys:
        out.append(max(y, out[-1] + gap) if out else max(y, lo))
    if out and out[-1] > hi:  # the last fell off the bottom: push the pile back up
        out[-1] = hi
        for k in range(len(out) - 2, -1, -1):
            out[k] = min(out[k], out[k + 1] - gap)
    return out


def _draw_kpi(canvas: Image.Image, data: ChartData) -> None:
    draw = ImageDraw.Draw(canvas)
    if data.labels and data.labels[0] != data.title:
        _title(draw, data.labels[0], PAD + 20)
    cards = list(zip(data.datasets, data.kpi_values, strict=False)) or [(None, "")]
    width = (WIDTH - 2 * PAD) / len(cards)
    label_f = font(16)
    for k, (ds, text) in enumerate(cards):
        cx = PAD + (k + 0.5) * width
        size = 48
        while size > 14 and text_width(_clean(text), font(size, bold=True)) > width - 24:
            size -= 2
        value_f = font(size, bold=True)
        draw.text((cx, HEIGHT * 0.47), fit(text, value_f, width - 24), font=value_f, fill=INK,
                  anchor="ms")  # fmt: skip
        draw.rectangle((cx - 18, HEIGHT * 0.47 + 14, cx + 18, HEIGHT * 0.47 + 16), fill=colour(k))
        if ds is not None:
            label = fit(ds.label, label_f, width - 24)
            draw.text((cx, HEIGHT * 0.47 + 30), label, font=label_f, fill=MUTED, anchor="ma")


# --- the file ---------------------------------------------------------------------------


try:  # Intel ISA-L's deflate: the same zlib stream, about 10x faster at level 1 (decision 120)
    from isal.isal_zlib import compressobj
except ImportError:  # pragma: no cover - the stdlib is the fallback
    from zlib import compressobj


def _chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def encode_png(image: Image.Image, level: int = COMPRESS_LEVEL) -> bytes:
    """An RGB image as PNG bytes: unfiltered rows, deflated at ``level``.

    Pillow's encoder tries four filters on every row, which costs three times the deflate
    itself; a chart is flat colour, which deflate packs as well without a filter. Rows are
    fed to the compressor straight from one copy of the pixels: every extra megabyte-sized
    buffer costs page faults, which are most of the time on a virtual machine.
    """
    w, h = image.size
    pixels = memoryview(image.tobytes())
    stride = 3 * w
    deflate = compressobj(level)
    parts = [
        b"\x89PNG\r\n\x1a\n",
        _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)),  # 8-bit RGB
    ]
    body = []
    for start in range(0, stride * h, stride):
        body.append(deflate.compress(b"\x00"))  # filter type 0: none
        body.append(deflate.compress(pixels[start : start + stride]))
    body.append(deflate.flush())
    parts += [_chunk(b"IDAT", b"".join(body)), _chunk(b"IEND", b"")]
    return b"".join(parts)


def draw_image(data: ChartData, lang: Lang | str) -> Image.Image:
    """Draw prepared chart data on a 1000x560 RGB image."""
    canvas = Image.new("RGB", (WIDTH, HEIGHT), BG)
    if data.kind == "kpi":
        _draw_kpi(canvas, data)
    elif data.kind == "pie":
        _draw_pie(canvas, data, lang)
    else:
        _draw_xy(canvas, data, lang)
    return canvas


def draw_png(data: ChartData, lang: Lang | str, path: str | Path) -> Path:
    """Draw prepared chart data to a PNG file."""
    path = Path(path)
    path.write_bytes(encode_png(draw_image(data, lang)))
    return path
