"""General answer by rules: what Vitrina can do, in the request's language, with examples
taken from the loaded catalog (never the demo's words)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.catalog import Catalog
from vitrina.language.detect import detect_lang
from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def general(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("general")
    trace.branch("help text")
    lang = state.get("lang", "ru")
    return {
        "role": "general",
        "status": "answered",
        "answer": text("help", lang, **help_examples(runtime.context.catalog, lang)),
        "trace": trace.events,
    }


def help_examples(catalog: Catalog, lang: str) -> dict[str, str]:
    """A question, a metric and a topic of this catalog for the help text."""
    questions = [e.question for e in catalog.examples]
    question = next((q for q in questions if detect_lang(q) == lang), None)
    metric = next(iter(catalog.metrics.values()), None)
    topic = next(iter(catalog.topics.values()), None)
    metric_name = metric.name(lang) if metric else ("показатель" if lang == "ru" else "a metric")
    topic_name = topic.name(lang) if topic else ("данные" if lang == "ru" else "the data")
    return {
        "question": question or metric_name,
        "metric": metric_name.lower() if lang == "ru" else metric_name,
        "topic": topic_name,
    }
