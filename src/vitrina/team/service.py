"""The build job's public entry point: a brief in, a reviewed and published dashboard out.

    service = BuildService(settings)
    report = service.run(Path("brief.yaml"), out=Path("dashboard"))   # runs the team to the end
    report.status, report.location                                    # "done", ".../index.html"

Running the same brief again resumes its build where it stopped (after a crash, say):
the board is the durable state, so nothing done before is done twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.catalog import Catalog, load_catalog
from vitrina.config import Settings, load_settings
from vitrina.language.detect import detect_lang
from vitrina.llm import ModelSlots, build_client
from vitrina.team.agents.base import RoleAgent
from vitrina.team.agents.failures import failures_of
from vitrina.team.agents.role_models import agents_for, role_models
from vitrina.team.agents.rules import rule_agents
from vitrina.team.board import BoardStore, Build, Task, board_url
from vitrina.team.chain import PHASES
from vitrina.team.context import BuildContext, Limits
from vitrina.team.data.brief import Brief, load_brief
from vitrina.team.data.draft import write_draft
from vitrina.team.errors import BriefError, PlainBrief, TeamError
from vitrina.team.graph import build_graph, recursion_limit
from vitrina.team.learn import SkillLearning, learned_dir
from vitrina.team.lifecycle import TaskKind
from vitrina.team.notify import Notifier, TelegramTarget, WebhookTarget
from vitrina.team.primitives import Primitives
from vitrina.team.publish import HtmlPublisher, Publisher
from vitrina.team.publish.superset import SupersetPublisher, SupersetTarget
from vitrina.team.publish.superset_bundle import SupersetDatabase
from vitrina.team.republish import dashboard_owner, lineage
from vitrina.team.roles import Roster
from vitrina.team.spec import Spec
from vitrina.team.workspace import Workspace
from vitrina.trace import Trace, TraceEvent
from vitrina.warehouse import Warehouse

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

SLUG = re.compile(r"^build-[0-9]{1,9}$")


def dashboards_dir(home: Path) -> Path:
    """Where published HTML dashboards live; `vitrina serve` serves them from here."""
    return home / "dashboards"


def dashboard_slug(build_id: int) -> str:
    return f"build-{build_id}"


def default_publishers(
    settings: Settings, build: Build, superset: SupersetTarget | None
) -> list[Publisher]:
    """The targets of a build: the served HTML folder named by the dashboard's owner (an
    edited brief's build writes its earlier dashboard's folder), --out, and Superset."""
    folders = [dashboards_dir(settings.home) / dashboard_slug(dashboard_owner(build))]
    if build.out_dir:
        folders.append(Path(build.out_dir))
    publishers: list[Publisher] = [HtmlPublisher(folders)]
    if superset is not None:
        publishers.append(SupersetPublisher(superset))
    return publishers


@dataclass
class BuildReport:
    build: Build
    tasks: list[Task]
    trace: list[TraceEvent] = field(default_factory=list)
    # roles' models that gave nothing publishable (role, task_id, kind, detail): decision 208
    model_failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.build.status

    @property
    def location(self) -> str | None:
        return self.build.result.get("location")

    @property
    def blocked(self) -> dict[str, Any] | None:
        return self.build.result.get("blocked")

    def count(self, kind: TaskKind) -> int:
        return sum(1 for t in self.tasks if t.kind is kind)


def superset_from(settings: Settings) -> SupersetTarget | None:
    """The Superset target of the settings (VITRINA_SUPERSET_*), or None when no URL is set."""
    if not settings.superset_url:
        return None
    missing = [
        f"VITRINA_SUPERSET_{name.upper()}"
        for name, value in (
            ("user", settings.superset_user),
            ("password", settings.superset_password),
        )
        if not value
    ]
    uri = settings.superset_database_uri or settings.db_url
    if not uri:
        missing.append(
            "VITRINA_SUPERSET_DATABASE_URI (the embedded demo warehouse is not reachable "
            "by Superset)"
        )
    if missing or not uri:
        raise TeamError(f"VITRINA_SUPERSET_URL is set but {', '.join(missing)} is not")
    return SupersetTarget(
        settings.superset_url,
        settings.superset_user or "",
        settings.superset_password or "",
        SupersetDatabase(settings.superset_database_name, uri.replace("+psycopg://", "://")),
    )


def notifier_from(settings: Settings) -> Notifier | None:
    """The notification targets of the settings (VITRINA_NOTIFY_*), or None when none is set."""
    targets: list[Any] = []
    if settings.notify_webhook_url:
        targets.append(WebhookTarget(settings.notify_webhook_url, settings.notify_webhook_secret))
    if settings.notify_telegram_token or settings.notify_telegram_chat:
        targets.append(
            TelegramTarget(
                settings.notify_telegram_token or "", settings.notify_telegram_chat or ""
            )
        )
    return Notifier(targets) if targets else None


class BuildService:
    """One process's build runner: the board, the warehouse, the catalog, the agents."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        board: str | None = None,
        catalog: Catalog | None = None,
        warehouse: Warehouse | None = None,
        today: date | None = None,
        agents: dict[str, RoleAgent] | None = None,
        browser: bool = True,
        limits: Limits | None = None,
        publishers: list[Publisher] | None = None,
        superset: SupersetTarget | None = None,
        llm: ModelSlots | None = None,
        notifier: Notifier | None = None,
        policy: Any = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.policy = policy  # a row policy (`vitrina build --policy`): the dataset reads its rows
        self.store = BoardStore(board or board_url(self.settings.state_url, self.settings.home))
        self.catalog = catalog or load_catalog(self.settings.catalog_dir)
        self.warehouse = warehouse or Warehouse(
            self.settings.warehouse_url,
            timeout_s=self.settings.statement_timeout_s,
            row_cap=self.settings.row_cap,
            allow_privileged=self.settings.allow_privileged_warehouse,
            result_max_bytes=self.settings.result_max_bytes,
            duckdb_memory_limit=self.settings.duckdb_memory_limit,
            duckdb_temp_dir=self.settings.home / "duckdb-tmp",
        )
        self.today = today or date.today()
        self.roster = Roster.default()
        # the shipped skills, then the entries a person accepted from earlier reviews (learn.py)
        self.learning = SkillLearning(learned_dir(self.settings.home))
        self.skills = self.learning.library()
        # with a model configured (for all, or per role in [team.roles]) a role's model writes
        # its part; the rules build and check, and answer alone for a role without a model
        self.llm: ModelSlots | None = llm if llm is not None else build_client(self.settings)
        self.models = role_models(self.settings, self.roster, self.llm)
        base = agents_for(self.models, rule_agents())
        self.agents: dict[str, Any] = {**base, **(agents or {})}
        self.browser = browser
        self.limits = limits or Limits()
        self.publishers = publishers
        self.superset = superset if superset is not None else superset_from(self.settings)
        self.notifier = notifier if notifier is not None else notifier_from(self.settings)

    def key(self, brief_text: str, out: Path | None) -> str:
        """A build is the same build when the brief, the warehouse, the catalog and the output
        are."""
        source = "\n".join(
            [
                brief_text,
                self.settings.warehouse_url,
                str(self.settings.catalog_dir or "demo"),
                str(out.resolve() if out else ""),
                *([f"policy {self.policy.dumps()}"] if self.policy else []),
            ]
        )
        return hashlib.sha256(source.encode("utf-8")).hexdigest()[:32]

    def open(
        self, brief_path: Path, *, out: Path | None = None, new: bool = False
    ) -> tuple[Build, Brief]:
        """The build of this brief: the unfinished one to resume, or a new one."""
        try:
            brief = load_brief(brief_path)
        except PlainBrief as plain:  # no build: a draft for the requester to confirm
            message = write_draft(brief_path, plain.text, self.catalog, self.today)
            raise BriefError(message) from plain
        brief_text = brief_path.read_text(encoding="utf-8")
        key = self.key(brief_text, out)
        if new:
            key = f"{key[:24]}-{len(self.store.builds(limit=10_000)) + 1}"
        workspace = self.settings.home / "team" / "workspaces" / key
        build, created = self.store.create_build(
            key=key,
            title=brief.title,
            brief=brief_text,
            brief_path=str(brief_path),
            workspace=str(workspace),
            phase=PHASES[0],
            out_dir=str(out.resolve()) if out else None,
        )
        if created and not new:  # an edited brief: the next version of its dashboard
            earlier = lineage(self.store, build)
            if earlier:
                self.store.update_build(build.id, result={**build.result, **earlier})
                self.store.audit(build_id=build.id, actor="coordinator", action="new_version",
                                 outcome="done", **earlier)  # fmt: skip
                build = self.store.get_build(build.id) or build
        return build, brief

    def context(
        self,
        build: Build,
        brief: Brief,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> BuildContext:
        workspace = Workspace.open(Path(build.workspace))
        publishers = self.publishers
        if publishers is None:
            publishers = default_publishers(self.settings, build, self.superset)
        prims = Primitives(self.store, self.roster, build.id, workspace, on_action=on_event)
        lang = brief.language or ("ru" if detect_lang(brief.title) == "ru" else "en")
        return BuildContext(
            store=self.store,
            roster=self.roster,
            skills=self.skills,
            build=build,
            brief=brief,
            catalog=self.catalog,
            warehouse=self.warehouse,
            workspace=workspace,
            spec=Spec(workspace, self.roster),
            prims=prims,
            agents=self.agents,
            today=self.today,
            row_cap=self.settings.row_cap,
            publishers=publishers,
            attachments_dir=self.settings.home / "team" / "attachments" / dashboard_slug(build.id),
            lang=lang,
            browser=self.browser,
            limits=self.limits,
            on_event=on_event,
            superset=self.superset,
            policy=self.policy,
        )

    def run(
        self,
        brief_path: Path,
        *,
        out: Path | None = None,
        new: bool = False,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> BuildReport:
        """Run (or resume) the build of a brief to its end: done, or blocked with the reason."""
        build, brief = self.open(brief_path, out=out, new=new)
        return self.resume(build, brief, on_event=on_event)

    def resume(
        self,
        build: Build,
        brief: Brief,
        *,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> BuildReport:
        lang = brief.language or ("ru" if detect_lang(brief.title) == "ru" else "en")
        if self.notifier is not None:  # the statuses worth a person's attention, in order
            notify = self.notifier.on_build_event(build.id, build.title, lang)
            outer = on_event

            def on_event(kind: str, detail: dict[str, Any]) -> None:
                notify(kind, detail)
                if outer is not None:
                    outer(kind, detail)

        ctx = self.context(build, brief, on_event)
        trace: list[TraceEvent] = []
        graph = build_graph()
        config: RunnableConfig = {"recursion_limit": recursion_limit(self.limits.max_steps)}
        for update in graph.stream(
            {"build_id": build.id}, config, context=ctx, stream_mode="updates"
        ):
            for values in update.values():
                if isinstance(values, dict):
                    trace.extend(values.get("trace") or [])
        final = self.store.get_build(build.id)
        assert final is not None
        if final.status == "done":  # the reviews' findings become proposals for a person
            proposed = self.learning.propose(self.store, final.id)
            if proposed:
                learned = Trace("learn")
                learned.branch("skill entries proposed from the reviews", count=len(proposed))
                trace.extend(learned.events)
        if self.notifier is not None:
            self.notifier.build_finished(final, lang)
            trace.extend(self.notifier.trace.events)
        failures = failures_of(self.store, build.id)
        return BuildReport(final, self.store.tasks(build.id), trace, failures)

    def close(self) -> None:
        self.warehouse.close()
        self.store.close()
