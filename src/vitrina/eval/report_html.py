"""The HTML report of a run or a matrix: one self-contained file (no scripts, no CDN)."""

from __future__ import annotations

from pathlib import Path

import jinja2

from vitrina.eval.metrics import summarize
from vitrina.eval.records import CaseRecord, RunRecord
from vitrina.eval.report_terminal import METRICS, format_metric, metric_value, ranked

ROWS_SHOWN = 5

TEMPLATE = """<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1d2433;max-width:1200px}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #d4d9e2;padding:.25rem .5rem;vertical-align:top}
th{background:#f1f4f8;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;white-space:pre-wrap;margin:.25rem 0}
.case{border-left:4px solid #c62828;padding:.25rem 1rem;margin:1rem 0}.case.pending{border-color:#f9a825}
.case.review{border-color:#1565c0}.tag{font-size:12px;background:#eef;padding:0 .4rem;border-radius:3px}
.sides{display:flex;gap:1rem;flex-wrap:wrap}.sides>div{flex:1;min-width:300px}small{color:#5b6577}
</style></head><body>
<h1>{{ title }}</h1>
<p><small>suite / набор: <b>{{ suite }}</b>{% if matrix_id %} · matrix / матрица {{ matrix_id }}{% endif %}</small></p>
{% if ranking %}<h2>ranking by right over all cases / рейтинг по верным из всех случаев</h2>
<table><tr><th>#</th><th>config</th><th>right / all</th><th>right over all</th><th>decided</th><th>accuracy (decided)</th></tr>
{% for r in ranking %}<tr><td class="num">{{ loop.index }}</td><td>{{ r.name }}</td>{% for v in r.cells %}<td class="num">{{ v }}</td>{% endfor %}</tr>
{% endfor %}</table>{% endif %}
<table><tr><th>metric / метрика</th>{% for run in runs %}<th>{{ run.config_name }}<br><small>{{ run.id }}</small></th>{% endfor %}</tr>
{% for row in metric_rows %}<tr><td>{{ row.label }}</td>{% for v in row.cells %}<td class="num">{{ v }}</td>{% endfor %}</tr>
{% endfor %}</table>
{% for run in runs %}
<h2>{{ run.config_name }} <small>{{ run.id }} · {{ run.started_at }}</small></h2>
{% if run.config %}<details><summary>configuration / конфигурация</summary><pre>{{ run.config | tojson(indent=2) }}</pre></details>{% endif %}
{% set cases = failing[run.id] %}
{% if not cases %}<p>Every case is right / все случаи верны.</p>{% endif %}
{% for c in cases %}
<div class="case {{ 'pending' if c.final == 'pending' else ('review' if c.in_review and not c.manual else '') }}">
<h3 id="{{ run.id }}-{{ c.case_id }}">{{ c.case_id }} <span class="tag">{{ c.kind }}</span> <span class="tag">{{ c.final }}{% if c.manual %} (manual){% endif %}</span>
{% for t in c.tags %}<span class="tag">{{ t }}</span>{% endfor %}{% if c.xfail %} <span class="tag">known gap: {{ c.xfail }}</span>{% endif %}</h3>
{% for q in c.turns %}<div>{{ loop.index }}. {{ q }}</div>{% endfor %}
<p><b>{{ c.reason }}</b>{% if c.judge_reason %}<br>judge / судья: {{ 'equivalent' if c.judge_ok else 'different' }} — {{ c.judge_reason }}{% endif %}
{% if c.manual_comment %}<br>manual / вручную: {{ c.manual_comment }}{% endif %}
{% if c.invented %}<br>invented numbers / выдуманные числа: {{ c.invented | join(', ') }}{% endif %}</p>
{% if c.answer %}<pre>{{ c.answer }}</pre>{% endif %}
{% if c.sql %}<details open><summary>SQL ({{ c.sql_source or 'rules' }})</summary><pre>{{ c.sql }}</pre></details>{% endif %}
{% if c.expected or c.got %}<div class="sides">
<div><b>expected / ожидалось</b> <small>{{ c.expected_count }} row(s)</small><table>{% for r in c.expected[:rows_shown] %}<tr>{% for v in r %}<td>{{ v }}</td>{% endfor %}</tr>{% endfor %}</table></div>
<div><b>got / получено</b> <small>{{ c.got_count }} row(s)</small><table>{% if c.columns %}<tr>{% for h in c.columns %}<th>{{ h }}</th>{% endfor %}</tr>{% endif %}{% for r in c.got[:rows_shown] %}<tr>{% for v in r %}<td>{{ v }}</td>{% endfor %}</tr>{% endfor %}</table></div>
</div>{% endif %}
{% if c.diff %}<pre>{{ c.diff }}</pre>{% endif %}
{% if c.trace %}<details><summary>decision trace / журнал решений ({{ c.trace | length }})</summary><table>
{% for e in c.trace %}<tr><td>{{ e.node }}</td><td>{{ e.kind }}</td><td>{{ e.message }}</td><td><small>{{ e.data | tojson }}</small></td></tr>{% endfor %}
</table></details>{% endif %}
</div>
{% endfor %}
{% endfor %}
</body></html>
"""  # noqa: E501


def _failing(run: RunRecord) -> list[CaseRecord]:
    return [
        c
        for c in run.cases
        if c.final != "right" or c.invented or (c.in_review and c.manual is None)
    ]


def render_html(runs: list[RunRecord], title: str | None = None) -> str:
    """The report as an HTML page."""
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    runs = ranked(runs) if len(runs) > 1 else runs
    summaries = [summarize(r.cases) for r in runs]
    rows = [
        {
            "label": f"{en} / {ru}",
            "cells": [format_metric(metric_value(s, key), kind) for s in summaries],
        }
        for key, en, ru, kind in METRICS
    ]
    suite = ", ".join(dict.fromkeys(r.suite for r in runs))
    matrix_id = runs[0].matrix_id if runs and len({r.matrix_id for r in runs}) == 1 else None
    return env.from_string(TEMPLATE).render(
        title=title or f"Vitrina eval: {suite}",
        suite=suite,
        matrix_id=matrix_id,
        runs=runs,
        metric_rows=rows,
        ranking=ranking_rows(runs) if len(runs) > 1 else [],
        failing={r.id: _failing(r) for r in runs},
        rows_shown=ROWS_SHOWN,
    )


def ranking_rows(runs: list[RunRecord]) -> list[dict[str, object]]:
    """The ranking's rows (runs already ranked): name and the four numbers read together."""
    out = []
    for run in runs:
        s = summarize(run.cases)
        out.append(
            {
                "name": f"{run.config_name} ({run.id})",
                "cells": [
                    s.right_of_all,
                    format_metric(s.right_over_all, "rate"),
                    f"{s.decided_of_all} ({format_metric(s.decided_share, 'rate')})",
                    format_metric(s.accuracy, "rate"),
                ],
            }
        )
    return out


def write_html(runs: list[RunRecord], path: Path, title: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(runs, title), encoding="utf-8")
    return path
