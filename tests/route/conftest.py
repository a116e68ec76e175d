"""Route fixtures: a RouteService over the demo warehouse with the real AskService."""

from __future__ import annotations

from datetime import date

import pytest

TODAY = date(2026, 11, 30)  # the same "today" as tests/conftest.py


@pytest.fixture
def make_route(make_service):
    """A factory of RouteService objects sharing one AskService (demo warehouse, fixed today)."""
    from vitrina.route import RouteService

    def factory(**kwargs):
        ask = make_service()
        return RouteService(ask_service=ask, today=TODAY, write_files=kwargs.pop("write_files", False), **kwargs)

    return factory


class FakeModel:
    """A scripted stand-in for vitrina.llm's client: answers `structured` from a script."""

    def __init__(self, answers: dict[str, object]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    def structured(self, task: str, messages: list[dict], schema: type) -> object:
        self.calls.append(task)
        answer = self.answers[task]
        if isinstance(answer, Exception):
            raise answer
        return schema.model_validate(answer)
