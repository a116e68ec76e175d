"""Chart limits: points per chart kind, series per chart, scale ratio for one axis."""

from __future__ import annotations

LINE_MAX_POINTS = 400  # periods on one line chart (the latest are kept)
BAR_MAX_POINTS = 50  # bars on one bar chart (the largest are kept)
PIE_MAX_SLICES = 6  # a pie with more slices is a bar chart
SERIES_MAX = 8  # lines / bar groups per chart; the rest fold into "Other"
LINE_MIN_POINTS = 4  # three periods or fewer read better as bars
SCALE_RATIO_MAX = 20.0  # two metrics whose maxima differ more never share an axis
PIE_TOTAL_PERCENT = (99.0, 101.0)  # percent shares that make a whole
PIE_TOTAL_FRACTION = (0.99, 1.01)  # fraction shares that make a whole
KPI_MAX_VALUES = 4  # values on one KPI card

MAX_POINTS = {
    "line": LINE_MAX_POINTS,
    "bar": BAR_MAX_POINTS,
    "grouped_bar": BAR_MAX_POINTS,
    "stacked_bar": BAR_MAX_POINTS,
    "pie": PIE_MAX_SLICES,
    "kpi": 1,
    "none": 0,
}
