"""The board in the terminal: the live table of a running build, a task's page."""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from vitrina.team.board import BoardStore, Build, Task
from vitrina.team.lifecycle import TaskKind, TaskStatus
from vitrina.team.primitives import verdict_of
from vitrina.team.protocol import parse_comment

STYLE = {
    TaskStatus.NEW: "dim",
    TaskStatus.IN_PROGRESS: "yellow",
    TaskStatus.REVIEW: "cyan",
    TaskStatus.REWORK: "magenta",
    TaskStatus.DONE: "green",
    TaskStatus.BLOCKED: "bold red",
}
REVIEW = {"ru": "ревью", "en": "review"}
HEAD = {
    "ru": ("#", "Фаза", "Задача", "Роль", "Статус", "Раунд", "Последний блок"),
    "en": ("#", "Phase", "Task", "Role", "Status", "Round", "Last block"),
}


def _last_block(store: BoardStore, task: Task) -> str:
    comments = store.comments(task.id)
    if task.kind is TaskKind.REVIEW:
        verdict = verdict_of(comments)
        if verdict is not None and verdict.verdict:
            return verdict.verdict["verdict"]
    for comment in reversed(comments):
        if comment.problems:
            return "invalid: " + comment.problems[0][:50]
        if comment.handoff:
            return str(comment.handoff["status"])
    return ""


def board_table(store: BoardStore, build: Build, lang: str = "en") -> Table:
    """Every task of a build, reviews indented under their work task."""
    head = HEAD.get(lang, HEAD["en"])
    table = Table(
        title=f"{build.title} · build {build.id} · {build.status} · {build.phase}",
        title_justify="left",
        expand=False,
    )
    for name in head:
        table.add_column(
            name, no_wrap=name not in ("Task", "Задача", "Last block", "Последний блок")
        )
    tasks = store.tasks(build.id)
    children: dict[int, list[Task]] = {}
    for task in tasks:
        if task.parent_id is not None:
            children.setdefault(task.parent_id, []).append(task)
    for task in (t for t in tasks if t.parent_id is None):
        for item in [task, *children.get(task.id, [])]:
            title = (
                item.title
                if item.parent_id is None
                else "  └ " + REVIEW.get(lang, "review")
                if item.kind is TaskKind.REVIEW
                else "  └ " + item.title
            )
            table.add_row(
                str(item.id),
                item.phase,
                escape(title),
                item.role,
                Text(str(item.status), style=STYLE[item.status]),
                str(item.round),
                escape(_last_block(store, item)),
            )
    return table


def task_page(store: BoardStore, task: Task, *, diff: str = "") -> Group:
    """One task: its fields, comments with parsed blocks, reviews, attachments, audit."""
    fields = Table.grid(padding=(0, 2))
    for key, value in (
        ("kind", task.kind),
        ("status", task.status),
        ("role", task.role),
        ("phase", task.phase),
        ("step", task.step),
        ("round", task.round),
        ("branch", task.branch or ""),
        ("parent", task.parent_id or ""),
    ):
        fields.add_row(Text(key, style="bold"), escape(str(value)))
    parts: list = [Panel(fields, title=f"task {task.id}: {escape(task.title)}", title_align="left")]
    if task.body:
        parts.append(Panel(escape(task.body[:3000]), title="body", title_align="left"))
    for comment in store.comments(task.id):
        body = parse_comment(comment.text).body
        blocks = []
        if comment.verdict:
            blocks.append(
                f"VERDICT {comment.verdict['verdict']}"
                + "".join(f"\n  - {a}" for a in comment.verdict.get("amendments", []))
            )
        if comment.handoff:
            h = comment.handoff
            blocks.append(
                f"HANDOFF {h['status']} · NEXT {h.get('next') or '-'}"
                + (f" · NEXT-PHASE {h['next_phase']}" if h.get("next_phase") else "")
                + (
                    f" · REVIEWERS {', '.join(h['reviewers_requested'])}"
                    if h.get("reviewers_requested")
                    else ""
                )
            )
        if comment.problems:
            blocks.append("[red]no valid block:[/] " + escape("; ".join(comment.problems)))
        text = (
            escape(body)
            + ("\n\n" if body and blocks else "")
            + "\n".join(b if b.startswith("[red]") else escape(b) for b in blocks)
        )
        parts.append(Panel(text, title=f"{comment.author} · {comment.key}", title_align="left"))
    reviews = [t for t in store.tasks(task.build_id) if t.parent_id == task.id]
    if reviews:
        table = Table("review", "role", "round", "status", "verdict")
        for review in reviews:
            table.add_row(
                str(review.id),
                review.role,
                str(review.round),
                str(review.status),
                _last_block(store, review),
            )
        parts.append(table)
    for attachment in store.attachments(task.id):
        parts.append(Text(f"attachment {attachment.name}: {attachment.path}", style="cyan"))
    audit = Table("actor", "action", "outcome", "detail", title="audit", title_justify="left")
    for entry in store.audit_log(task.build_id, task_id=task.id):
        audit.add_row(entry.actor, entry.action, entry.outcome, escape(str(entry.detail)[:100]))
    parts.append(audit)
    if diff:
        parts.append(Panel(escape(diff[:8000]), title=f"diff of {task.branch}", title_align="left"))
    return Group(*parts)
