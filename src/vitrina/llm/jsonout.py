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
        raise OutputError(
            f"invalid JSON: {first_error.msg} (line {first_error.lineno}, "
            f"column {first_error.colno})"
        )
    raise OutputError("no JSON object found in the reply")


def parse_into(schema: type[T], text: str) -> T:
    """Validate the reply's JSON object against `schema`; OutputError says what is wrong."""
    data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise OutputError(
            f"the JSON does not match the schema {schema.__name__}: {problems}"
        ) from exc


class ObjectCloser:
    """Watches a streamed reply and says when its first JSON object is complete.

    The rest of a reply after its object is never used, so the stream can stop there: a
    model that keeps writing after `}` (or inside a JSON-mode grammar, keeps adding keys
    until max_tokens) costs nothing more. Text inside `<think>` blocks is skipped.

    >>> closer = ObjectCloser()
    >>> [closer.feed(p) for p in ['Sure: {"a": "}', '", "b": {"c": 1}', '} and more']]
    [False, False, True]
    """

    def __init__(self) -> None:
        self.text = ""
        self._pos = 0
        self._depth = 0
        self._start = -1
        self._in_string = False
        self._escape = False
        self.closed = False

    def feed(self, piece: str) -> bool:
        if self.closed:
            return True
        self.text += piece
        text = self.text
        i = self._pos
        while i < len(text):
            ch = text[i]
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
            elif self._depth == 0 and ch == "<" and text.startswith("<think>", i):
                end = text.find("</think>", i)
                if end < 0:
                    break  # wait for the end of the thinking block
                i = end + len("</think>")
                continue
            elif ch == '"' and self._depth > 0:
                self._in_string = True
            elif ch == "{":
                if self._depth == 0:
                    self._start = i
                self._depth += 1
            elif ch == "}" and self._depth > 0:
                self._depth -= 1
                if self._depth == 0 and self._complete(text[self._start : i + 1]):
                    self.closed = True
                    self._pos = i + 1
                    return True
            i += 1
        self._pos = i
        return False

    @staticmethod
    def _complete(candidate: str) -> bool:
        try:
            return isinstance(json.loads(candidate), dict)
        except json.JSONDecodeError:
            return False
