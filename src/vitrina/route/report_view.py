"""A report of the planner as the faces show it: the answer (an ask run), the option chosen in
words, and, for the technical details only, every option's code, score and reasons.

The web chat puts `report_note` beside the ask answer it renders; the CLI prints the ask
answer with `render_report`; JSON gets both in `RouteResult.report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vitrina.route.messages import text

if TYPE_CHECKING:
    from rich.console import Console

    from vitrina.route.service import RouteResult


def report_note(result: RouteResult) -> dict[str, Any]:
    """The chosen option in words and every option for the technical details."""
    lang = _lang(result)
    chosen = (result.chosen or {}).get("id")
    label = next((c["label"] for c in result.candidates if c["id"] == chosen), "")
    return {
        "label": label,
        "chosen": text("chosen_plan", lang, label=label) if label else "",
        "options_title": text("plans", lang),
        "options": [
            {
                "id": c["id"],
                "label": c["label"],
                "total": c["total"],
                "valid": c["valid"],
                "chosen": c["id"] == chosen,
                "reasons": list(c.get("reasons") or []),
            }
            for c in result.candidates
        ],
    }


def option_lines(note: dict[str, Any], lang: str) -> list[str]:
    """The options as lines of technical details: code, score, the chosen one marked."""
    out = []
    for o in note["options"]:
        mark = f" ← {text('chosen', lang)}" if o["chosen"] else ("" if o["valid"] else " ✗")
        out.append(f"• {o['label']} [{o['id']}]: {o['total']}{mark}")
    return out


def render_report(console: Console, result: RouteResult, *, details: bool = False) -> bool:
    """Print a warehouse report as an ask answer (answer, table, checks, files); the options
    and their scores only with `details`. False when the result holds no answered report."""
    from vitrina.ask import AskResult, render_result

    found = (result.report or {}).get("result")
    if not found:
        return False
    lang = _lang(result)
    note = report_note(result)
    render_result(console, AskResult.model_validate(found), show_sql=details)
    if note["chosen"]:
        console.print(note["chosen"], highlight=False, markup=False)
    if details:
        console.print(text("technical", lang), style="bold", highlight=False)
        for line in option_lines(note, lang):
            console.print(line, highlight=False, markup=False)
    return True


def _lang(result: RouteResult) -> str:
    from vitrina.language.detect import detect_lang

    found = (result.report or {}).get("result") or {}
    return detect_lang(str(found.get("question") or result.answer or ""))
