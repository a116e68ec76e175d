"""Without statsmodels (the optional 'forecast' extra) a forecast is a least-squares line over
the months, and its result says "linear" (decision 157). Run in-process with statsmodels made
unimportable, against numpy's own fit of the same series."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from vitrina.task.sandbox import analyses


def _series(folder, values):
    (folder / "in").mkdir()
    (folder / "out").mkdir()
    rows = [[f"2026-{m:02d}-01", v] for m, v in enumerate(values, start=1)]
    (folder / "in" / "a.json").write_text(json.dumps({"columns": ["month", "n"], "rows": rows}))


@pytest.mark.parametrize("method", ["auto", "holt"])
def test_without_statsmodels_the_forecast_is_a_line(tmp_path, monkeypatch, method):
    values = [120.0, 131.0, 128.0, 140.0, 151.0, 149.0]
    _series(tmp_path, values)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "statsmodels", None)  # import statsmodels... fails
    monkeypatch.setitem(sys.modules, "statsmodels.tsa.holtwinters", None)
    analyses.forecast({"steps": 2, "method": method})
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    slope, intercept = np.polyfit(np.arange(6), np.array(values), 1)
    assert result["meta"]["method"] == "linear" and result["note"].startswith("linear;")
    assert result["rows"] == [
        ["2026-07-01", round(intercept + slope * 6, 2)],
        ["2026-08-01", round(intercept + slope * 7, 2)],
    ]
    assert result["meta"]["params"] == {"slope": round(slope, 4), "intercept": round(intercept, 4)}


def test_with_statsmodels_auto_is_damped_holt(tmp_path, monkeypatch):
    pytest.importorskip("statsmodels", reason="statsmodels is the optional 'forecast' extra")
    _series(tmp_path, [120.0, 131.0, 128.0, 140.0, 151.0, 149.0, 160.0, 158.0])
    monkeypatch.chdir(tmp_path)
    analyses.forecast({"steps": 1})
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert result["meta"]["method"] == "damped_holt"
    assert set(result["meta"]["params"]) == {"smoothing_level", "smoothing_trend", "damping_trend"}
