"""Compare two query results by what they say, not by how the SQL was written.

Rules (the golden set relies on each):

* Column names and column order are ignored: a column of the result is matched to a
  column of the reference by its values, so ``SELECT region, total`` equals
  ``SELECT total AS s, region AS r``.
* Row order is ignored unless ``ordered=True`` (top-N, sorted answers); rows are
  compared as multisets, so two equal rows never merge into one and a different
  number of rows is always a different answer.
* Numbers (int, float, Decimal) are compared as ``Decimal`` rounded to 2 places, so
  3700 equals 3700.00 and 3700.001, but 3700 never equals 3701.
* Numbers written as text are numbers: ``"3 700"``, ``"3\u00a0700,50 ₽"``, ``"1,234.5"``,
  ``"12,5 %"`` (see :func:`parse_number_text`). A column shown as text is compared at the
  precision it is displayed with (``"12,5"`` equals 12.46, not 12.44), never coarser than
  whole units, so large counts are never merged by rounding (3 700 never equals 3 701).
* A timestamp at midnight equals the date it starts; other values compare as they are.
* A total (one row, one column) and a breakdown (several rows or columns) always
  differ: the shapes differ, whatever the sums.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from itertools import combinations
from typing import Any

CENT = Decimal("0.01")
PLACES = 2  # decimals compared for numbers that come as numbers
MAX_DIFF_ROWS = 5

Cell = Any
Row = tuple[Cell, ...]


@dataclass(frozen=True)
class Comparison:
    """The outcome of one comparison: `ok`, and a short human diff when not."""

    ok: bool
    diff: str = ""

    def __bool__(self) -> bool:
        return self.ok


_SPACES = " \u00a0\u202f\u2009"
_PREFIX = re.compile(r"^(?:RUB|USD|EUR|[$€₽])\s*", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*(?:₽|руб\.?|RUB|USD|EUR|[$€%])$", re.IGNORECASE)
_GROUPED_SPACE = re.compile(rf"^[-+−]?[1-9]\d{{0,2}}(?:[{_SPACES}]\d{{3}})+(?:[.,]\d+)?$")
_GROUPED_COMMA = re.compile(r"^[-+−]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$")
_PLAIN = re.compile(r"^[-+−]?(?:0|[1-9]\d*)(?:[.,]\d+)?$")


def parse_number_text(text: str) -> tuple[Decimal, int] | None:
    """A number written as text and its displayed decimals, or None when it is not one.

    Thousands may be grouped with spaces (also no-break) or, English style, commas; the
    decimal mark is a comma or a point; a currency or percent mark is dropped. A comma
    followed by exactly three digits is a thousands separator. Leading zeros ("007") are
    codes, not numbers.

    >>> parse_number_text("3 700"), parse_number_text("1,234.50"), parse_number_text("12,5 %")
    ((Decimal('3700'), 0), (Decimal('1234.50'), 2), (Decimal('12.5'), 1))
    >>> parse_number_text("007"), parse_number_text("Москва")
    (None, None)
    """
    t = _SUFFIX.sub(
        "", _PREFIX.sub("", text.strip(), count=1), count=1
    )  # one mark: "RUB 1 234", "1 234 ₽"
    if _GROUPED_COMMA.match(t):
        t = t.replace(",", "")
    elif _GROUPED_SPACE.match(t):
        t = re.sub(f"[{_SPACES}]", "", t)
    elif not _PLAIN.match(t):
        return None
    t = t.replace(",", ".").replace("−", "-")
    places = len(t.partition(".")[2])
    return Decimal(t), places


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]00:00:00(?:\.0+)?)?")


def _iso_date(text: str) -> dt.date | None:
    """A date written as SQLite keeps one ('2024-01-01', '2024-01-01 00:00:00'): the same
    cell as the date another engine returns (decision 166); None for any other text."""
    if not _ISO_DATE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def _text_cell(text: str) -> Cell:
    """A text cell: a number written as text is the number, a date as text the date."""
    parsed = parse_number_text(text)
    if parsed is not None:
        return parsed[0].quantize(CENT, rounding=ROUND_HALF_UP)
    return _iso_date(text) or text


def normalize_cell(value: Any) -> Cell:
    """A hashable, engine-independent form of one value."""
    if isinstance(value, str):
        return _text_cell(value)
    if value is None:
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | Decimal):
        try:
            return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)
        except InvalidOperation:  # NaN, infinity
            return str(value)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and value.tzinfo is None:
            return value.date()
        return value
    if isinstance(value, dt.date | dt.time):
        return value
    if isinstance(value, list | tuple):
        return tuple(normalize_cell(v) for v in value)
    return str(value)


def normalize_rows(rows: Iterable[Sequence[Any]]) -> list[Row]:
    """Every row as a tuple of normalized cells."""
    return [tuple(normalize_cell(v) for v in row) for row in rows]


def _full_cell(value: Any) -> tuple[Cell, int | None]:
    """A cell with numbers kept at full precision, and the decimals it is displayed with
    (PLACES for a number that comes as a number; None for anything that is not a number)."""
    if isinstance(value, str):
        parsed = parse_number_text(value)
        if parsed is None:
            return _iso_date(value) or value, None
        return parsed[0], min(parsed[1], PLACES)
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            return str(value), None
        return (number, PLACES) if number.is_finite() else (str(value), None)
    return normalize_cell(value), None


@dataclass(frozen=True)
class _Table:
    """Rows with full-precision numbers, and each column's displayed decimals."""

    rows: list[Row]
    places: list[int]

    @property
    def width(self) -> int:
        return len(self.places)

    def at(self, places: Sequence[int], columns: Sequence[int] | None = None) -> list[Row]:
        """The rows (only `columns`, in that order) with column k rounded to places[k]."""
        cols = list(columns) if columns is not None else list(range(self.width))
        return [
            tuple(_round(row[c], p) for c, p in zip(cols, places, strict=True)) for row in self.rows
        ]

    def project(self, columns: Sequence[int]) -> _Table:
        return _Table(
            [tuple(row[c] for c in columns) for row in self.rows], [self.places[c] for c in columns]
        )


def _round(cell: Cell, places: int) -> Cell:
    if isinstance(cell, Decimal):
        return cell.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return cell


def _prepare(rows: Iterable[Sequence[Any]]) -> _Table | str:
    """A _Table, or the reason the rows cannot be compared."""
    full = [[_full_cell(v) for v in row] for row in rows]
    widths = {len(r) for r in full}
    if len(widths) > 1:
        return "ragged rows: every row must have the same number of columns"
    width = widths.pop() if widths else 0
    places = []
    for c in range(width):
        shown = [row[c][1] for row in full if row[c][1] is not None]
        places.append(max(shown) if shown else PLACES)
    return _Table([tuple(cell for cell, _ in row) for row in full], places)


def _sort_key(cell: Cell) -> tuple[int, Any]:
    """A total order over mixed cells: numbers by value, dates by date, others by text."""
    if cell is None:
        return (0, "")
    if isinstance(cell, Decimal):
        return (1, cell)
    if isinstance(cell, dt.date | dt.datetime | dt.time):
        return (2, cell.isoformat())
    return (3, repr(cell))


def _row_key(row: Row) -> tuple[tuple[int, Any], ...]:
    return tuple(_sort_key(c) for c in row)


def _signature(table: _Table, column: int, places: int) -> tuple[Cell, ...]:
    return tuple(sorted((_round(row[column], places) for row in table.rows), key=_sort_key))


def _pair_places(expected: _Table, got: _Table) -> list[list[int]]:
    """Decimals to compare expected column i with got column j: the coarser display wins."""
    return [[min(pe, pg) for pg in got.places] for pe in expected.places]


def _column_mappings(expected: _Table, got: _Table, places: list[list[int]]) -> Iterable[list[int]]:
    """Candidate maps expected column -> got column whose values agree as multisets."""
    width = expected.width
    candidates = [
        [
            j
            for j in range(width)
            if _signature(got, j, places[i][j]) == _signature(expected, i, places[i][j])
        ]
        for i in range(width)
    ]

    def walk(i: int, taken: list[int]) -> Iterable[list[int]]:
        if i == width:
            yield list(taken)
            return
        for j in candidates[i]:
            if j not in taken:
                taken.append(j)
                yield from walk(i + 1, taken)
                taken.pop()

    return walk(0, [])


def _aligned(
    expected: _Table, got: _Table, mapping: list[int], places: list[list[int]]
) -> tuple[list[Row], list[Row]]:
    """Both sides rounded pairwise, got's columns in expected's order."""
    pair = [places[i][j] for i, j in enumerate(mapping)]
    return expected.at(pair), got.at(pair, mapping)


def _rows_equal(expected: list[Row], got: list[Row], ordered: bool) -> bool:
    return expected == got if ordered else Counter(expected) == Counter(got)


def _fmt(row: Row) -> str:
    return "(" + ", ".join(str(v) for v in row) + ")"


def _diff(expected: list[Row], got: list[Row], ordered: bool) -> str:
    lines = [
        f"expected {len(expected)} row(s) x {len(expected[0]) if expected else 0} col(s), "
        f"got {len(got)} row(s) x {len(got[0]) if got else 0} col(s)"
    ]
    if ordered and Counter(expected) == Counter(got):
        lines.append("same rows, different order")
        lines.append("  expected order: " + ", ".join(_fmt(r) for r in expected[:MAX_DIFF_ROWS]))
        lines.append("  got order:      " + ", ".join(_fmt(r) for r in got[:MAX_DIFF_ROWS]))
        return "\n".join(lines)
    exp_c, got_c = Counter(expected), Counter(got)
    missing = list((exp_c - got_c).elements())
    extra = list((got_c - exp_c).elements())
    if missing:
        lines.append(
            f"  only in expected ({len(missing)}): "
            + ", ".join(_fmt(r) for r in sorted(missing, key=_row_key)[:MAX_DIFF_ROWS])
        )
    if extra:
        lines.append(
            f"  only in got ({len(extra)}):      "
            + ", ".join(_fmt(r) for r in sorted(extra, key=_row_key)[:MAX_DIFF_ROWS])
        )
    return "\n".join(lines)


def compare_results(
    expected: Iterable[Sequence[Any]], got: Iterable[Sequence[Any]], *, ordered: bool = False
) -> Comparison:
    """Whether `got` says the same as `expected`, with a small diff when it does not."""
    exp, gotten = _prepare(expected), _prepare(got)
    if isinstance(exp, str) or isinstance(gotten, str):
        return Comparison(False, exp if isinstance(exp, str) else str(gotten))
    if exp.rows and gotten.rows and gotten.width > exp.width:
        own = gotten.at(gotten.places)
        for kept in _reference_keeps(own, exp.width):
            if _compare_same_width(exp, gotten.project(kept), ordered):
                return Comparison(True)
    return _compare_same_width(exp, gotten, ordered)


def _compare_same_width(exp: _Table, got: _Table, ordered: bool) -> Comparison:
    if len(exp.rows) != len(got.rows) or exp.width != got.width:
        return Comparison(False, _diff(exp.at(exp.places), got.at(got.places), ordered))
    if not exp.rows:
        return Comparison(True)
    places = _pair_places(exp, got)
    for mapping in _column_mappings(exp, got, places):
        if _rows_equal(*_aligned(exp, got, mapping, places), ordered):
            return Comparison(True)
    # no column order makes the rows agree: show the diff in the most likely order
    best = next(iter(_column_mappings(exp, got, places)), None)
    if best is None:
        best = _greedy_mapping(exp.rows, got.rows, exp.width)
    return Comparison(False, _diff(*_aligned(exp, got, best, places), ordered))


def _determines(rows: list[Row], a: int, b: int) -> bool:
    """Column a functionally determines column b (each a value has one b value)."""
    seen: dict[Cell, Cell] = {}
    return all(seen.setdefault(row[a], row[b]) == row[b] for row in rows)


MAX_EXTRA_COLUMNS = 2


def _references(rows: list[Row], ref: int, label: int) -> bool:
    """Column `ref` is an identifier of the text column `label`: it determines it, never
    merges two of its values, and is not a constant (unless there is a single row)."""
    labels = {row[label] for row in rows}
    refs = {row[ref] for row in rows}
    return (
        all(isinstance(v, str) for v in labels)
        and _determines(rows, ref, label)
        and len(refs) >= len(labels)
        and (len(rows) == 1 or len(refs) > 1)
    )


def _reference_keeps(rows: list[Row], width: int) -> Iterator[list[int]]:
    """Columns to keep so that only extra reference-like columns are dropped."""
    total = len(rows[0])
    if total - width > MAX_EXTRA_COLUMNS:
        return
    for dropped in combinations(range(total), total - width):
        kept = [c for c in range(total) if c not in dropped]
        if all(any(_references(rows, d, k) for k in kept) for d in dropped):
            yield kept


def reference_projections(rows: list[Row], width: int) -> Iterator[list[Row]]:
    """`rows` without extra reference-like columns (an id next to the name it identifies):
    each dropped column must determine a column that stays. At most MAX_EXTRA_COLUMNS."""
    for kept in _reference_keeps(rows, width):
        yield [tuple(row[c] for c in kept) for row in rows]


def _greedy_mapping(expected: list[Row], got: list[Row], width: int) -> list[int]:
    """A column map by value type, for a readable diff when no exact map exists."""

    def kind(rows: list[Row], i: int) -> str:
        return next((type(r[i]).__name__ for r in rows if r[i] is not None), "NoneType")

    free = list(range(width))
    mapping: list[int] = []
    for i in range(width):
        j = next((j for j in free if kind(got, j) == kind(expected, i)), free[0])
        free.remove(j)
        mapping.append(j)
    return mapping
