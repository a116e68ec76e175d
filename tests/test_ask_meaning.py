"""The checks of meaning on the model path (issue 36): a plausible query that does not say
what the question asks is refused, saying why in the question's language; a right one is
answered. A scripted model writes the SQL; the rest of the turn is the real graph."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from tests.test_ask_llm import TODAY, run, sql

from vitrina.catalog import load_catalog
from vitrina.query.meaning import check_meaning
from vitrina.query.plan import Filter, PeriodRef, QueryPlan

OLD = "Сколько клиентов старше 60 лет?"


def _script(query: str) -> dict:
    return {
        "topic": ['{"topic": "clients", "confidence": 0.9}'] * 2,
        "ambiguity": ['{"ambiguous": false}'] * 2,
        "period": ['{"span": null}'] * 2,
        "tables": ['{"tables": ["dwh.dim_client"]}'] * 3,
        "feasibility": ['{"feasible": true}'] * 3,
        "sql_generation": [sql(query)] * 3,
        "semantic_check": ['{"answers_question": true}'] * 3,
        "answer": [json.dumps({"text": "Ответ в таблице."}, ensure_ascii=False)],
    }


def test_a_dropped_condition_is_refused_naming_the_words(demo_db: Path) -> None:
    """The issue's case: COUNT(*) of every client with answers_question true was answered
    "60 000"; now the words the rules could not place must be carried by the SQL."""
    result, model = run(demo_db, _script("SELECT COUNT(*) FROM dwh.dim_client"), OLD)
    assert result.status == "refused" and result.rows == []
    assert result.answer.startswith("Не отвечаю: запрос модели не отвечает на вопрос")
    assert "«60»" in result.answer
    assert len(model.prompts_for("sql_generation")) == 3  # the model got the reason back
    assert "«60»" in model.prompts_for("sql_generation")[1].text


def test_the_condition_carried_is_answered(demo_db: Path) -> None:
    query = "SELECT COUNT(*) AS clients FROM dwh.dim_client WHERE birth_year <= 1966"
    result, _ = run(demo_db, _script(query), OLD)
    assert result.status == "answered" and result.sql_source == "llm"
    assert result.rows[0][0] > 0 and not [c for c in result.checks if c["check"] == "meaning"]


def _plan(catalog_period: PeriodRef) -> QueryPlan:
    return QueryPlan(
        topic="payments",
        base_table="dwh.fact_payment",
        metrics=["payment_amount"],
        filters=[
            Filter(
                table="dwh.fact_payment",
                column="channel",
                values=["app"],
                label_ru="канал: app",
                label_en="channel: app",
            )
        ],
        period=catalog_period,
        date_column="payment_date",
    )


MAY = PeriodRef(start="2025-05-01", end="2025-05-31", label_ru="май 2025", label_en="May 2025")
RIGHT = (
    "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p WHERE p.status = 'success' "
    "AND p.channel = 'app' AND p.payment_date >= DATE '2025-05-01' "
    "AND p.payment_date < DATE '2025-06-01'"
)


def _problems(query: str, lang: str = "en") -> list[str]:
    from vitrina.config import load_settings

    catalog = load_catalog(load_settings().catalog_dir)
    found = check_meaning(query, "duckdb", catalog, _plan(MAY), unexplained=[], lang=lang)
    return [p.check for p in found]


def test_the_reading_is_what_the_sql_is_held_to() -> None:
    assert _problems(RIGHT) == []
    assert _problems(RIGHT.replace("SUM(p.amount_rub)", "AVG(p.amount_rub)")) == ["metric"]
    assert _problems(RIGHT.replace("p.status = 'success' AND ", "")) == ["mandatory_filter"]
    assert _problems(RIGHT.replace("2025-06-01", "2025-06-02")) == ["period"]
    assert _problems(RIGHT.replace("p.payment_date", "p.payment_ts")) == ["date_column"]
    assert _problems(RIGHT.replace("AND p.channel = 'app' ", "")) == ["filter_missing"]
    assert _problems(RIGHT.replace("'app'", "'web'")) == ["filter_values"]
    assert _problems(RIGHT + " AND p.currency = 'USD'") == ["condition_extra"]
    assert _problems(RIGHT.replace("SUM(p.amount_rub)", "SUM(p.amount_rub) / 1000")) == ["unit"]
    many = "FROM dwh.fact_payment p JOIN dwh.fact_wallet_opening w ON w.client_id = p.client_id"
    assert _problems(RIGHT.replace("FROM dwh.fact_payment p", many)) == ["join_unknown"]
    assert _problems(RIGHT, "ru") == [] and "не так" in _message(
        RIGHT.replace("SUM(", "AVG("), "ru"
    )


def _message(query: str, lang: str) -> str:
    from vitrina.config import load_settings

    catalog = load_catalog(load_settings().catalog_dir)
    found = check_meaning(query, "duckdb", catalog, _plan(MAY), unexplained=[], lang=lang)
    return "; ".join(p.message for p in found)


def test_a_model_rewrite_that_loses_the_message_is_not_used(demo_db: Path) -> None:
    """ "а без пенсионеров?" rewritten without its words would be answered with the previous
    figure; the rewrite is rejected, naming the lost words, and the rules take over."""
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.llm.client import LLMClient
    from vitrina.llm.fake import ScriptedChatModel

    lost = json.dumps({"question": "Сумма платежей в 2025 году"}, ensure_ascii=False)
    model = ScriptedChatModel({"rewrite": [lost]}, every='{"answers_question": true}')
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"),
        today=TODAY,
        write_files=False,
        llm=LLMClient(model, timeout_s=5, max_retries=0),
    )
    try:
        first = service.ask("Сумма платежей в 2025 году", thread_id="f")
        second = service.ask("а без клиентов-пенсионеров старше шестидесяти?", thread_id="f")
    finally:
        service.close()
    assert first.status == "answered"
    assert len(model.prompts_for("rewrite")) == 1
    rejected = [
        e.data["words"]
        for e in second.trace
        if e.kind == "rejected" and e.message.startswith("the model's rewrite lost words")
    ]
    assert rejected and "пенсионеров" in " ".join(rejected[0])
    assert not (second.status == "answered" and second.rows == first.rows)


def _uncarried(query: str, words: list[str]) -> list[str]:
    import sqlglot

    from vitrina.config import load_settings
    from vitrina.query.carried import uncarried

    catalog = load_catalog(load_settings().catalog_dir)
    return uncarried(sqlglot.parse_one(query, read="duckdb"), catalog, words)


def test_the_event_verb_of_the_table_read_is_carried() -> None:
    """ "How many payments were paid / orders placed": the verb of the counted table's own
    event (its metrics' `verbs:`, or what `catalog init` drafts from the table's name) is
    carried by reading that table; on another table it is not."""
    payments = "SELECT COUNT(*) FROM dwh.fact_payment WHERE status = 'success'"
    assert _uncarried(payments, ["paid", "оплатили"]) == []
    assert _uncarried("SELECT COUNT(*) FROM dwh.dim_client", ["paid"]) == ["paid"]


def test_a_grain_word_is_carried_by_its_bucket_not_by_any_number() -> None:
    """ "Which month had the most": a month bucket carries "month"; a year bucket with
    LIMIT 1 does not (the number 1 is no month); a duration compared carries "лет"."""
    by = (
        "SELECT DATE_TRUNC('{g}', payment_date) AS m, SUM(amount_rub) AS s "
        "FROM dwh.fact_payment GROUP BY m ORDER BY s DESC LIMIT 1"
    )
    assert _uncarried(by.format(g="MONTH"), ["month", "месяце"]) == []
    assert _uncarried(by.format(g="YEAR"), ["month", "месяце"]) == ["month", "месяце"]
    old = "SELECT COUNT(*) FROM dwh.dim_client WHERE birth_year <= 1965"
    assert _uncarried(old, ["лет"]) == []


def test_a_date_a_verb_chose_is_a_guess_answered_with_a_caveat() -> None:
    """ "Revenue of items shipped by rail in 1997": "shipped" names the ship date, but may
    say how the items went, not when. Either the ship date or the metric's default (the
    order date) is answered with a caveat naming the other; a third date is refused."""
    from vitrina.query.planner import build_plan
    from vitrina.query.understand import read_question
    from vitrina.trace import Trace

    catalog = load_catalog(Path(__file__).resolve().parents[1] / "suites" / "tpch_like")

    def plan_of(question: str) -> QueryPlan | None:
        reading = read_question(question, catalog)
        return build_plan(
            reading,
            catalog,
            topic="sales",
            lang="en",
            period=period,
            segment=None,
            trace=Trace("test"),
        ).plan

    period = PeriodRef(
        start=date(1997, 1, 1), end=date(1997, 12, 31), label_ru="1997", label_en="1997"
    )
    question = "Revenue of items shipped by rail in 1997"
    plan = plan_of(question)
    assert plan is not None and plan.date_words == "shipped"
    explicit = "Revenue in 1997 by ship date"
    named = plan_of(explicit)
    assert named is not None and named.date_words is None
    base = (
        "SELECT SUM(l.l_extendedprice * (1 - l.l_discount)) FROM lineitem l JOIN orders o "
        "ON o.o_orderkey = l.l_orderkey WHERE l.l_shipmode = 'RAIL' "
        "AND {d} BETWEEN DATE '1997-01-01' AND DATE '1997-12-31'"
    )
    for column, other in (("l.l_shipdate", "o_orderdate"), ("o.o_orderdate", "l_shipdate")):
        found = check_meaning(
            base.format(d=column), "duckdb", catalog, plan, unexplained=[], lang="en"
        )
        assert [(p.check, p.decided) for p in found] == [("date_guess", False)]
        assert other in found[0].message and "'shipped'" in found[0].message
    found = check_meaning(
        base.format(d="l.l_commitdate"), "duckdb", catalog, plan, unexplained=[], lang="en"
    )
    assert any(p.check == "date_column" and p.decided for p in found)


def _read(question: str, suite: str | None, today: date) -> tuple[object, QueryPlan]:
    """The rules' reading of a rephrasing (tests/data/ask_alignment.yaml) on a suite's
    catalog (None: the demo's)."""
    from vitrina.ask.nodes.select_tables import rules_verdict
    from vitrina.config import load_settings

    folder = Path(__file__).resolve().parents[1] / "suites" / suite if suite else None
    catalog = load_catalog(folder or load_settings().catalog_dir)
    verdict = rules_verdict(question, catalog, today)
    assert verdict["plan"] is not None
    return catalog, verdict["plan"]


def _decided(query: str, catalog: object, plan: QueryPlan, dialect: str = "duckdb") -> list[str]:
    found = check_meaning(query, dialect, catalog, plan, unexplained=[], lang="en")  # type: ignore[arg-type]
    return [p.check for p in found if p.decided]


def test_several_metrics_each_held_to_its_own_expression_fact_and_date() -> None:
    """Metrics on two facts, each aggregated on its own (scalar subqueries): AVG where the
    catalog sums is refused even beside a right COUNT; the part's own join many-to-one
    toward its fact is no fan-out, a join that multiplies the revenue still is; each part's
    own date is its period's date."""
    catalog, plan = _read("Revenue and tracks sold in 2024", "chinook", date(2026, 1, 15))
    assert plan.parts
    right = (
        "SELECT (SELECT SUM(Total) FROM Invoice WHERE InvoiceDate >= '2024-01-01' "
        "AND InvoiceDate < '2025-01-01'), (SELECT SUM(il.Quantity) FROM InvoiceLine il "
        "JOIN Invoice i ON i.InvoiceId = il.InvoiceId WHERE i.InvoiceDate >= '2024-01-01' "
        "AND i.InvoiceDate < '2025-01-01')"
    )
    assert _decided(right, catalog, plan, "sqlite") == []
    assert "aggregate" in _decided(
        right.replace("SUM(Total)", "AVG(Total)"), catalog, plan, "sqlite"
    )
    fanned = right.replace(
        "SUM(Total) FROM Invoice WHERE",
        "SUM(Total) FROM Invoice JOIN InvoiceLine f ON f.InvoiceId = Invoice.InvoiceId WHERE",
    )
    assert _decided(fanned, catalog, plan, "sqlite") == ["fan_out"]
    catalog, plan = _read(
        "выпущенные карты и открытые кошельки в 2025 году", None, date(2026, 12, 1)
    )
    cards = (
        "SELECT (SELECT COUNT(*) FROM dwh.fact_card_issue WHERE issue_date >= DATE '2025-01-01' "
        "AND issue_date < DATE '2026-01-01'), (SELECT COUNT(*) FROM dwh.fact_wallet_opening "
        "WHERE open_date >= DATE '2025-01-01' AND open_date < DATE '2026-01-01')"
    )
    assert _decided(cards, catalog, plan) == []
    assert _decided(
        cards.replace("COUNT(*) FROM dwh.fact_w", "COUNT(DISTINCT client_id) FROM dwh.fact_w"),
        catalog,
        plan,
    ) == ["aggregate"]


def test_two_periods_each_scope_is_one_of_them() -> None:
    """ "Revenue in 2024 compared with 2023": a FILTER or a CASE WHEN per period is right; a
    period off by a month in one of them is refused, so is a query with one period only."""
    catalog, plan = _read("Revenue in 2024 compared with 2023", "chinook", date(2026, 1, 15))
    assert plan.compared is not None
    case = (
        "SELECT SUM(CASE WHEN InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01' "
        "THEN Total END) AS a, SUM(CASE WHEN InvoiceDate >= '2023-01-01' "
        "AND InvoiceDate < '2024-01-01' THEN Total END) AS b FROM Invoice"
    )
    assert _decided(case, catalog, plan, "sqlite") == []
    assert _decided(case.replace("'2023-01-01'", "'2022-12-01'"), catalog, plan, "sqlite") == [
        "period"
    ]
    assert "aggregate" in _decided(case.replace("SUM(CASE", "AVG(CASE", 1), catalog, plan, "sqlite")
    one = (
        "SELECT SUM(Total) FROM Invoice "
        "WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01'"
    )
    assert _decided(one, catalog, plan, "sqlite") == ["period"]
    filtered = (
        "SELECT SUM(Total) FILTER (WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < "
        "'2025-01-01'), SUM(Total) FILTER (WHERE InvoiceDate >= '2023-01-01' AND "
        "InvoiceDate < '2024-01-01') FROM Invoice WHERE InvoiceDate >= '2023-01-01' "
        "AND InvoiceDate < '2025-01-01'"
    )
    assert _decided(filtered, catalog, plan, "sqlite") == []


def test_a_unit_key_counted_through_the_join_that_equals_it() -> None:
    """ "revenue per order": COUNT(DISTINCT o.o_orderkey) joined ON o.o_orderkey =
    l.l_orderkey counts the orders as COUNT(DISTINCT l.l_orderkey) does; COUNT without
    DISTINCT does not."""
    catalog, plan = _read("средняя выручка на заказ в 1997 году", "tpch_like", date(1998, 12, 1))
    assert plan.derived == "per"
    query = (
        "SELECT SUM(l.l_extendedprice * (1 - l.l_discount)) / COUNT(DISTINCT o.o_orderkey) "
        "FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey "
        "WHERE o.o_orderdate >= DATE '1997-01-01' AND o.o_orderdate < DATE '1998-01-01'"
    )
    assert _decided(query, catalog, plan) == []
    assert _decided(query.replace("DISTINCT ", ""), catalog, plan) == ["metric"]
