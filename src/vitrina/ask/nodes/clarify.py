"""Clarification: pause the graph (LangGraph interrupt) and read the user's choice.

The reply may be an option number ("2"), an option id, or free text naming an option;
free text that names none is kept as a new question for the same turn.
"""

from __future__ import annotations

from langgraph.types import interrupt

from vitrina.ask.state import AskState
from vitrina.language.text import normalize
from vitrina.trace import Trace


def pick_option(reply: str, options: list[dict[str, str]]) -> str | None:
    """The option a reply chooses, by number, id or label (prefix, case-insensitive)."""
    answer = normalize(reply).strip(" .!?")
    if answer.isdigit() and 1 <= int(answer) <= len(options):
        return options[int(answer) - 1]["id"]
    for option in options:
        if answer in (normalize(option["id"]), normalize(option["label"])):
            return option["id"]
    for option in options:
        label = normalize(option["label"])
        if len(answer) >= 3 and (label.startswith(answer[:4]) or answer.startswith(label[:4])):
            return option["id"]
    return None


def clarify(state: AskState) -> dict:
    trace = Trace("clarify")
    request = state["clarification"]
    reply = interrupt(request)
    reply_text = str(reply.get("text", "") if isinstance(reply, dict) else reply)
    chosen = pick_option(reply_text, request["options"])
    count = state.get("clarifications_in_row", 0) + 1
    if chosen is None:
        trace.branch("reply names no option: taken as a refined question", reply=reply_text)
        return {
            "rewritten": f"{state['rewritten']} {reply_text}".strip(),
            "clarification": None,
            "clarifications_in_row": count,
            "trace": trace.events,
        }
    trace.branch("clarified", kind=request["kind"], chosen=chosen)
    update = {
        "chosen": {**state.get("chosen", {}), request["kind"]: chosen},
        "clarification": None,
        "clarifications_in_row": count,
        "trace": trace.events,
    }
    if len(normalize(reply_text).split()) > 1:
        # "кошельков через приложение": the choice plus a condition; keep both
        update["rewritten"] = f"{state['rewritten']} {reply_text}".strip()
    return update
