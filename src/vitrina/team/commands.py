"""CLI: `vitrina build BRIEF [--out DIR]` with a live board, and `vitrina board [list|show N]`.

Thin: build the service, show the board while it runs, print where the dashboard is or
why the build stopped. Exit codes: 0 done, 2 blocked (the questions are printed), 1 a bad
brief or setting.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from vitrina.cli_options import CatalogDir, WarehouseUrl

console = Console()
err = Console(stderr=True)
BoardUrl = Annotated[
    str | None, typer.Option("--board", help="Board database URL (SQLite or PostgreSQL).")
]
BuildNumber = Annotated[
    int | None, typer.Option("--build", help="This build (default: the latest).")
]
board_app = typer.Typer(
    help="The task board of `vitrina build`: builds, tasks, comments, reviews.",
    no_args_is_help=False,
    invoke_without_command=True,
)


def _service(db: str | None, catalog: Path | None, board: str | None, **kw: Any) -> Any:
    from vitrina.ask import ensure_demo
    from vitrina.config import load_settings
    from vitrina.team import BuildService

    settings = load_settings(db_url=db, catalog_dir=catalog)
    if not settings.db_url:
        ensure_demo(settings)
    return BuildService(settings, board=board, **kw)


def build_command(
    brief: Annotated[
        Path | None,
        typer.Argument(help="The brief: YAML (or Markdown with a YAML front matter)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the dashboard's static files here.")
    ] = None,
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    board: BoardUrl = None,
    new: Annotated[
        bool, typer.Option("--new", help="Start a new build even if this brief has one.")
    ] = False,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Skip the chromium review (said on the board).")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON, no live board.")
    ] = False,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            help="A row filter for every query of the build, as `vitrina token create "
            "--policy`: table.column=value[,value...]; repeat for more.",
        ),
    ] = None,
    republish: Annotated[
        int | None,
        typer.Option(
            "--republish",
            help="Publish finished build N again, in place: the same HTML folder and the "
            "same Superset dashboard, charts and datasets (by their UUIDs), version + 1.",
        ),
    ] = None,
) -> None:
    """Run the build team on a brief to a reviewed dashboard (resumes an unfinished build)."""
    from vitrina.language.detect import detect_lang
    from vitrina.sql.policy import RowPolicy, parse_condition
    from vitrina.team import TeamError
    from vitrina.team.view import board_table

    if republish is not None or brief is None:
        _republish_command(republish, db, catalog, board, as_json)
        return
    try:
        service = _service(db, catalog, board, browser=not no_browser)
        if policy:  # checked against the build's catalog (PolicyError is a ValueError)
            service.policy = RowPolicy(
                conditions=[parse_condition(text, service.catalog) for text in policy]
            )
    except (TeamError, ValueError, OSError) as exc:
        err.print(f"[red]{exc}[/]", highlight=False)
        raise typer.Exit(1) from exc
    try:
        try:
            build, parsed = service.open(brief, out=out, new=new)
        except TeamError as exc:
            err.print(f"[red]{exc}[/]", highlight=False)
            raise typer.Exit(1) from exc
        lang = parsed.language or detect_lang(parsed.title)
        if as_json:
            report = service.resume(build, parsed)
        else:
            from rich.live import Live  # loaded when a board is shown live, not for --help

            with Live(
                board_table(service.store, build, lang),
                console=console,
                refresh_per_second=8,
                transient=not console.is_terminal,
            ) as live:

                def refresh(_kind: str, _detail: dict[str, Any]) -> None:
                    fresh = service.store.get_build(build.id) or build
                    live.update(board_table(service.store, fresh, lang))

                report = service.resume(build, parsed, on_event=refresh)
                live.update(board_table(service.store, report.build, lang))
            if not console.is_terminal:
                console.print(board_table(service.store, report.build, lang))
    finally:
        service.close()
    _finish(report, as_json)


def _republish_command(
    build_id: int | None, db: str | None, catalog: Path | None, board: str | None, as_json: bool
) -> None:
    """`vitrina build --republish N`: the finished build's dashboard again, in place."""
    from vitrina.team import TeamError
    from vitrina.team.republish import republish
    from vitrina.team.service import default_publishers

    if build_id is None:
        err.print("a brief is needed: `vitrina build BRIEF` (or `--republish N` for a finished "
                  "build)", highlight=False, markup=False)  # fmt: skip
        raise typer.Exit(1)
    try:
        service = _service(db, catalog, board, browser=False)
    except (TeamError, ValueError, OSError) as exc:
        err.print(f"[red]{exc}[/]", highlight=False)
        raise typer.Exit(1) from exc
    try:
        done = republish(
            service.store,
            build_id,
            lambda b: default_publishers(service.settings, b, service.superset),
            actor="person:" + _login(),
        )
    except TeamError as exc:
        err.print(str(exc), highlight=False, markup=False)
        raise typer.Exit(1) from None
    finally:
        service.close()
    if as_json:
        out = {"build": done.build_id, "version": done.version, "location": done.location,
               "publications": done.publications}  # fmt: skip
        console.print_json(json.dumps(out, ensure_ascii=False, default=str))
        return
    console.print(f"[green]published again[/] · build {done.build_id} · version {done.version}",
                  highlight=False)  # fmt: skip
    for publication in done.publications:
        console.print(f"  {publication['target']}: {publication['location']}", highlight=False)


def _login() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _finish(report: Any, as_json: bool) -> None:
    if as_json:
        console.print_json(
            json.dumps(
                {
                    "build": report.build.id,
                    "status": report.status,
                    "location": report.location,
                    "blocked": report.blocked,
                    "tasks": [t.model_dump(mode="json") for t in report.tasks],
                    "publications": report.build.result.get("publications", []),
                    "model_failures": report.model_failures,
                    "trace": [e.model_dump(mode="json") for e in report.trace],
                },
                ensure_ascii=False,
                default=str,
            )
        )
    elif report.status == "done":
        console.print(f"[green]done[/] · build {report.build.id}", highlight=False)
        for publication in report.build.result.get("publications", []):
            console.print(f"  {publication['target']}: {publication['location']}", highlight=False)
        if report.build.out_dir:
            console.print(
                f"  static files: {Path(report.build.out_dir) / 'index.html'}", highlight=False
            )
    else:
        blocked = report.blocked or {}
        console.print(
            f"[red]{report.status}[/] · build {report.build.id} · task {blocked.get('task')}",
            highlight=False,
        )
        if blocked.get("person"):  # the gate stopped asking: a person settles the brief
            console.print("[yellow]handed to a person / передан человеку[/]", highlight=False)
        for line in (blocked.get("reason"), blocked.get("questions")):
            if line:
                console.print(line, highlight=False, markup=False)
    if not as_json:
        _model_failures(report)
    if report.status != "done":
        raise typer.Exit(2)


def _model_failures(report: Any) -> None:
    """One line per role's model that failed: the rules did that role's part."""
    from rich.markup import escape

    for failure in report.model_failures:
        console.print(
            f"[yellow]model failed / модель не ответила[/] · {failure['role']} · task "
            f"{failure['task_id']} · {failure['kind']}: {escape(str(failure['detail'])[:200])} "
            "(done by the rules / сделано по правилам)",
            highlight=False,
        )


@board_app.callback()
def board_default(
    ctx: typer.Context,
    board: BoardUrl = None,
) -> None:
    """Without a subcommand: the board of the latest build."""
    if ctx.invoked_subcommand is None:
        list_command(build=None, board=board)


def _store(board: str | None) -> Any:
    from vitrina.config import load_settings
    from vitrina.team import BoardStore, board_url

    settings = load_settings()
    return BoardStore(board or board_url(settings.state_url, settings.home))


def _chosen_build(store: Any, builds: list[Any], build: int | None) -> Any | None:
    """The build asked for by number, else the latest one (``builds`` is newest first)."""
    return store.get_build(build) if build else (builds[0] if builds else None)


@board_app.command("list")
def list_command(
    build: BuildNumber = None,
    board: BoardUrl = None,
) -> None:
    """The tasks of a build, with their reviews, statuses and last blocks; then the builds."""
    from vitrina.team.view import board_table

    store = _store(board)
    try:
        builds = store.builds()
        chosen = _chosen_build(store, builds, build)
        if chosen is None:
            console.print(
                "no build on this board yet: run `vitrina build BRIEF`"
                if build is None
                else f"no build {build} on this board"
            )
            if build is not None:
                raise typer.Exit(1)
            return
        console.print(board_table(store, chosen))
        if len(builds) > 1:
            console.print(
                "builds: " + ", ".join(f"{b.id} {b.status}" for b in builds[:20]), highlight=False
            )
    finally:
        store.close()


@board_app.command("show")
def show_command(
    task_id: Annotated[
        int, typer.Argument(help="The task number (the # column of `vitrina board`).")
    ],
    diff: Annotated[
        bool, typer.Option("--diff", help="Show what the task's branch changes.")
    ] = False,
    board: BoardUrl = None,
) -> None:
    """One task: comments with their parsed hand-offs and verdicts, reviews, attachments, audit."""
    from vitrina.team.view import task_page
    from vitrina.team.workspace import Workspace

    store = _store(board)
    try:
        task = store.get_task(task_id)
        if task is None:
            err.print(f"no task {task_id} on this board: `vitrina board` lists them")
            raise typer.Exit(1)
        text = ""
        if diff and task.branch:
            build = store.get_build(task.build_id)
            text = Workspace(Path(build.workspace)).diff(task.branch) if build else ""
        console.print(task_page(store, task, diff=text))
    finally:
        store.close()


@board_app.command("report")
def report_command(
    build: BuildNumber = None,
    board: BoardUrl = None,
) -> None:
    """Where a build's time went (per role and state, rework per step) and its open signals."""
    from vitrina.team.monitor import bottlenecks, raise_signals, scan

    store = _store(board)
    try:
        builds = store.builds()
        chosen = _chosen_build(store, builds, build)
        if chosen is None:
            err.print("no such build on this board: `vitrina board` lists them")
            raise typer.Exit(1)
        from vitrina.language.detect import detect_lang

        lang = detect_lang(chosen.title)  # as the build itself read its brief's title
        found = bottlenecks(store, chosen.id)
        for line in found.lines(lang):
            console.print(line, highlight=False)
        for state, seconds in found.seconds_by_state.items():
            console.print(f"  {state}: {seconds:.1f} s", highlight=False)
        from vitrina.config import load_settings
        from vitrina.team.watch import limits_from

        limits = limits_from(load_settings())  # the thresholds the served monitor uses too
        for signal in raise_signals(store, scan(store, chosen.id, limits=limits)):
            console.print(f"[yellow]signal[/] {signal.kind}: {signal.message}", highlight=False)
    finally:
        store.close()


@board_app.command("skills")
def skills_command(
    action: Annotated[str, typer.Argument(help="list, accept or reject.")] = "list",
    proposal: Annotated[
        str | None, typer.Argument(help="The proposal id (accept, reject).")
    ] = None,
) -> None:
    """The skill entries proposed from reviews; a person accepts or rejects each."""
    from vitrina.config import load_settings
    from vitrina.team.learn import LearnError, SkillLearning, learned_dir

    learning = SkillLearning(learned_dir(load_settings().home))
    if action == "list":
        for p in learning.load():
            console.print(f"{p.id} {p.status:9} {p.skill}: {p.text}  ({p.source})", highlight=False)
        return
    if action not in ("accept", "reject") or not proposal:
        err.print("usage: vitrina board skills [list | accept ID | reject ID]")
        raise typer.Exit(1)
    try:
        decided = learning.decide(proposal, accept=action == "accept")
    except LearnError as exc:
        err.print(f"[red]{exc}[/]", highlight=False)
        raise typer.Exit(1) from exc
    console.print(f"{decided.id}: {decided.status} {decided.code or ''}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `build` and `board`."""
    app.command("build")(build_command)
    from vitrina.team import people_commands  # noqa: F401  (registers board comment|answer|...)

    app.add_typer(board_app, name="board")
