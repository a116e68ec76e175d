"""`analyze` (named analyses) and `python` (free code) over earlier steps' tables, both in the
sandbox: no network, read-only filesystem, CPU/memory/file/wall limits. When the machine
cannot isolate a subprocess, the tool refuses instead of running unprotected."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.task.coverage import data_end
from vitrina.task.horizon import Horizon, last_complete_month, months_between
from vitrina.task.messages import text
from vitrina.task.sandbox import SandboxUnavailable, run_python
from vitrina.task.state import ToolOutput
from vitrina.task.tables import load_table
from vitrina.task.tools.base import Tool, ToolEnv, ToolError

LIB = Path(__file__).resolve().parent.parent / "sandbox" / "analyses.py"
MAX_CODE = 20_000
MAX_INPUTS = 5

Kind = Literal["compare", "decline", "growth", "shares", "deviation", "forecast"]
Method = Literal["auto", "damped_holt", "holt", "linear"]


class AnalyzeArgs(BaseModel):
    kind: Kind = Field(
        description="compare (step against other_step), decline (negative changes of a "
        "comparison), growth, shares, deviation, forecast (monthly series)"
    )
    step: int = Field(description="The step whose table is analysed.")
    other_step: int | None = Field(None, description="compare: the step with the previous period.")
    horizon: int = Field(
        3, ge=1, le=24, description="forecast: months ahead (when `target` is not given)."
    )
    target: Horizon | None = Field(
        None,
        description="forecast: the horizon the request's words name, laid "
        "after the series' last month (decides `horizon`).",
    )
    method: Method = Field("auto", description="forecast: damped_holt (auto), holt, linear.")


class PythonArgs(BaseModel):
    code: str = Field(
        min_length=1,
        max_length=MAX_CODE,
        description="Python (numpy, statsmodels). Inputs: in/step<N>.json {columns, rows}; "
        "write out/result.json {columns, rows, note} and files to out/.",
    )
    steps: list[int] = Field(default_factory=list, max_length=MAX_INPUTS)


def _sandboxed(
    env: ToolEnv,
    tool: str,
    script: str,
    inputs: dict[str, Path],
    support: list[Path],
    extra_meta: dict[str, Any] | None = None,
) -> ToolOutput:
    limits = env.ctx.config.sandbox
    # the sandbox's outputs are copied into the task's folder: no more than its quota has left
    out_mb = max(1, min(limits.out_mb, env.quota.left() >> 20))
    try:
        result = run_python(
            script,
            inputs=inputs,
            support=support,
            limits=dataclasses.replace(limits, out_mb=out_mb),
            out_dir=env.folder / f"{tool}-{env.seq}-sandbox",
        )
    except SandboxUnavailable as exc:
        env.trace.error("sandbox unavailable: analysis refused", error=str(exc))
        raise ToolError(f"isolation unavailable, the code was not run: {exc}") from None
    env.trace.measurement(
        "sandbox run",
        rc=result.returncode,
        limit=result.limit,
        wall_s=result.wall_s,
        nested_namespaces=result.nested_namespaces,
    )
    if result.nested_namespaces.startswith("allowed"):
        env.trace.warning("sandbox: nested namespaces not denied", why=result.nested_namespaces)
    if not result.ok:
        why = f"limit: {result.limit}; " if result.limit else ""
        raise ToolError(
            f"analysis failed ({why}exit {result.returncode}): {result.stderr.strip()[-600:]}"
        )
    table = next((f for f in result.files if f.name == "result.json"), None)
    extra = [str(f) for f in result.files if f.name != "result.json"]
    if table is None:
        return ToolOutput(
            tool=tool,
            ok=True,
            summary=result.stdout.strip()[-1000:] or "no table written",
            files=extra,
        )
    data = json.loads(table.read_text(encoding="utf-8"))
    note = str(data.get("note") or "")
    kind = (extra_meta or {}).get("kind") or "python"
    lang = env.lang if env.lang in ("ru", "en") else "ru"
    summary = text(
        "analysis_summary",
        lang,
        what=text(f"analysis_{kind}", lang),
        rows=len(data.get("rows", [])),
        columns=", ".join(data.get("columns", [])),
    )
    meta = {
        **(data.get("meta") if isinstance(data.get("meta"), dict) else {}),
        **(extra_meta or {}),
        "note": note,
    }
    return env.table_output(
        tool, tool, data.get("columns", []), data.get("rows", []), summary, files=extra, meta=meta
    )


def month_shift(current: dict[str, Any], previous: dict[str, Any]) -> int:
    """Months from the previous period to the current one when both start on a month's first
    day: the compare pairs "May 2025" with "May 2026" by it (a series by month, year over
    year); 0 otherwise (keys compared as they are)."""
    try:
        now, then = date.fromisoformat(current["start"]), date.fromisoformat(previous["start"])
    except (KeyError, TypeError, ValueError):
        return 0
    if now.day != 1 or then.day != 1:
        return 0
    return (now.year - then.year) * 12 + now.month - then.month


def _period(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: meta.get(k) for k in ("start", "end", "label_ru", "label_en")}


def _forecast_window(env: ToolEnv, args: AnalyzeArgs) -> dict[str, Any]:
    """Steps and the first reported month: the target laid after the series' last month."""
    source = env.step_table(args.step)
    series = load_table(source.data or "")
    months = sorted(v for row in series.rows for v in row if isinstance(v, date))
    last_day = data_end(source.meta.get("sql"), env.ctx, env.trace)
    actuals = (
        {"actuals_to": last_complete_month(env.ctx.today, last_day).isoformat()} if last_day else {}
    )
    if not months or args.target is None:
        return {"steps": args.horizon, "kind": "forecast", **actuals}
    last = months[-1].replace(day=1)
    first, final = args.target.target(last)
    steps = len(months_between(last, final)) - 1
    return {
        "steps": steps,
        "report_from": first.isoformat(),
        "kind": "forecast",
        **actuals,
        "target": [m.isoformat() for m in months_between(first, final)],
    }


def analyze(env: ToolEnv, args: AnalyzeArgs) -> ToolOutput:
    source = env.step_table(args.step)
    inputs = {"a.json": Path(source.data or "")}
    params: dict[str, Any] = {"horizon": args.horizon, "method": args.method}
    meta: dict[str, Any] = {"kind": args.kind}
    if args.kind == "compare":
        if args.other_step is None:
            raise ToolError("compare needs other_step (the previous period)")
        other = env.step_table(args.other_step)
        inputs["b.json"] = Path(other.data or "")
        meta.update(
            current=_period(source.meta),
            previous=_period(other.meta),
            steps=[args.step, args.other_step],
        )
        params["shift_months"] = meta["shift_months"] = month_shift(source.meta, other.meta)
        last = data_end(source.meta.get("sql"), env.ctx, env.trace)
        meta["data_end"] = last.isoformat() if last else None
    if args.kind == "forecast":
        window = _forecast_window(env, args)
        params.update(window)
        meta.update(window)
        if args.target is not None:
            meta["asked"] = args.target.model_dump(mode="json")
    script = (
        f"import analyses, json\nanalyses.run({args.kind!r}, "
        f"json.loads({json.dumps(json.dumps(params))}))\n"
    )
    return _sandboxed(env, "analyze", script, inputs, [LIB], meta)


def python(env: ToolEnv, args: PythonArgs) -> ToolOutput:
    inputs = {f"step{n}.json": Path(env.step_table(n).data or "") for n in args.steps}
    return _sandboxed(env, "python", args.code, inputs, [])


ANALYZE = Tool(
    "analyze",
    "A named analysis over earlier steps' tables, run in an isolated sandbox: compare, "
    "decline, growth, shares, deviation, forecast.",
    analyze,
    AnalyzeArgs,
)
PYTHON = Tool(
    "python",
    "Run Python (numpy, statsmodels) over earlier steps' tables in an isolated sandbox "
    "(no network, limits); write out/result.json.",
    python,
    PythonArgs,
)
