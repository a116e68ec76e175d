"""CLI: `vitrina task "..."`: the plan as a table, approvals typed or chosen, `--auto`, `--yes`.
Thin: build the service, show what the task waits for, send the answer. Each choice keeps
its number whatever is offered (1 approve, 2 redo or edit, 3 skip or replan, 4 stop), so a
menu never renumbers after a redo; with `--json` stdout holds the JSON alone (prompts and
progress go to stderr)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vitrina.cli_options import CatalogDir, WarehouseUrl

console = Console()
err_console = Console(stderr=True)
NUMBERS = {
    "plan": ("approve", "edit", "replan", "stop"),
    "step": ("approve", "redo", "skip", "stop"),  # clarify: the clarification's own options
}
LABELS = {
    "ru": {
        "approve": "одобрить",
        "edit": "изменить",
        "replan": "перепланировать",
        "stop": "остановить",
        "redo": "повторить",
        "skip": "пропустить",
        "plan": "План",
        "step": "Шаг",
        "tool": "Инструмент",
        "status": "Статус",
        "choose": "Выбор",
        "clarify": "Номер варианта (Enter — другие действия)",
        "comment": "Комментарий",
        "steps": "Новые шаги, по одному в строке (пустая строка — конец)",
        "task": "задача",
    },
    "en": {
        "approve": "approve",
        "edit": "edit",
        "replan": "replan",
        "stop": "stop",
        "redo": "redo",
        "skip": "skip",
        "plan": "Plan",
        "step": "Step",
        "tool": "Tool",
        "status": "Status",
        "choose": "Choice",
        "clarify": "Option number (Enter: other actions)",
        "comment": "Comment",
        "steps": "New steps, one per line (empty line ends)",
        "task": "task",
    },
}
MAX_EDIT_LINES = 20


def plan_table(view: Any) -> Table:
    t = LABELS.get(view.lang, LABELS["en"])
    table = Table(title=f"{t['plan']} · {view.plan_source or ''}", show_lines=False)
    for col in ("#", t["step"], t["tool"], t["status"]):
        table.add_column(col)
    for s in view.plan:
        table.add_row(str(s.n), s.title, s.tool or "", s.status)
    return table


def menu_numbers(kind: str, options: list[str]) -> dict[int, str]:
    """Number -> choice, each choice with its fixed number (an option not offered leaves a gap)."""
    return {n: o for n, o in enumerate(NUMBERS[kind], start=1) if o in options}


def _choose(kind: str, options: list[str], lang: str, out: Console) -> str:
    t = LABELS.get(lang, LABELS["en"])
    numbered = menu_numbers(kind, options)
    menu = "  ".join(f"[bold]{n}[/] {t[o]}" for n, o in numbered.items())
    for _ in range(10):
        raw = out.input(f"{menu}\n{t['choose']}: ").strip().lower()
        if raw.isdigit() and int(raw) in numbered:
            return numbered[int(raw)]
        for o in options:
            if raw in (o, t[o]) or (raw and (o.startswith(raw) or t[o].startswith(raw))):
                return o
    return "stop"


def _clarify(pending: dict[str, Any], t: dict[str, str], out: Console) -> str | None:
    """The id of the clarification option the user picks by its number, or None (no
    clarification, or Enter for the other actions)."""
    found = pending.get("clarification") if "clarify" in pending.get("options", []) else None
    if not found:
        return None
    options = found.get("options") or []
    out.print(str(found.get("question") or ""), highlight=False, markup=False)
    for n, option in enumerate(options, start=1):
        out.print(
            f"  {n}. {option.get('label') or option.get('id')}", highlight=False, markup=False
        )
    for _ in range(5):
        raw = out.input(f"{t['clarify']}: ").strip()
        if not raw:
            return None
        if raw.isdigit() and 1 <= int(raw) <= len(options):
            return str(options[int(raw) - 1]["id"])
    return None


def ask_decision(view: Any, out: Console = console) -> dict[str, Any]:
    """Show what the task waits for and read the user's answer."""
    t = LABELS.get(view.lang, LABELS["en"])
    pending = view.pending
    if pending["kind"] == "plan":
        out.print(plan_table(view))
    else:
        step = pending["step"]
        out.print(f"[bold]{t['step']} {step['n']}. {escape(step['title'])}[/]", highlight=False)
        if step.get("report"):
            out.print(step["report"], highlight=False, markup=False)
        for output in step.get("outputs", []):
            if output.get("files"):
                out.print("  " + ", ".join(output["files"]), highlight=False, markup=False)
        if pending.get("error"):
            out.print(pending["error"], style="red", highlight=False, markup=False)
    if pending.get("notice"):
        out.print(pending["notice"], style="yellow", highlight=False, markup=False)
    chosen = _clarify(pending, t, out)
    if chosen is not None:
        return {"action": "clarify", "choice": chosen}
    options = [o for o in pending["options"] if o != "clarify"]
    action = _choose(pending["kind"], options, view.lang, out)
    decision: dict[str, Any] = {"action": action}
    if action in ("replan", "redo"):
        decision["comment"] = out.input(f"{t['comment']}: ").strip()
    if action == "edit":
        out.print(t["steps"])
        lines = []
        for _ in range(MAX_EDIT_LINES):
            line = out.input("> ").strip()
            if not line:
                break
            lines.append(line)
        decision["steps"] = lines or [s.title for s in view.plan]
    return decision


def _check_owner(service: Any, task_id: str) -> None:
    """The CLI acts as the local user: it continues local tasks only; a task started over
    the API belongs to its token and is refused, as the API refuses another token's task."""
    from vitrina.task.messages import text
    from vitrina.task.service import LOCAL_OWNER

    try:
        view = service.view(task_id)
    except KeyError:
        missing = f"no task {task_id} / задача {task_id} не найдена"
        err_console.print(missing, style="red", markup=False)
        raise typer.Exit(2) from None
    if view.owner != LOCAL_OWNER:
        err_console.print(
            text("not_your_task", view.lang, task_id=task_id), style="red", markup=False
        )
        raise typer.Exit(2)


def task_command(
    request: Annotated[
        str, typer.Argument(help="A multi-step analytical task in Russian or English.")
    ],
    auto: Annotated[
        bool, typer.Option("--auto", help="Autonomous: an evaluator approves each step.")
    ] = False,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Approve every plan and step (failed steps skipped)."),
    ] = False,
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Rules only: the plan from a template.")
    ] = False,
    task_id: Annotated[
        str | None, typer.Option("--task", help="Continue this task (after a crash or a pause).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the final task as JSON.")] = False,
) -> None:
    """Plan a task, approve the plan and each step, get files and a summary."""
    from vitrina.config import load_settings
    from vitrina.task.service import InvalidDecision, TaskService, auto_decision

    out = Console(stderr=True) if as_json else console  # with --json stdout is for the JSON alone
    settings = load_settings(db_url=db, catalog_dir=catalog)
    if not settings.db_url:
        from vitrina.ask import ensure_demo

        ensure_demo(settings)
    service = TaskService(settings, use_llm=not no_llm)

    def progress(event: dict[str, Any]) -> None:
        if event.get("step") and event["node"] == "execute":
            step = event["step"]
            mark = "[red]✗[/]" if step.get("error") else "[green]✓[/]"
            out.print(f"{mark} {step['n']}. {escape(step['title'])}", highlight=False)

    try:
        if task_id:
            _check_owner(service, task_id)
            view = service.resume(task_id, on_event=progress)
        else:
            view = service.start(request, mode="auto" if auto else "semi", on_event=progress)
            out.print(f"{LABELS.get(view.lang, LABELS['en'])['task']} {view.task_id}", style="dim")
        for _ in range(service.config.limits.max_decisions):
            if view.pending is None:
                break
            decision = auto_decision(view.pending) if yes else ask_decision(view, out)
            try:
                view = service.decide(view.task_id, decision, on_event=progress)
            except InvalidDecision as exc:
                out.print(str(exc), style="red", highlight=False, markup=False)
    finally:
        service.close()
    if as_json:
        typer.echo(
            json.dumps(
                view.model_dump(mode="json", exclude={"trace"}),
                ensure_ascii=False,
                default=str,
                indent=2,
            )
        )
        return
    out.print(view.summary or view.status, highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add `task`."""
    app.command("task")(task_command)
