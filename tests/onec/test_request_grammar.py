"""The 1C request suite by what is asked (tests/onec/requests_grammar.py) through the route
service, on 1C's own demo configurations (EDT and Designer) and the shop configuration.

Graded as tests/onec/test_request_suite.py grades: right, unsure (the answer says it could not
decide, with its candidates), refused, wrong, or wrong shown as success (must be zero). Two
classes are not register reports and are graded on their own answers: a catalog's attributes
(the attributes listed, a query that selects them) and the reports on a subject (the list).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.onec.requests import TODAY
from tests.onec.requests_grammar import GRAMMAR
from tests.onec.test_request_suite import FIXTURES, grade

from vitrina.onec import OneCSource, check_query
from vitrina.route import RouteService
from vitrina.route.service import RouteResult

GOAL = 0.92  # the 22 of 24


def _roots(shared: Path) -> dict[str, Path]:
    return {
        "edt": shared / "onec" / "edt-qlfulldemo",
        "designer": shared / "onec" / "designer-mdclasses",
        "shop": FIXTURES / "shop-designer",
    }


def grade_grammar(result: RouteResult, expect: dict[str, Any]) -> tuple[str, list[str]]:
    """The verdict for one request: right, unsure, refused, wrong or wrong_as_success."""
    report = result.report or {}
    if result.status == "refused":
        return "refused", [result.answer or ""]
    if result.status == "unsure":
        return "unsure", [result.answer or ""]
    if expect["kind"] == "attributes":
        return _grade_attributes(result, report, expect)
    if expect["kind"] == "reports":
        got = report.get("reports")
        if result.status != "found" or got is None:
            return "wrong_as_success", [f"status {result.status}, report {report.get('object')}"]
        return ("right", []) if got == expect["reports"] else ("wrong", [f"reports {got}"])
    verdict, why = grade(result, expect)
    query = report.get("query", "")
    for value in expect.get("name_filters", []):
        values = [v.get("value") for v in (report.get("parameters") or {}).values()]
        if value not in query and value not in values:
            why.append(f"named item {value} dropped")
    if verdict == "right" and why:
        verdict = "wrong"
    return verdict, why


def _grade_attributes(
    result: RouteResult, report: dict[str, Any], expect: dict[str, Any]
) -> tuple[str, list[str]]:
    if report.get("object") != expect["object"]:
        return "wrong_as_success", [f"object {report.get('object')}"]
    why = [
        f"attribute {f} not listed"
        for f in expect["fields"]
        if f not in report.get("attributes", [])
    ]
    query = report.get("query", "")
    check = check_query(query)
    if not check.ok:
        why.append(f"query invalid: {check.errors}")
    why += [f"query lacks {f}" for f in expect["fields"] if f".{f} КАК" not in query]
    return ("right" if not why else "wrong"), why


@pytest.fixture(scope="module")
def services(shared_fixtures):
    roots = _roots(shared_fixtures)
    cache: dict[str, RouteService] = {}

    def get(name: str) -> RouteService:
        if name not in cache:
            cache[name] = RouteService(
                onec=OneCSource.load(roots[name]), today=TODAY, write_files=False
            )
        return cache[name]

    return get


def test_grammar_suite_scores(services):
    graded = []
    for fixture, text, expect in GRAMMAR:
        verdict, why = grade_grammar(services(fixture).handle(text), expect)
        graded.append((verdict, expect["cls"], fixture, text, why))
    counts = Counter(g[0] for g in graded)
    by_class = Counter((g[1], g[0]) for g in graded)
    lines = [
        f"{v:16} {c:16} {f:8} {t}: {'; '.join(w)[:300]}" for v, c, f, t, w in graded if v != "right"
    ]
    print(
        f"\n1C grammar suite: {dict(counts)} of {len(graded)}\n{dict(by_class)}\n"
        + "\n".join(lines)
    )
    classes = Counter(g[1] for g in graded)
    assert len(graded) >= 30 and all(n >= 3 for n in classes.values()), classes
    assert counts["wrong_as_success"] == 0, "\n".join(lines)
    assert counts["right"] / len(graded) >= GOAL, "\n".join(lines)
