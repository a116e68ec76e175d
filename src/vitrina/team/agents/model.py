"""A role driven by a model: it reads through its own tools and writes its part in words.

The rule agent of the role still does what code does and is the check: it builds the
artifacts, runs the deterministic checks and writes the blocks (HANDOFF, VERDICT) that the
post-comment guard carries out. The model then writes the role's part (the scoping
questions and KPI definitions, the dataset design, the dashboard design, the review
notes), with a bounded number of tool calls, each one a method of the role's `Toolbox`
(so the role's tool list is enforced there) or a board primitive the role may call.
Blocks the model writes are dropped: the checks decide the status and the verdict. A model
that fails (timeout, breaker open, garbage, numbers it never read), runs out of its budget or
answers nothing leaves the rule agent's comment alone, and the failure goes on
``tools.model_failures`` for the coordinator to report (vitrina.team.agents.failures).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from vitrina.llm import ModelClient, ModelSlots
from vitrina.llm.client import ModelTurn, TextReply
from vitrina.team.agents.base import RoleAgent, WorkItem
from vitrina.team.agents.failures import ModelFailure, foreign_numbers, garbage
from vitrina.team.errors import TeamError
from vitrina.team.roles import PRIMITIVES
from vitrina.team.toolbox import Toolbox
from vitrina.trace import Trace

RESULT_CHARS = 4000  # what one tool result may put before the model
PART_CHARS = 3000  # the model's part in the comment
BLOCK = re.compile(r"===(HANDOFF|VERDICT)===.*?(===/\1===|\Z)", re.DOTALL)

PARTS = {
    "scoping": (
        "the scoping questions for the requester and the definition of every KPI",
        "вопросы заказчику и определение каждого KPI",
    ),
    "dataset-architect": (
        "the dataset design: each view, its grain, joins and filters",
        "дизайн датасета: каждое представление, его зерно, связи и фильтры",
    ),
    "dashboard-designer": (
        "the dashboard design: the order of the cards and charts and why each chart",
        "дизайн дашборда: порядок карточек и графиков и выбор каждого графика",
    ),
    "data-engineer": ("the build notes of the data", "заметки о сборке данных"),
    "chart-builder": ("the build notes of the charts", "заметки о сборке графиков"),
    "dashboard-builder": ("the build notes of the page", "заметки о сборке страницы"),
}
REVIEW_PART = (
    "the review notes: what you checked and what the author must know",
    "заметки ревью: что проверено и что нужно знать автору",
)


@dataclass(frozen=True)
class ModelTool:
    """One tool the model may call: the Toolbox tool it uses, its schema, how it runs."""

    name: str
    needs: str  # the role's tool (or primitive) that must be allowed
    description: str
    parameters: dict[str, Any]
    run: Callable[[Toolbox, WorkItem, dict[str, Any]], Any]

    def spec(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def _obj(**props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


def _search(tools: Toolbox, _work: WorkItem, args: dict[str, Any]) -> Any:
    words = str(args.get("query", "")).lower().split()
    catalog = tools.catalog()
    found = [
        {"id": m.id, "name_ru": m.name_ru, "name_en": m.name_en}
        for m in catalog.metrics.values()
        if any(w in f"{m.id} {m.name_ru} {m.name_en}".lower() for w in words)
    ]
    return found[:20]


def _query(tools: Toolbox, _work: WorkItem, args: dict[str, Any]) -> Any:
    result, sql = tools.run_query(str(args.get("sql", "")))
    return {
        "sql": sql,
        "columns": result.columns,
        "rows": result.rows[:20],
        "row_count": result.row_count,
    }


def _blocker(tools: Toolbox, work: WorkItem, args: dict[str, Any]) -> Any:
    reason = str(args.get("reason", "")).strip()[:500]
    if not reason:
        return "not opened: a blocker needs its reason"
    outcome = tools.ctx.prims.open_blocker(tools.role.id, work.task.id, reason)
    return f"blocker {outcome.task.id} opened"


MODEL_TOOLS: tuple[ModelTool, ...] = (
    ModelTool(
        "read_spec",
        "read_spec",
        "The whole shared spec of this build (JSON).",
        _obj(),
        lambda t, _w, _a: t.read_spec(),
    ),
    ModelTool(
        "read_artifact",
        "read_artifact",
        "One artifact of the task's branch by its path.",
        _obj(path={"type": "string"}),
        lambda t, _w, a: t.read_artifact(str(a.get("path", ""))) or "(no such file)",
    ),
    ModelTool(
        "list_artifacts",
        "read_artifact",
        "The artifact paths under a folder.",
        _obj(prefix={"type": "string"}),
        lambda t, _w, a: t.list_artifacts(str(a.get("prefix", ""))),
    ),
    ModelTool(
        "search_catalog",
        "search_catalog",
        "Catalog metrics whose id or name has a word.",
        _obj(query={"type": "string"}),
        _search,
    ),
    ModelTool(
        "run_query",
        "run_query",
        "One read-only SELECT through the SQL guard.",
        _obj(sql={"type": "string"}),
        _query,
    ),
    ModelTool(
        "open_blocker",
        "open_blocker",
        "Stop the work with a question for a person.",
        _obj(reason={"type": "string"}),
        _blocker,
    ),
)
BY_NAME = {t.name: t for t in MODEL_TOOLS}


def offered(tools: Toolbox) -> list[ModelTool]:
    """The model tools this role may use (its tool list and its primitives)."""
    allowed = set(tools.role.tools) | set(tools.role.primitives)
    return [t for t in MODEL_TOOLS if t.needs in allowed]


class ModelRoleAgent:
    """The model writes the role's part; the rule agent builds, checks and writes the blocks."""

    def __init__(
        self, llm: ModelSlots, rules: RoleAgent, *, max_calls: int = 8, max_requests: int = 5
    ) -> None:
        self.llm = llm
        self.rules = rules
        self.max_calls = max_calls
        self.max_requests = max_requests

    def act(self, work: WorkItem, tools: Toolbox) -> str:
        comment = self.rules.act(work, tools)
        part = self.part(work, tools, comment)
        if part:
            part = self.judged(part, work, tools)
        if not part:
            return comment
        title = "Заметки модели" if work.lang == "ru" else "Model notes"
        return f"{title}:\n{part}\n\n{comment}"

    def part(self, work: WorkItem, tools: Toolbox, checks: str) -> str:
        """The model's words, after at most ``max_requests`` requests and ``max_calls`` calls."""
        trace = tools.trace
        role = tools.role.id
        task = f"team_{role.replace('-', '_')}"
        available = offered(tools)
        messages: list[BaseMessage] = [
            SystemMessage(self.system(work, tools)),
            HumanMessage(self.request(work, checks)),
        ]
        # what the model was given (tool results appended below): its numbers' only source
        tools.model_read = [str(m.content) for m in messages]
        calls = 0
        # one turn budget for all of this part's requests: a hanging endpoint costs one turn
        llm = self.llm.turn() if isinstance(self.llm, ModelClient) else self.llm
        for _ in range(self.max_requests):
            reply = llm.text(task, messages, tools=[t.spec() for t in available], trace=trace)
            if reply.error is not None or reply.message is None:
                trace.suppressed(
                    "the role's model failed: the rules' comment stands",
                    role=role,
                    error=reply.error,
                )
                self.failed(tools, work, *self.why(llm, reply))
                return ""
            if not reply.message.tool_calls:
                return self.said(self.clean(reply.text, trace), tools, work)
            messages.append(reply.message)
            for call in reply.message.tool_calls:
                calls += 1
                if calls > self.max_calls:
                    trace.rejected(
                        "tool-call budget of the role's model used up",
                        role=role,
                        limit=self.max_calls,
                        tool=call["name"],
                    )
                    self.audit(tools, work, call["name"], "budget")
                    messages.append(
                        ToolMessage(
                            f"not run: at most {self.max_calls} tool calls", tool_call_id=call["id"]
                        )
                    )
                    continue
                result = self.run(call, available, tools, work)
                tools.model_read.append(result)
                messages.append(ToolMessage(result, tool_call_id=call["id"]))
            if calls > self.max_calls:
                messages.append(HumanMessage("No more tools: write your part now, in words."))
        # the request bound: whatever text the last reply carried is all the model says
        trace.rejected(
            "the role's model reached its request bound", role=role, limit=self.max_requests
        )
        said = [
            m.content for m in messages if isinstance(m, AIMessage) and isinstance(m.content, str)
        ]
        last = self.clean(next((t for t in reversed(said) if t.strip()), ""), trace)
        return self.said(last, tools, work, bound=True)

    # failures -----------------------------------------------------------------------------
    @staticmethod
    def why(llm: Any, reply: TextReply) -> tuple[str, str]:
        """The kind (MISS_KINDS) and detail of a failed reply: the turn's record when there is
        one, else read from the error text."""
        if isinstance(llm, ModelTurn) and llm.budget.missed:
            return llm.budget.missed[-1]
        error = reply.error or "no reply"
        low = error.lower()
        kind = (
            "breaker_open"
            if "breaker" in low
            else "timeout"
            if "timed out" in low or "timeout" in low
            else "error"
        )
        return kind, error

    @staticmethod
    def failed(tools: Toolbox, work: WorkItem, kind: str, detail: str) -> None:
        """Record a failure for the coordinator's comment (vitrina.team.worker.wake)."""
        tools.trace.rejected("the role's model failed: reported", kind=kind, detail=detail[:300])
        tools.model_failures.append(ModelFailure(tools.role.id, work.task.id, kind, detail))

    def said(self, text: str, tools: Toolbox, work: WorkItem, *, bound: bool = False) -> str:
        """The model's last words; nothing said is a failure too (nothing to publish)."""
        if not text.strip():
            what = "the request bound was reached" if bound else "an empty reply"
            self.failed(tools, work, "no_words", what)
        return text

    def judged(self, part: str, work: WorkItem, tools: Toolbox) -> str:
        """The part when it reads as words and its numbers were read; else "" (a failure)."""
        problem = garbage(part, work.lang, tools.model_read)
        if problem is not None:
            self.failed(tools, work, "garbage", problem)  # its text is not quoted anywhere
            return ""
        invented = foreign_numbers(part, tools.model_read, work.lang)
        if invented:
            shown = ", ".join(str(n) for n in invented[:5])
            self.failed(tools, work, "rejected_words", f"numbers never read from a tool: {shown}")
            return ""
        return part

    def run(
        self, call: dict[str, Any], available: list[ModelTool], tools: Toolbox, work: WorkItem
    ) -> str:
        name = str(call.get("name", ""))
        tool = next((t for t in available if t.name == name), None)
        if tool is None:  # a primitive or a tool the role may not use: refused and audited
            reason = (
                "not a tool of this role"
                if name not in PRIMITIVES
                else "a primitive this role may not call"
            )
            tools.trace.rejected(
                "the role's model asked for what it may not do",
                role=tools.role.id,
                tool=name,
                reason=reason,
            )
            self.audit(tools, work, name, "refused", reason=reason)
            return f"refused: {name} is {reason} ({tools.role.id})"
        try:
            result = tool.run(tools, work, dict(call.get("args") or {}))
        except TeamError as exc:  # a refused query, a permission, a budget: the model reads why
            return f"error: {str(exc)[:500]}"
        text = (
            result
            if isinstance(result, str)
            else json.dumps(result, ensure_ascii=False, default=str)
        )
        return text[:RESULT_CHARS]

    @staticmethod
    def audit(tools: Toolbox, work: WorkItem, name: str, outcome: str, **detail: Any) -> None:
        tools.ctx.store.audit(
            build_id=work.build.id,
            actor=tools.role.id,
            action=f"model:{name}",
            outcome=outcome,
            task_id=work.task.id,
            **detail,
        )

    @staticmethod
    def clean(text: str, trace: Trace) -> str:
        """The model's part without any block: the checks write those."""
        cleaned = BLOCK.sub("", text or "").strip()
        if cleaned != (text or "").strip():
            trace.suppressed("a block written by the role's model dropped: the checks decide")
        return cleaned[:PART_CHARS]

    def system(self, work: WorkItem, tools: Toolbox) -> str:
        role = tools.role
        library = tools.ctx.skills
        skills = "\n\n".join(library.get(s).body for s in role.skills if s in library.skills)
        persona = role.persona_text()
        lang = "Answer in Russian." if work.lang == "ru" else "Answer in English."
        return (
            f"You are the {role.name(work.lang)} of a BI team. {persona}\n"
            "Numbers come only from data: never write a number you did not read from a tool.\n"
            "Do not write HANDOFF or VERDICT blocks: the checks write them.\n"
            f"{lang}\n\nYour skills:\n{skills}"
        )

    def request(self, work: WorkItem, checks: str) -> str:
        en, ru = (
            REVIEW_PART
            if work.mode == "review"
            else PARTS.get(work.step.role, PARTS["data-engineer"])
        )
        what = ru if work.lang == "ru" else en
        body = BLOCK.sub("", checks).strip()[:RESULT_CHARS]
        amendments = "\n".join(f"- {a}" for a in work.amendments) or "none"
        return (
            f"Step: {work.step.id} ({work.mode}). Write {what}.\n"
            f"Amendments asked for: {amendments}\n"
            f"What the checks found (the rules' comment):\n{body}"
        )


def model_agents(
    llm: ModelSlots, rules: dict[str, RoleAgent], **limits: int
) -> dict[str, RoleAgent]:
    """Every role but the coordinator (whose steps are code) driven by the model."""
    return {
        role: agent if role == "coordinator" else ModelRoleAgent(llm, agent, **limits)
        for role, agent in rules.items()
    }
