"""Find the JSON object in a model's reply and validate it into a Pydantic model.

Small local models wrap JSON in code fences, prepend "Here is the JSON:", or think aloud
in <think> blocks first; the parser tolerates all of that so that the one repair request
is spent on output that is really wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class OutputError(ValueError):
    """The reply holds no valid object; the message is quoted back to the model."""


def extract_json(text: str) -> Any:
    """The first JSON object in `text` (fenced or bare), else OutputError.

    >>> extract_json('Sure! ```json\\n{"a": 1}\\n``` done')
    {'a': 1}
    >>> extract_json('The answer is {"a": [1, 2]} as requested')
    {'a': [1, 2]}
    """
    text = _THINK.sub("", text).strip()
    if not text:
        raise OutputError("the reply is empty; expected one JSON object")
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    first_error: json.JSONDecodeError | None = None
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError as exc:
                first_error = first_error or exc
                continue
            if isinstance(value, dict):
                return value
    if first_error is not None:
        raise OutputError(f"invalid JSON: {first_error.msg} (line {first_error.lineno}, "
                          f"column {first_error.colno})")
    raise OutputError("no JSON object found in the reply")


def parse_into(schema: type[T], text: str) -> T:
    """Validate the reply's JSON object against `schema`; OutputError says what is wrong."""
    data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        raise OutputError(f"the JSON does not match the schema {schema.__name__}: {problems}") from exc
