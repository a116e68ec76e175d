"""The 1C request suite (tests/onec/requests.py) run through the route service.

Each answer is graded: right (the expected object, a valid query, the right virtual table,
the filters applied and the asked fields), unsure or refused (the answer says it could not
decide), or wrong. A wrong object shown as success is counted apart and must be zero.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from tests.onec import requests as suite

from vitrina.onec import OneCSource, check_query
from vitrina.route import RouteService

FIXTURES = Path(__file__).parent / "fixtures"
SUCCESS = {"planned", "found"}


def grade(result: Any, expect: dict[str, Any]) -> tuple[str, list[str]]:
    """'right', 'unsure' (a refusal or an unsure answer), 'wrong' or 'wrong_as_success', and why."""
    report = result.report or {}
    problems: list[str] = []
    success = result.status in SUCCESS
    if expect["kind"] == "refuse":
        return (
            ("right", [])
            if not success
            else ("wrong_as_success", [f"answered {report.get('object')}"])
        )
    if not success:
        return "unsure", [f"status {result.status}: {result.answer}"]
    if expect["kind"] == "metadata":
        first = (result.steps or [{}])[0].get("observation", "")
        right = first.startswith(expect["object"].lower())
        return ("right", []) if right else ("wrong_as_success", [f"first hit {first[:60]}"])
    if report.get("object") != expect["object"]:
        return "wrong_as_success", [f"object {report.get('object')} instead of {expect['object']}"]
    if expect["kind"] == "recorders":
        if report.get("recorders") != expect["recorders"]:
            problems.append(f"recorders {report.get('recorders')}")
        return ("right" if not problems else "wrong"), problems
    query = report.get("query", "")
    check = check_query(query)
    if not check.ok:
        problems.append(f"query invalid: {check.errors}")
    vts = (
        expect["virtual_table"]
        if isinstance(expect["virtual_table"], tuple)
        else (expect["virtual_table"],)
    )
    if report.get("virtual_table") not in vts:
        problems.append(f"virtual table {report.get('virtual_table')!r}")
    read_back = [v.rpartition(".")[2] for v in check.virtual_tables]
    if any(vts) and not set(read_back) & set(vts):
        problems.append(f"query reads {check.virtual_tables}")
    for name in expect.get("fields", []):
        if f"{name} КАК" not in query and f".{name}" not in query:
            problems.append(f"field {name} missing")
    for f in expect.get("filters", []):
        if f not in query:
            problems.append(f"filter {f} not applied")
    for word in expect.get("unplaced", []):
        if (
            not any(word in u.lower() for u in report.get("unplaced", []))
            or word not in result.answer.lower()
        ):
            problems.append(f"unplaced filter {word} not reported")
    for name, value in expect.get("parameters", {}).items():
        got = (report.get("parameters") or {}).get(name, {}).get("value")
        if got != value:
            problems.append(f"&{name} = {got}, expected {value}")
    if expect.get("candidate") and expect["candidate"] not in {
        c.get("object") for c in result.candidates
    }:
        problems.append(f"{expect['candidate']} not among the candidates")
    return ("right" if not problems else "wrong"), problems


def _cases(shared: Path | None) -> list[tuple[Path, str, dict[str, Any]]]:
    cases = [(FIXTURES / "shop-designer", t, e) for t, e in suite.SHOP]
    cases += [(FIXTURES / "trade-designer", t, e) for t, e in suite.TRADE]
    if shared is not None:
        cases += [(shared / "onec" / "designer-mdclasses", t, e) for t, e in suite.DESIGNER]
        cases += [(shared / "onec" / "edt-qlfulldemo", t, e) for t, e in suite.EDT]
    return cases


@pytest.fixture(scope="module")
def services():
    cache: dict[Path, RouteService] = {}

    def get(root: Path) -> RouteService:
        if root not in cache:
            cache[root] = RouteService(
                onec=OneCSource.load(root), today=suite.TODAY, write_files=False
            )
        return cache[root]

    return get


def test_request_suite_scores(services, request):
    shared = None
    with contextlib.suppress(pytest.skip.Exception):
        shared = request.getfixturevalue("shared_fixtures")
    cases = _cases(shared)
    graded = []
    for root, text, expect in cases:
        result = services(root).handle(text)
        verdict, why = grade(result, expect)
        graded.append((verdict, root.name, text, why))
    counts = {
        k: sum(g[0] == k for g in graded) for k in ("right", "unsure", "wrong", "wrong_as_success")
    }
    report = "\n".join(
        f"{v:16} {r:20} {t}: {'; '.join(w)}" for v, r, t, w in graded if v != "right"
    )
    print(f"\n1C request suite: {counts} of {len(graded)}\n{report}")
    assert counts["wrong_as_success"] == 0, report
    assert len(graded) >= (31 if shared is not None else 27)
    assert counts["right"] == len(graded), report
