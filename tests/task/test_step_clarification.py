"""A step whose question needs a clarification (which subject: wallets or cards) is answered
on the task, with the clarification's own options: the step reruns with the choice; the
summary names the question in words, never an option list (issue 34, item 3)."""

from __future__ import annotations

import pytest

from vitrina.task.service import InvalidDecision

AMBIGUOUS = "сколько открыто в 2025 году"


def _waiting(make_task):
    service = make_task()
    view = service.start("Посчитай открытия за 2025 год")
    view = service.decide(view.task_id, {"action": "edit", "steps": [AMBIGUOUS]})
    view = service.decide(view.task_id, {"action": "approve"})
    return service, view


def test_clarification_is_offered_and_answered_on_the_step(make_task):
    service, view = _waiting(make_task)
    pending = view.pending
    assert view.status == "awaiting_step" and pending is not None
    assert pending["options"][:2] == ["clarify", "redo"] and "approve" not in pending["options"]
    ids = [o["id"] for o in pending["clarification"]["options"]]
    assert ids == ["wallets", "cards"]
    step = view.plan[0]
    assert step.error == f"Вопрос «{AMBIGUOUS}» нужно уточнить: Кошельки или Карты?"
    with pytest.raises(InvalidDecision):
        service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "clarify", "choice": "wallets"})
    step = view.plan[0]
    assert view.status == "awaiting_step" and step.error is None and step.attempts == 1
    assert step.args["topic"] == "wallets" and step.args["question"] == AMBIGUOUS
    table = step.last_table()
    assert table is not None and table.meta["topic"] == "wallets" and table.row_count >= 1
    assert step.report and step.report.startswith("Уточнено: Кошельки.")
    assert "clarify" not in view.pending["options"]
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.status == "done"
    assert "1. Кошельки" not in (view.summary or "") and "clarify" not in (view.summary or "")


def test_unknown_choice_asks_again(make_task):
    service, view = _waiting(make_task)
    view = service.decide(view.task_id, {"action": "clarify", "choice": "nonsense"})
    assert view.status == "awaiting_step" and view.pending["clarification"]
    assert view.plan[0].attempts == 0


def test_skipped_clarification_in_summary_is_words(make_task):
    service, view = _waiting(make_task)
    view = service.decide(view.task_id, {"action": "skip"})
    assert view.status == "failed"  # its only step skipped: nothing was answered
    summary = view.summary or ""
    assert "Кошельки или Карты" in summary and "wallets" not in summary


class _Answers:
    """A console that prints into a list and answers prompts from a script (the CLI's menu)."""

    def __init__(self, *answers: str) -> None:
        self.answers, self.printed = list(answers), []

    def print(self, *args, **kwargs) -> None:
        self.printed.append(" ".join(str(a) for a in args))

    def input(self, prompt: str = "") -> str:
        self.printed.append(prompt)
        return self.answers.pop(0)


def test_cli_and_mcp_answer_the_clarification(make_task):
    from vitrina.task.commands import ask_decision
    from vitrina.task.mcp_tool import task_decision_tool

    service, view = _waiting(make_task)
    console = _Answers("2")
    assert ask_decision(view, out=console) == {"action": "clarify", "choice": "cards"}
    assert "  1. Кошельки" in console.printed and "  2. Карты" in console.printed
    console = _Answers("", "3")  # Enter: the other actions (redo, skip, stop) by number
    assert ask_decision(view, out=console)["action"] == "skip"
    done = task_decision_tool(view.task_id, "clarify", choice="cards", service=service)
    assert done["status"] == "awaiting_step"
    step = service.view(view.task_id).plan[0]
    assert step.args["topic"] == "cards" and step.error is None
