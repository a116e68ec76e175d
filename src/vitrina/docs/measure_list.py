"""The user's measure list: `# Topic` then `## [M1], [M2]` lines.

A regex parser reads the documented format. With an LLM slot, free text is turned into
the same structure first; when the slot is missing, times out or answers bad JSON, the
regex parser answers and the trace says why.

>>> parse_measure_list("# Sales\\n## [Qty], [Rating]\\n# Transport\\n## [Trips]").topics[0].measures
['Qty', 'Rating']
"""

from __future__ import annotations

import concurrent.futures
import json
import re
from collections.abc import Callable

from pydantic import BaseModel, Field, ValidationError

from vitrina.trace import Trace

DEFAULT_TOPIC = "General"
_BRACKET = re.compile(r"\[((?:[^\]]|\]\])+)\]")
_QUALIFIED = re.compile(r"(?:'(?:[^']|'')+'|[\w ]+)?\s*\[((?:[^\]]|\]\])+)\]")


class Topic(BaseModel):
    topic: str
    measures: list[str] = Field(default_factory=list)


class MeasureList(BaseModel):
    topics: list[Topic] = Field(default_factory=list)

    def flat(self) -> list[tuple[str, str]]:
        """(topic, measure) in order; a measure under several topics appears under each."""
        seen: set[tuple[str, str]] = set()
        out: list[tuple[str, str]] = []
        for t in self.topics:
            for m in t.measures:
                if (t.topic, m.lower()) not in seen:
                    seen.add((t.topic, m.lower()))
                    out.append((t.topic, m))
        return out


def parse_measure_list(
    text: str, *, trace: Trace | None = None, default_topic: str = DEFAULT_TOPIC
) -> MeasureList:
    """Regex parser of the documented list format; other lines are reported, not guessed."""
    result = MeasureList()
    current: Topic | None = None
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#") and not line.startswith("##"):
            current = Topic(topic=line.lstrip("#").strip() or default_topic)
            result.topics.append(current)
            continue
        body = line.lstrip("#").strip().lstrip("-*").strip()
        names = [m.replace("]]", "]").strip() for m in _BRACKET.findall(body)]
        if not names and line.startswith("##"):
            names = [n.strip() for n in body.split(",") if n.strip()]
        if not names:
            if trace is not None:
                trace.rejected("measure list line not understood", line=lineno, text=line[:120])
            continue
        if current is None:
            current = Topic(topic=default_topic)
            result.topics.append(current)
        current.measures.extend(n for n in names if n)
    result.topics = [t for t in result.topics if t.measures]
    return result


def measure_list_from_text(
    text: str,
    *,
    llm: Callable[[str], object] | None = None,
    timeout_s: float = 60.0,
    trace: Trace | None = None,
) -> MeasureList:
    """Free text -> MeasureList: the LLM first when given, the regex parser as the fallback."""
    trace = trace or Trace("docs.measure_list")
    if llm is None:
        trace.branch("no LLM configured: measure list read by the regex parser")
        return parse_measure_list(text, trace=trace)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        raw = pool.submit(llm, text).result(timeout=timeout_s)
        data = json.loads(raw) if isinstance(raw, str) else raw
        parsed = data if isinstance(data, MeasureList) else MeasureList.model_validate(data)
        folded = text.casefold()
        for topic in parsed.topics:
            invented = [m for m in topic.measures if m.casefold() not in folded]
            if invented:
                trace.rejected(
                    "measure names the LLM gave that the text does not contain; dropped",
                    names=invented[:20],
                )
                topic.measures = [m for m in topic.measures if m.casefold() in folded]
        if not parsed.flat():
            raise ValueError("the LLM returned no measures")
        trace.branch("measure list read by the LLM", measures=len(parsed.flat()))
        return parsed
    except concurrent.futures.TimeoutError:
        trace.suppressed("measure-list LLM timed out; regex parser used", timeout_s=timeout_s)
    except (json.JSONDecodeError, ValidationError, ValueError, TypeError) as exc:
        trace.suppressed(
            "measure-list LLM answer unusable; regex parser used", error=str(exc)[:200]
        )
    except Exception as exc:
        trace.suppressed("measure-list LLM failed; regex parser used", error=str(exc)[:200])
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return parse_measure_list(text, trace=trace)
