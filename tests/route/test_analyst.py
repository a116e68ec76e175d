"""The metadata analyst: one ReAct step per node call, steps in state, the MAX steps guard."""

from __future__ import annotations

from vitrina.catalog import load_catalog
from vitrina.route import RouteService
from vitrina.route.analyst import next_action


def _service(max_steps: int = 6) -> RouteService:
    from vitrina.config import load_settings

    settings = load_settings()
    return RouteService(
        settings,
        catalog=load_catalog(settings.catalog_dir),
        warehouse=object(),
        max_steps=max_steps,
    )


def test_productive_search_finishes_with_steps_shown():
    result = _service().handle("Где хранятся платежи по регионам?")
    assert result.status == "found" and result.intent == "metadata"
    assert [s["action"].split(":")[0] for s in result.steps] == [
        "search_catalog",
        "lookup_columns",
        "lookup_values",
        "relation_path",
    ]
    assert result.nodes.count("analyst") == len(result.steps) == 4
    assert result.steps[0]["observation"].startswith("dwh.fact_payment")
    assert "dwh.dim_client.region_id = dwh.dim_region.region_id" in result.steps[3]["observation"]
    assert all({"thought", "action", "observation", "new"} <= set(s) for s in result.steps)
    assert (
        "Шаги поиска" in result.reply["text"]
        and "→ lookup_columns:dwh.fact_payment" in result.reply["text"]
    )


def test_guard_stops_an_unknown_query_after_max_steps():
    result = _service(max_steps=3).handle(
        "найди таблицы про квантовые флуктуации вакуума и тёмную материю"
    )
    assert len(result.steps) == 3 and result.nodes.count("analyst") == 3
    assert result.status == "not_found" and all(s["new"] == 0 for s in result.steps)
    assert [e.data["max_steps"] for e in result.trace if "max_steps" in e.data] == [3]
    assert "предел" in result.answer
    assert result.nodes[-1] == "deliver"


def test_default_guard_bounds_a_long_fruitless_search():
    result = _service().handle("найди данные: альфа бета гамма дельта эпсилон дзета эта тета")
    assert len(result.steps) == 6 and "предел" in result.answer


def test_next_action_policy():
    assert next_action({}, has_docs=False) == "search_catalog"
    facts = {
        "done": ["search_catalog"],
        "tables": ["a", "b"],
        "column_tables": ["b"],
        "words": ["x"],
    }
    assert next_action(facts, has_docs=False) == "lookup_columns:a"
    facts["done"] += ["lookup_columns:a", "lookup_values"]
    assert next_action(facts, has_docs=False) == "relation_path:a->b"
    empty = {"done": ["search_catalog", "search_catalog_loose"], "tables": [], "words": ["x", "y"]}
    assert next_action(empty, has_docs=True) == "search_measures"
    assert next_action(empty, has_docs=False) == "search_word:x"


def test_measure_search_in_a_docs_model():
    from pathlib import Path

    from vitrina.route.tools import search_measures

    model = Path(__file__).parents[1] / "docs" / "fixtures" / "small.bim"
    found = search_measures(["amount", "customer"], model=model)
    assert found[0]["measure"] == "Amount per Customer"
