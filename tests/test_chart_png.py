"""The Pillow PNG renderer: real pixels checked, not just a file written.

Each test decodes the PNG it drew and looks for what a reader would see: bars of the
palette colour where the values say, lines with gaps where values are missing, a dashed
second axis, Cyrillic glyphs, nothing clipped at the edges.
"""

from __future__ import annotations

import io
import zlib
from itertools import pairwise
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from vitrina.present.charts import png
from vitrina.present.charts.data import ChartData, Dataset
from vitrina.present.charts.ticks import (
    aligned_ticks,
    axis_labels,
    nice_step,
    nice_ticks,
    tick_label,
)
from vitrina.present.columns import ValueFormat

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WHITE = (255, 255, 255)
MONTHS = ["янв", "фев", "мар", "апр", "май", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"]


def draw(data: ChartData, tmp_path: Path, lang: str = "ru") -> Image.Image:
    """Draw to a file, check the file is a 1000x560 PNG, and return its decoded pixels."""
    path = png.draw_png(data, lang, tmp_path / "c.png")
    raw = path.read_bytes()
    assert raw.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(raw))
    image.load()
    assert image.size == (1000, 560) and image.mode == "RGB"
    return image


def runs(xs: list[int]) -> list[tuple[int, int]]:
    """Consecutive stretches of sorted pixel positions, as (first, last)."""
    out: list[tuple[int, int]] = []
    for x in xs:
        if out and x == out[-1][1] + 1:
            out[-1] = (out[-1][0], x)
        else:
            out.append((x, x))
    return out


def columns_of(image: Image.Image, colour: tuple[int, int, int], y: int) -> list[int]:
    return [x for x in range(image.width) if image.getpixel((x, y)) == colour]


def rows_of(image: Image.Image, colour: tuple[int, int, int], x: int) -> list[int]:
    return [y for y in range(image.height) if image.getpixel((x, y)) == colour]


def bar(values: list[float | None], **kw: object) -> ChartData:
    return ChartData(
        kind="bar",
        title=kw.pop("title", "Кошельки по регионам"),  # type: ignore[arg-type]
        labels=[f"Регион {i}" for i in range(len(values))],
        datasets=[Dataset(label="Кошельки", column="w", values=values)],
        x_title="Регион",
        y_title="Кошельки",
        **kw,  # type: ignore[arg-type]
    )


def line(series: list[list[float | None]], axes: list[str] | None = None) -> ChartData:
    n = len(series[0])
    return ChartData(
        kind="line",
        title="Выручка по месяцам",
        labels=[f"{MONTHS[i % 12]} {2025 + i // 12}" for i in range(n)],
        datasets=[
            Dataset(label=f"Серия {j}", column=f"s{j}", values=v, axis=axes[j] if axes else "y")
            for j, v in enumerate(series)
        ],
        x_title="Месяц",
        y_title="Выручка, ₽",
        y2_title="Средний чек, ₽" if axes and "y2" in axes else None,
        y_format=ValueFormat.MONEY,
    )


def test_bars_stand_in_the_palette_colour_in_order_with_heights_as_the_values(
    tmp_path: Path,
) -> None:
    image = draw(bar([10.0, 5.0, 0.0, None, 2.5]), tmp_path)
    blue = png.colour(0)
    assert blue == (0x1F, 0x77, 0xB4)
    # just above the x axis every drawn bar is crossed; zero and None draw nothing
    bottom = max(y for y in range(image.height) if image.getpixel((500, y)) == png.AXIS)
    bars = runs(columns_of(image, blue, bottom - 2))
    assert len(bars) == 3
    widths = {b - a for a, b in bars}
    assert max(widths) - min(widths) <= 1  # equal widths
    slot = bars[1][0] - bars[0][0]
    assert bars[2][0] - bars[1][0] == pytest.approx(3 * slot, abs=4)  # slots 0, 1 and 4
    heights = [len(rows_of(image, blue, (a + b) // 2)) for a, b in bars]
    assert heights[0] == pytest.approx(2 * heights[1], abs=2)
    assert heights[0] == pytest.approx(4 * heights[2], abs=3)


def test_negative_bars_hang_below_the_zero_line(tmp_path: Path) -> None:
    image = draw(bar([40.0, -20.0]), tmp_path)
    blue = png.colour(0)
    bars = []
    for a, b in runs([x for x in range(image.width) if rows_of(image, blue, x)]):
        ys = rows_of(image, blue, (a + b) // 2)
        bars.append((min(ys), max(ys)))
    assert len(bars) == 2
    (top_pos, bottom_pos), (top_neg, bottom_neg) = bars
    assert abs(bottom_pos + 1 - top_neg) <= 1  # both start at the zero row
    assert bottom_neg - top_neg == pytest.approx((bottom_pos - top_pos) / 2, abs=2)
    between = (runs(columns_of(image, blue, top_pos))[0][1] + 5, bottom_pos + 1)
    assert image.getpixel(between) == png.ZERO  # the zero line runs between the bars


def test_stacked_bars_pile_up_positive_and_down_negative(tmp_path: Path) -> None:
    data = ChartData(
        kind="stacked_bar",
        title="Stacked",
        labels=["A", "B"],
        datasets=[
            Dataset(label="x", column="v", values=[30.0, 10.0]),
            Dataset(label="y", column="v", values=[10.0, -10.0]),
        ],
    )
    image = draw(data, tmp_path, "en")
    first, second = png.colour(0), png.colour(1)
    a, b = runs([x for x in range(image.width) if rows_of(image, first, x)])[0]
    mid = (a + b) // 2
    blue_rows, orange_rows = rows_of(image, first, mid), rows_of(image, second, mid)
    assert min(blue_rows) > max(orange_rows)  # the second piece sits on top of the first
    assert len(blue_rows) == pytest.approx(3 * len(orange_rows), abs=6)  # seams, rounding
    # the second slot: blue up from zero, orange down from zero
    plot = image.crop((0, 80, image.width, image.height))  # below the legend's swatches
    bars = runs([x for x in range(plot.width) if rows_of(plot, second, x)])
    assert len(bars) == 2
    c = (bars[1][0] + bars[1][1]) // 2
    assert min(rows_of(image, second, c)) > max(rows_of(image, first, c))


def test_a_line_is_drawn_anti_aliased_and_breaks_at_missing_values(tmp_path: Path) -> None:
    n = 50  # over 40 points: no markers, so the line alone is measured
    values: list[float | None] = [10.0] * n
    values[20:30] = [None] * 10
    image = draw(line([values]), tmp_path)
    blue = png.colour(0)
    ys = [y for y in range(image.height) if len(columns_of(image, blue, y)) > 100]
    assert ys, "the line is drawn in the first palette colour"
    pieces = runs(columns_of(image, blue, ys[len(ys) // 2]))
    assert len(pieces) == 2  # two pieces with a gap where the values are missing
    first, second = (b - a for a, b in pieces)
    gap = pieces[1][0] - pieces[0][1]
    assert gap == pytest.approx(first * 10 / 19, rel=0.15) and second == pytest.approx(first)


def test_sloped_lines_are_anti_aliased(tmp_path: Path) -> None:
    image = draw(line([[float(i * i) for i in range(12)]]), tmp_path)
    blue = png.colour(0)

    def between(c: tuple[int, int, int]) -> bool:  # a mix of the line colour and white
        return c not in (blue, WHITE) and all(b <= v <= 255 for v, b in zip(c, blue, strict=True))

    blended = sum(k for k, c in image.getcolors(1 << 16) or [] if between(c))
    assert blended > 500


def test_the_second_axis_line_is_dashed(tmp_path: Path) -> None:
    n = 50  # no markers over 40 points, so a solid line is one unbroken run
    first = [0.0] + [50.0] * (n - 2) + [100.0]  # flat at half height
    second = [0.0] + [2.0] * (n - 2) + [10.0]  # flat at a fifth of the height
    image = draw(line([first, second], ["y", "y2"]), tmp_path)
    solid, dashed = png.colour(0), png.colour(1)

    def longest_row(c: tuple[int, int, int]) -> list[int]:
        return max((columns_of(image, c, y) for y in range(80, 500)), key=len)

    assert len(runs(longest_row(solid))) == 1
    assert len(runs(longest_row(dashed))) > 20


def test_isolated_points_and_none_heavy_series_still_show(tmp_path: Path) -> None:
    n = 60
    values: list[float | None] = [None] * n
    values[5], values[30], values[31] = 3.0, -4.0, 7.0
    image = draw(line([values, [None] * n]), tmp_path)
    blue = png.colour(0)
    plot = image.crop((0, 80, image.width, image.height))  # below the legend's swatches
    xs = [x for x in range(plot.width) if rows_of(plot, blue, x)]
    assert len(runs(xs)) == 2  # a dot for the lone point, a short segment for the pair
    assert png.colour(1) not in {c for _, c in plot.getcolors(1 << 16) or []}


def test_hatched_bars_for_the_second_axis(tmp_path: Path) -> None:
    data = ChartData(
        kind="grouped_bar",
        title="Wallets; Average check",
        labels=["North", "South", "East"],
        datasets=[
            Dataset(label="Wallets", column="w", values=[5400.0, 3200.0, 2800.0]),
            Dataset(label="Average", column="a", values=[12.5, 14.1, 9.8], axis="y2"),
        ],
        y2_title="Average check",
    )
    image = draw(data, tmp_path, "en")
    orange, pale = png.colour(1), png._tint(png.colour(1), 0.3)
    counts = image.getcolors(1 << 16) or []
    found = {c: k for k, c in counts}
    assert found.get(orange, 0) > 500 and found.get(pale, 0) > 2000  # hatch over a pale fill
    assert found.get(png.colour(0), 0) > 10_000  # the first axis's bars stay solid


@pytest.mark.parametrize(
    "data",
    [
        bar([1.0, 2.0, 3.0]),
        line([[1.0, 3.0, 2.0, 5.0]]),
        ChartData(
            kind="grouped_bar",
            title="g",
            labels=["a", "b"],
            datasets=[Dataset(label=s, column="v", values=[1.0, 2.0]) for s in "xyz"],
        ),
        ChartData(
            kind="stacked_bar",
            title="s",
            labels=["a", "b"],
            datasets=[Dataset(label=s, column="v", values=[1.0, None]) for s in "xy"],
        ),
        ChartData(
            kind="pie",
            title="Доли",
            labels=["Москва", "Казань", "Пермь"],
            datasets=[Dataset(label="d", column="v", values=[50.0, 30.0, 20.0])],
            y_format=ValueFormat.PERCENT,
        ),
        ChartData(
            kind="kpi",
            title="Кошельки",
            labels=["май 2025"],
            datasets=[Dataset(label="Кошельки", column="w", values=[12345.0])],
            kpi_values=["12 345"],
        ),
    ],
    ids=["bar", "line", "grouped_bar", "stacked_bar", "pie", "kpi"],
)
def test_every_kind_renders_within_the_frame(tmp_path: Path, data: ChartData) -> None:
    image = draw(data, tmp_path)
    counts = dict((c, k) for k, c in image.getcolors(1 << 16) or [])
    assert counts.get(WHITE, 0) < 1000 * 560 - 2000  # not blank
    assert counts.get(png.colour(0), 0) > 100  # the first series in the first colour
    border = [
        image.getpixel((x, y))
        for x in range(image.width)
        for y in (*range(3), *range(image.height - 3, image.height))
    ] + [
        image.getpixel((x, y))
        for y in range(image.height)
        for x in (*range(3), *range(image.width - 3, image.width))
    ]
    assert set(border) == {WHITE}  # nothing clipped at the edges


def test_long_labels_and_huge_numbers_stay_inside_the_image(tmp_path: Path) -> None:
    long = "Очень длинное название категории товаров, которое не помещается"
    data = ChartData(
        kind="bar",
        title=long * 3,
        labels=[f"{long} {i}" for i in range(30)],
        datasets=[Dataset(label="v", column="v", values=[1e12 * (i + 1) for i in range(30)])],
        x_title=long * 2,
        y_title=long * 2,
    )
    image = draw(data, tmp_path)
    edge = ImageChops.difference(image, Image.new("RGB", image.size, WHITE))
    left, top, right, bottom = edge.getbbox() or (0, 0, 0, 0)
    assert left >= 3 and top >= 3 and right <= 997 and bottom <= 557


def test_cyrillic_text_renders_as_glyphs_not_boxes(tmp_path: Path) -> None:
    f = png.font(18, bold=True)
    box = f.getmask("\u4e00")  # not in the shipped subset: the "missing glyph" box
    for letter in "ЖЩЮЯжщёЁ₽№":
        assert bytes(f.getmask(letter)) != bytes(box), letter
    image = draw(bar([1.0, 2.0], title="Ёжик в тумане"), tmp_path)
    title = image.crop((0, 0, 1000, 45)).convert("L")
    dark = [x for x in range(1000) if min(title.getpixel((x, y)) for y in range(45)) < 100]
    assert dark and dark[-1] - dark[0] > 80  # glyph pixels across the centred title
    assert abs((dark[0] + dark[-1]) / 2 - 500) < 10


def test_fonts_are_cached_per_size_and_fall_back_to_pillows_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert png.font(13) is png.font(13) and png.font(13) is not png.font(14)
    monkeypatch.setattr(png, "FONT_DIR", Path("/nonexistent"))
    png.font.cache_clear()
    try:
        fallback = png.font(15)
        assert fallback.getlength("Wallets") > 0  # Pillow's bundled scalable font
    finally:
        png.font.cache_clear()


def test_fit_shortens_with_an_ellipsis_within_the_width() -> None:
    f = png.font(13)
    assert png.fit("Москва", f, 500) == "Москва"
    short = png.fit("Бытовая техника и электроника для дома", f, 120)
    assert short.endswith("…") and png.text_width(short, f) <= 120
    assert short[:-1] == "Бытовая техника и электроника для дома"[: len(short) - 1].rstrip()
    assert png.fit("a\nb\tc", f, 500) == "a b c"  # one line


def test_at_most_fourteen_x_labels_rotated_when_they_do_not_fit() -> None:
    few = png._x_labels(["янв", "фев", "мар"], slot=200)
    assert few.masks is None and few.index == [0, 1, 2]
    many = png._x_labels([f"Регион номер {i}" for i in range(60)], slot=12)
    assert len(many.index) <= 14 and many.masks is not None
    assert all(m.width > m.height for m in many.masks)
    long = png._x_labels(["x" * 200, "y"], slot=300)
    assert long.masks is not None and long.texts[0].endswith("…")


def test_png_bytes_decode_to_the_same_pixels_with_either_deflate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = Image.new("RGB", (37, 11), WHITE)
    for x in range(37):
        for y in range(11):
            image.putpixel((x, y), ((x * 7) % 256, (y * 23) % 256, (x * y) % 256))
    for compressor in (png.compressobj, zlib.compressobj):
        monkeypatch.setattr(png, "compressobj", compressor)
        back = Image.open(io.BytesIO(png.encode_png(image)))
        assert back.size == image.size
        assert ImageChops.difference(back.convert("RGB"), image).getbbox() is None


def test_values_that_are_not_finite_are_treated_as_missing(tmp_path: Path) -> None:
    image = draw(bar([float("nan"), float("inf"), 3.0]), tmp_path)
    assert len(runs([x for x in range(1000) if rows_of(image, png.colour(0), x)])) == 1


# --- ticks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi", "zero", "expected"),
    [
        (0, 9800, True, [0, 2000, 4000, 6000, 8000, 10000]),
        (1_234_567, 2_280_000, False, [1_200_000 + 200_000 * i for i in range(7)]),
        (0.1, 0.9, False, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (-3, -1, True, [-3, -2.5, -2, -1.5, -1, -0.5, 0]),
        (0, 0, True, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0, 7, True, [0, 2, 4, 6, 8]),
    ],
)
def test_nice_ticks(lo: float, hi: float, zero: bool, expected: list[float]) -> None:
    ticks = nice_ticks(lo, hi, include_zero=zero)
    assert ticks == pytest.approx(expected)
    assert len(ticks) <= 7 and ticks[0] <= min(lo, hi) and ticks[-1] >= max(lo, hi)


def test_nice_steps_and_an_aligned_second_axis() -> None:
    assert [nice_step(x) for x in (0.7, 1.1, 2.2, 3, 6, 45)] == [1, 2, 2.5, 5, 10, 50]
    second = aligned_ticks(0, 37, 5, include_zero=True)
    assert len(second) == 6 and second[0] == 0 and second[-1] >= 37
    steps = {round(b - a, 9) for a, b in pairwise(second)}
    assert len(steps) == 1


def test_tick_labels_use_the_answer_number_format() -> None:
    assert tick_label(1234567.0, ValueFormat.MONEY, "ru") == "1\u00a0234\u00a0567"
    assert tick_label(1234567.0, ValueFormat.MONEY, "en") == "1,234,567"
    assert tick_label(2.5, ValueFormat.NUMBER, "ru") == "2,50"
    assert tick_label(25.0, ValueFormat.PERCENT, "en") == "25.0%"


def test_an_axis_writes_every_tick_with_the_decimals_of_its_step() -> None:
    ticks = nice_ticks(10, 15)
    assert axis_labels(ticks, ValueFormat.NUMBER, "ru") == [str(int(v)) for v in ticks]
    assert axis_labels([10.0, 12.5, 15.0], ValueFormat.NUMBER, "en") == ["10.0", "12.5", "15.0"]
    tiny = axis_labels(nice_ticks(0, 3e-9, include_zero=True), ValueFormat.NUMBER, "en")
    assert len(set(tiny)) == len(tiny)  # tiny values stay apart, not all "0.00"
