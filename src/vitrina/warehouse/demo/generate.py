"""The steps that fill the demo warehouse, each a function over one DuckDB connection.

Randomness: every row value comes from `u(stream, key)`, a SQL macro over DuckDB's
`hash(key, stream, seed)`; day-level weights come from Python's `random.Random(seed)`.
Neither depends on thread scheduling (unlike `random()` + `setseed`), so the same seed
gives the same rows on any machine with the same DuckDB version. Keys are row numbers
that never depend on the physical order of an intermediate result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import duckdb

from vitrina.warehouse.demo import reference as ref
from vitrina.warehouse.demo.schema import SCHEMA, TABLE_DDL


@dataclass(frozen=True)
class Sizes:
    """Row targets for one build; scale=1.0 is the documented full size."""

    clients: int
    wallets: int
    merchants: int
    payments: int

    @classmethod
    def for_scale(cls, scale: float) -> Sizes:
        if not 0 < scale <= 10:
            raise ValueError(f"scale must be in (0, 10], got {scale}")
        clients = max(round(60_000 * scale), 200)
        return cls(
            clients=clients,
            wallets=max(round(90_000 * scale), clients + 1),
            merchants=max(round(2_000 * scale), 120),
            payments=max(round(1_250_000 * scale), 5_000),
        )


B2B_SHARE = 0.08
PRIMARY_CARD_SHARE = 0.78  # wallets with a debit/credit card
VIRTUAL_CARD_SHARE = 0.04  # wallets that later add a virtual card


def q(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def sql_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(q(v) for v in values) + "]"


def pick(weights: Sequence[tuple[str, float]], u_expr: str) -> str:
    """A CASE that maps a uniform [0,1) expression to a weighted category (cumulated here)."""
    total = sum(w for _, w in weights)
    acc, parts = 0.0, []
    for value, w in weights[:-1]:
        acc += w / total
        parts.append(f"WHEN {u_expr} < {acc!r} THEN {q(value)}")
    return f"CASE {' '.join(parts)} ELSE {q(weights[-1][0])} END"


def list_at(values: Sequence[str], u_expr: str) -> str:
    """Uniform choice from a list literal (DuckDB lists are 1-based)."""
    return f"{sql_list(values)}[1 + CAST(floor({u_expr} * {len(values)}) AS INTEGER)]"


def days(start: date, end: date) -> list[date]:
    return [start + timedelta(n) for n in range((end - start).days + 1)]


def allocate(total: int, day_list: list[date], weights: list[float]) -> list[tuple[date, int, int]]:
    """Split `total` rows over days in proportion to weights: (day, first row, count), count > 0.

    Row i belongs to the day with the greatest first row <= i (an ASOF join); days that get
    no row are dropped so that first rows are distinct and the join is unambiguous.
    """
    weight_sum = sum(weights)
    out: list[tuple[date, int, int]] = []
    acc = 0.0
    start = 0
    for n, (day, w) in enumerate(zip(day_list, weights, strict=True)):
        acc += w
        end = total if n == len(day_list) - 1 else min(total, round(total * acc / weight_sum))
        if end > start:
            out.append((day, start, end - start))
            start = end
    return out


def load_days(con: duckdb.DuckDBPyConnection, name: str, rows: list[tuple]) -> None:
    """Create a temp table from Python day tuples (d, start, cnt, *extras) in one statement."""
    columns = ["d", "start", "cnt", "wcum", "wknd"][: len(rows[0])]
    lists = [[r[k] for r in rows] for k in range(len(columns))]
    select = ", ".join(f"unnest(${k + 1}) AS {c}" for k, c in enumerate(columns))
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {select}", lists)


def macros(con: duckdb.DuckDBPyConnection, seed: int) -> None:
    """u(stream, key): uniform in [0, 1); nrm(stream, key): standard normal (Box-Muller)."""
    con.execute(
        f"CREATE OR REPLACE TEMP MACRO u(s, i) AS "
        f"(CAST(hash(CAST(i AS BIGINT), CAST(s AS INTEGER), CAST({int(seed)} AS BIGINT)) "
        ">> 11 AS DOUBLE)"
        f" / 9007199254740992.0)"
    )
    con.execute(
        "CREATE OR REPLACE TEMP MACRO nrm(s, i) AS "
        "(sqrt(-2 * ln(1 - u(s, i))) * cos(2 * pi() * u(s + 500, i)))"
    )


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    for table, columns in TABLE_DDL.items():
        con.execute(f"CREATE TABLE {SCHEMA}.{table} ({columns}\n)")


def fill_regions(con: duckdb.DuckDBPyConnection) -> None:
    con.executemany(
        f"INSERT INTO {SCHEMA}.dim_region VALUES (?, ?, ?, ?)",
        [r[:4] for r in ref.REGIONS],
    )
    # Cumulative region weights per segment, for ASOF picks.
    rows = []
    for seg, col in (("B2C", 4), ("B2B", 5)):
        total = sum(r[col] for r in ref.REGIONS)
        acc = 0.0
        for r in ref.REGIONS:
            rows.append((seg, acc / total, r[0]))
            acc += r[col]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _region_cum (seg VARCHAR, lo DOUBLE, region_id INTEGER)"
    )
    con.executemany("INSERT INTO _region_cum VALUES (?, ?, ?)", rows)


def fill_calendar(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"""
        INSERT INTO {SCHEMA}.dim_calendar
        SELECT d, year(d), quarter(d), month(d), {sql_list(ref.MONTH_NAMES_RU)}[month(d)],
               week(d), CAST(date_trunc('week', d) AS DATE), isodow(d), isodow(d) >= 6
        FROM (SELECT CAST(g AS DATE) AS d
              FROM generate_series(DATE '{ref.CALENDAR_START}', DATE '{ref.CALENDAR_END}', INTERVAL 1 DAY) t(g))
    """)  # noqa: E501


def _day_factor(day: date, month_f: Sequence[float], weekday_f: Sequence[float]) -> float:
    f = month_f[day.month - 1] * weekday_f[day.isoweekday() - 1]
    if day.month == 1 and day.day <= 8:  # New Year holidays
        f *= 0.55 if day.day == 1 else 0.8
    return f


def _years(day: date) -> float:
    return (day - ref.START_DATE).days / 365.25


def fill_clients(con: duckdb.DuckDBPyConnection, sizes: Sizes, rng: random.Random) -> None:
    """Clients numbered in order of registration; more sign-ups every year."""
    day_list = days(ref.START_DATE, ref.END_DATE)
    weights = [
        (0.6 + 0.5 * _years(d))
        * _day_factor(d, ref.SIGNUP_MONTH_FACTOR, ref.SIGNUP_WEEKDAY_FACTOR)
        * rng.uniform(0.85, 1.15)
        for d in day_list
    ]
    load_days(con, "_client_days", allocate(sizes.clients, day_list, weights))
    female = [ref.female_surname(s) for s in ref.SURNAMES]
    person = (
        f"CASE WHEN gender = 'M' THEN {list_at(ref.SURNAMES, 'u(4, i)')} "
        f"ELSE {list_at(female, 'u(4, i)')} END || ' ' || "
        f"CASE WHEN gender = 'M' THEN substr({q(ref.INITIALS_MALE)}, "
        f"1 + CAST(floor(u(5, i) * {len(ref.INITIALS_MALE)}) AS INTEGER), 1) "
        f"ELSE substr({q(ref.INITIALS_FEMALE)}, "
        f"1 + CAST(floor(u(5, i) * {len(ref.INITIALS_FEMALE)}) AS INTEGER), 1) END || '.' || "
        f"substr({q(ref.PATRONYMIC_INITIALS)}, "
        f"1 + CAST(floor(u(6, i) * {len(ref.PATRONYMIC_INITIALS)}) AS INTEGER), 1) || '.'"
    )
    suffix = (
        "CASE industry "
        + " ".join(
            f"WHEN {q(ind)} THEN {list_at(sfx, 'u(8, i)')}"
            for ind, sfx in ref.INDUSTRY_SUFFIXES.items()
        )
        + " END"
    )
    company = (
        f"CASE WHEN u(9, i) < 0.9 THEN 'ООО' ELSE 'АО' END || ' \"' || "
        f"{list_at(ref.COMPANY_PREFIXES, 'u(7, i)')} || {suffix} || '\"'"
    )
    industry = pick(list(zip(ref.INDUSTRIES, ref.INDUSTRY_WEIGHTS, strict=True)), "u(10, i)")
    con.execute(f"""
        INSERT INTO {SCHEMA}.dim_client
        WITH base AS (
            SELECT r.i, r.i + 1 AS client_id, cd.d AS registered_date,
                   CASE WHEN u(1, r.i) < {B2B_SHARE} THEN 'B2B' ELSE 'B2C' END AS segment
            FROM range({sizes.clients}) r(i) ASOF JOIN _client_days cd ON r.i >= cd.start
        ), attrs AS (
            SELECT b.*, rc.region_id,
                   CASE WHEN b.segment = 'B2C' THEN CASE WHEN u(3, b.i) < 0.48 THEN 'M' ELSE 'F' END END AS gender,
                   CASE WHEN b.segment = 'B2C'
                        THEN 1952 + CAST(floor(54 * (u(11, b.i) + u(12, b.i)) / 2) AS INTEGER) END AS birth_year,
                   CASE WHEN b.segment = 'B2B' THEN {industry} END AS industry
            FROM base b ASOF JOIN _region_cum rc ON rc.seg = b.segment AND u(2, b.i) >= rc.lo
        )
        SELECT client_id, segment, CASE segment WHEN 'B2B' THEN 'company' ELSE 'person' END,
               CASE segment WHEN 'B2B' THEN {company} ELSE {person} END,
               region_id, registered_date, gender, birth_year, industry
        FROM attrs
    """)  # noqa: E501


def fill_merchants(con: duckdb.DuckDBPyConnection, sizes: Sizes, seed: int) -> None:
    """Merchants: category shares are exact (a hashed permutation), regions weighted."""
    total = sum(ref.MERCHANT_SHARE.values())
    acc, rows = 0.0, []
    for cat in ref.CATEGORIES:
        rows.append((acc / total, cat))
        acc += ref.MERCHANT_SHARE[cat]
    con.execute("CREATE OR REPLACE TEMP TABLE _merchant_cat_cum (lo DOUBLE, category VARCHAR)")
    con.executemany("INSERT INTO _merchant_cat_cum VALUES (?, ?)", rows)
    brand = (
        "CASE category "
        + " ".join(
            f"WHEN {q(cat)} THEN {list_at(brands, 'u(62, i)')}"
            for cat, brands in ref.MERCHANT_BRANDS.items()
        )
        + " END"
    )
    n = sizes.merchants
    con.execute(f"""
        INSERT INTO {SCHEMA}.dim_merchant
        WITH perm AS (
            SELECT i, row_number() OVER (ORDER BY hash(i, 60, {int(seed)}), i) - 1 AS pos
            FROM range({n}) r(i)
        ), cat AS (
            SELECT p.i, c.category FROM perm p
            ASOF JOIN _merchant_cat_cum c ON (p.pos + 0.5) / {n} >= c.lo
        )
        SELECT c.i + 1, {brand} || ' №' || (c.i + 1), c.category, rc.region_id
        FROM cat c ASOF JOIN _region_cum rc ON rc.seg = 'B2C' AND u(61, c.i) >= rc.lo
    """)


def fill_wallets(con: duckdb.DuckDBPyConnection, sizes: Sizes, rng: random.Random) -> None:
    """One wallet per client at sign-up, extra wallets later; ids follow the opening date."""
    day_list = days(ref.START_DATE, ref.END_DATE)
    weights = [
        (0.3 + 0.6 * _years(d))
        * _day_factor(d, ref.SIGNUP_MONTH_FACTOR, ref.SIGNUP_WEEKDAY_FACTOR)
        * rng.uniform(0.85, 1.15)
        for d in day_list
    ]
    extra = sizes.wallets - sizes.clients
    load_days(con, "_extra_days", allocate(extra, day_list, weights))
    end = f"DATE '{ref.END_DATE}'"
    currency_extra = pick(
        [("RUB", 0.70), ("USD", 0.12), ("EUR", 0.10), ("CNY", 0.08)], "u(13, key)"
    )
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _wallet_src AS
        SELECT c.client_id, CAST(c.client_id AS BIGINT) AS key,
               least(c.registered_date + CAST(CASE WHEN u(14, c.client_id) < 0.6 THEN 0
                     ELSE 1 + floor(u(15, c.client_id) * 20) END AS INTEGER), {end}) AS opened_date,
               'RUB' AS currency
        FROM {SCHEMA}.dim_client c
        UNION ALL
        SELECT cl.client_id, x.key, greatest(x.d, cl.registered_date), {currency_extra}
        FROM (
            SELECT 1000000000 + r.i AS key, e.d,
                   CAST(1 + floor(u(16, r.i) * coalesce(cd.start + cd.cnt, 1)) AS BIGINT) AS client_id
            FROM range({extra}) r(i)
            ASOF JOIN _extra_days e ON r.i >= e.start
            ASOF LEFT JOIN _client_days cd ON e.d >= cd.d
        ) x JOIN {SCHEMA}.dim_client cl USING (client_id)
    """)  # noqa: E501
    channel_b2c = pick([("app", 0.70), ("web", 0.22), ("office", 0.08)], "u(17, s.key)")
    channel_b2b = pick([("app", 0.30), ("web", 0.50), ("office", 0.20)], "u(17, s.key)")
    status = pick([("active", 0.89), ("closed", 0.08), ("blocked", 0.03)], "u(18, s.key)")
    con.execute(f"""
        INSERT INTO {SCHEMA}.dim_wallet
        SELECT row_number() OVER (ORDER BY s.opened_date, s.client_id, s.key),
               s.client_id, s.opened_date, s.currency, {status},
               CASE WHEN c.segment = 'B2B' THEN {channel_b2b} ELSE {channel_b2c} END
        FROM _wallet_src s JOIN {SCHEMA}.dim_client c USING (client_id)
    """)


def fill_cards(con: duckdb.DuckDBPyConnection) -> None:
    """A debit/credit card for most wallets, issued on or after the wallet opened; some virtual."""
    end = f"DATE '{ref.END_DATE}'"
    system_default = pick(
        [("Mir", 0.70), ("Visa", 0.12), ("Mastercard", 0.12), ("UnionPay", 0.06)], "u(24, key)"
    )
    system_cny = pick([("UnionPay", 0.80), ("Mir", 0.20)], "u(24, key)")
    primary_type = pick([("debit", 0.72), ("credit", 0.28)], "u(25, key)")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _card_src AS
        SELECT wallet_id, client_id, currency, 0 AS kind, wallet_id * 2 AS key,
               least(opened_date + CAST(CASE WHEN u(22, wallet_id) < 0.7 THEN 0
                     ELSE 1 + floor(u(23, wallet_id) * 30) END AS INTEGER), {end}) AS issued_date
        FROM {SCHEMA}.dim_wallet WHERE u(20, wallet_id) < {PRIMARY_CARD_SHARE}
        UNION ALL
        SELECT * FROM (
            SELECT wallet_id, client_id, currency, 1, wallet_id * 2 + 1,
                   opened_date + CAST(floor(pow(u(23, wallet_id), 2) * 500) AS INTEGER) AS issued_date
            FROM {SCHEMA}.dim_wallet WHERE u(21, wallet_id) < {VIRTUAL_CARD_SHARE}
        ) WHERE issued_date <= {end}
    """)  # noqa: E501
    status = (
        "CASE WHEN u(26, key) < 0.03 THEN 'blocked' "
        "WHEN issued_date < DATE '2024-06-01' AND u(27, key) < 0.25 THEN 'expired' ELSE "
        "'active' END"
    )
    con.execute(f"""
        INSERT INTO {SCHEMA}.dim_card
        SELECT row_number() OVER (ORDER BY issued_date, wallet_id, kind),
               client_id, wallet_id, issued_date,
               CASE WHEN kind = 1 THEN 'virtual' ELSE {primary_type} END,
               CASE WHEN currency = 'CNY' THEN {system_cny} ELSE {system_default} END,
               {status}
        FROM _card_src
    """)


def fill_opening_facts(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"""
        INSERT INTO {SCHEMA}.fact_wallet_opening
        SELECT w.wallet_id, w.client_id, c.region_id, w.opened_date, w.channel, w.currency
        FROM {SCHEMA}.dim_wallet w JOIN {SCHEMA}.dim_client c USING (client_id)
    """)
    con.execute(f"""
        INSERT INTO {SCHEMA}.fact_card_issue
        SELECT k.card_id, k.client_id, c.region_id, k.issued_date, k.card_type, k.payment_system
        FROM {SCHEMA}.dim_card k JOIN {SCHEMA}.dim_client c USING (client_id)
    """)


def _payment_lookups(con: duckdb.DuckDBPyConnection, sizes: Sizes, rng: random.Random) -> None:
    """Small tables the payment query joins: days, category mix, merchant positions, wallets."""
    day_list = days(ref.START_DATE, ref.END_DATE)
    opened = dict(
        con.execute(
            f"SELECT opened_date, max(wallet_id) FROM {SCHEMA}.dim_wallet GROUP BY 1"
        ).fetchall()
    )
    cum, wcum = 0, []
    for d in day_list:
        cum = opened.get(d, cum)
        wcum.append(cum)
    base = 0.25 * sizes.wallets  # keeps the first months from being empty
    weights = [
        (c + base)
        * _day_factor(d, ref.PAYMENT_MONTH_FACTOR, ref.PAYMENT_WEEKDAY_FACTOR)
        * rng.uniform(0.92, 1.08)
        if c > 0
        else 0.0
        for d, c in zip(day_list, wcum, strict=True)
    ]
    by_day = dict(zip(day_list, wcum, strict=True))
    load_days(
        con,
        "_pay_days",
        [
            (d, s, n, by_day[d], d.isoweekday() >= 6)
            for d, s, n in allocate(sizes.payments, day_list, weights)
        ],
    )

    rows = []
    for seg, mix in ref.PAYMENT_MIX.items():
        for month in range(1, 13):
            for weekend in (False, True):
                w = {
                    c: mix[c]
                    * ref.CATEGORY_SEASON.get(c, {}).get(month, 1.0)
                    * (ref.CATEGORY_WEEKEND.get(c, 1.0) if weekend else 1.0)
                    for c in ref.CATEGORIES
                }
                total, acc = sum(w.values()), 0.0
                for c in ref.CATEGORIES:
                    rows.append((seg == "B2B", month, weekend, acc / total, c))
                    acc += w[c]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _cat_cum (b2b BOOLEAN, month INTEGER, wknd "
        "BOOLEAN, lo DOUBLE, category VARCHAR)"
    )
    con.executemany("INSERT INTO _cat_cum VALUES (?, ?, ?, ?, ?)", rows)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _cat (category VARCHAR, median DOUBLE, online BOOLEAN)"
    )
    con.executemany(
        "INSERT INTO _cat VALUES (?, ?, ?)",
        [(c, ref.MEDIAN_TICKET[c], c in ref.ONLINE_CATEGORIES) for c in ref.CATEGORIES],
    )
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _m_pos AS
        SELECT row_number() OVER (ORDER BY category, region_id, merchant_id) - 1 AS pos,
               merchant_id, category, region_id
        FROM {SCHEMA}.dim_merchant
    """)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _m_cat AS
        SELECT m.category, min(pos) AS start, count(*) AS cnt, any_value(c.median) AS median,
               any_value(c.online) AS online
        FROM _m_pos m JOIN _cat c USING (category) GROUP BY m.category
    """)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _m_catreg AS
        SELECT category, region_id, min(pos) AS start, count(*) AS cnt FROM _m_pos GROUP BY ALL
    """)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _wl AS
        SELECT w.wallet_id, w.client_id, c.segment = 'B2B' AS b2b, c.region_id, w.currency,
               p.card_id AS card1, p.issued_date AS card1_date, v.card_id AS card2, v.issued_date AS card2_date
        FROM {SCHEMA}.dim_wallet w JOIN {SCHEMA}.dim_client c USING (client_id)
        LEFT JOIN {SCHEMA}.dim_card p ON p.wallet_id = w.wallet_id AND p.card_type <> 'virtual'
        LEFT JOIN {SCHEMA}.dim_card v ON v.wallet_id = w.wallet_id AND v.card_type = 'virtual'
    """)  # noqa: E501


def fill_payments(con: duckdb.DuckDBPyConnection, sizes: Sizes, rng: random.Random) -> None:
    """Payments: day volume by wallets open, season and weekday; wallet opened on or before."""
    _payment_lookups(con, sizes, rng)
    channel_card = (
        "CASE WHEN online THEN CASE WHEN u(46, i) < (CASE WHEN b2b THEN 0.3 ELSE 0.65 "
        "END) THEN 'app' ELSE 'web' END WHEN b2b THEN "
        + pick([("pos", 0.60), ("web", 0.25), ("app", 0.15)], "u(46, i)")
        + " ELSE "
        + pick([("pos", 0.75), ("app", 0.15), ("web", 0.10)], "u(46, i)")
        + " END"
    )
    channel_wallet = (
        "CASE WHEN online THEN CASE WHEN u(46, i) < 0.6 THEN 'app' ELSE 'web' END "
        "ELSE CASE WHEN u(46, i) < 0.7 THEN 'qr' ELSE 'app' END END"
    )
    refund_p = (
        "CASE WHEN category IN ('clothing', 'electronics', 'marketplace') THEN 0.035 ELSE 0.012 END"
    )
    con.execute(f"""
        INSERT INTO {SCHEMA}.fact_payment
        WITH p0 AS (
            SELECT r.i, pd.d, pd.wknd,
                   CAST(1 + floor(u(30, r.i) * pd.wcum) AS BIGINT) AS w1,
                   CAST(1 + floor(u(31, r.i) * pd.wcum) AS BIGINT) AS w2
            FROM range({sizes.payments}) r(i) ASOF JOIN _pay_days pd ON r.i >= pd.start
        ), p1 AS (  -- B2B pays mostly on weekdays: most weekend picks of a B2B wallet are redrawn
            SELECT p0.i, p0.d, p0.wknd,
                   CASE WHEN p0.wknd AND a.b2b AND u(32, p0.i) < 0.8 THEN p0.w2 ELSE p0.w1 END AS wallet_id
            FROM p0 JOIN _wl a ON a.wallet_id = p0.w1
        ), p2 AS (
            SELECT p1.*, wl.client_id, wl.b2b, wl.region_id, wl.currency,
                   CASE WHEN wl.card2_date <= p1.d
                             AND (u(35, p1.i) < 0.35 OR wl.card1 IS NULL OR wl.card1_date > p1.d) THEN wl.card2
                        WHEN wl.card1_date <= p1.d THEN wl.card1 END AS any_card
            FROM p1 JOIN _wl wl USING (wallet_id)
        ), p3 AS (
            SELECT p2.*, cc.category FROM p2
            ASOF JOIN _cat_cum cc ON cc.b2b = p2.b2b AND cc.month = month(p2.d) AND cc.wknd = p2.wknd
                                 AND u(33, p2.i) >= cc.lo
        ), p4 AS (
            SELECT p3.*, c.median, c.online,
                   CASE WHEN u(40, p3.i) >= 0.06 THEN p3.any_card END AS card_id,
                   CASE WHEN NOT c.online AND u(36, p3.i) < 0.75 AND cr.cnt IS NOT NULL
                        THEN cr.start + CAST(floor(pow(u(34, p3.i), 1.6) * cr.cnt) AS BIGINT)
                        ELSE c.start + CAST(floor(pow(u(34, p3.i), 1.6) * c.cnt) AS BIGINT) END AS mpos
            FROM p3 JOIN _m_cat c USING (category)
            LEFT JOIN _m_catreg cr ON cr.category = p3.category AND cr.region_id = p3.region_id
        ), p5 AS (
            SELECT p4.*, mp.merchant_id,
                   CASE WHEN card_id IS NULL THEN {channel_wallet} ELSE {channel_card} END AS channel,
                   CAST(round(least(greatest(
                        median * (CASE WHEN b2b THEN {ref.B2B_TICKET_FACTOR} ELSE 1 END)
                        * (CASE WHEN wknd AND NOT b2b THEN (CASE WHEN category = 'restaurants' THEN 1.2 ELSE 1.05 END) ELSE 1 END)
                        * (1 + 0.08 * (d - DATE '{ref.START_DATE}') / 365.25)
                        * exp((CASE WHEN b2b THEN 1.1 ELSE 0.85 END) * nrm(37, i)),
                        10), 50000000), 2) AS DECIMAL(14,2)) AS amount_rub,
                   CASE WHEN u(41, i) < 0.055 THEN 'declined'
                        WHEN u(41, i) < 0.055 + {refund_p} THEN 'refunded' ELSE 'success' END AS status,
                   CAST(floor(CASE WHEN b2b THEN (9 + 9 * (u(43, i) + u(44, i)) / 2) * 3600
                                   WHEN u(45, i) < 0.08 THEN u(43, i) * 86400
                                   ELSE (7 + 16 * (u(43, i) + u(44, i)) / 2) * 3600 END) AS BIGINT) AS secs
            FROM p4 JOIN (SELECT pos, merchant_id FROM _m_pos) mp ON mp.pos = p4.mpos
        )
        SELECT i + 1, d, CAST(d AS TIMESTAMP) + to_seconds(least(secs, 86399)), client_id, wallet_id, card_id,
               merchant_id, amount_rub,
               CAST(round(CASE WHEN status = 'declined' THEN 0
                               WHEN b2b THEN least(greatest(amount_rub * 0.004, 15), 5000)
                               WHEN currency <> 'RUB' THEN amount_rub * 0.015
                               WHEN u(42, i) < 0.1 THEN amount_rub * 0.01
                               ELSE 0 END, 2) AS DECIMAL(12,2)),
               status, channel
        FROM p5
    """)  # noqa: E501


def drop_temp(con: duckdb.DuckDBPyConnection) -> None:
    for (name,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE temporary AND table_name LIKE "
        "'\\_%' ESCAPE '\\'"
    ).fetchall():
        con.execute(f'DROP TABLE temp."{name}"')


Step = tuple[str, Callable[[], None]]


def steps(con: duckdb.DuckDBPyConnection, sizes: Sizes, seed: int) -> list[Step]:
    """The build as named steps, in order; each gets its own seeded day-level generator."""
    return [
        ("schema", lambda: (macros(con, seed), create_tables(con))),
        ("regions", lambda: fill_regions(con)),
        ("calendar", lambda: fill_calendar(con)),
        ("clients", lambda: fill_clients(con, sizes, random.Random(seed * 10 + 1))),
        ("merchants", lambda: fill_merchants(con, sizes, seed)),
        ("wallets", lambda: fill_wallets(con, sizes, random.Random(seed * 10 + 2))),
        ("cards", lambda: fill_cards(con)),
        ("opening facts", lambda: fill_opening_facts(con)),
        ("payments", lambda: fill_payments(con, sizes, random.Random(seed * 10 + 3))),
        ("cleanup", lambda: drop_temp(con)),
    ]
