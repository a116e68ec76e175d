"""A small TPC-H-like star, generated deterministically, for the unseen-warehouse trial.

Why: the demo warehouse was designed together with the planner, so its figure says little
about a warehouse nobody tuned for. This one has what real star schemas have and the demo
lacks: prefixed column names (``l_``, ``o_``, ``c_``), no declared keys, one-letter status
codes, free-text comments, an order-line fact dated only through its order, two dates on a
line (order date through the order, ship date on the line), and two paths to a nation
(customer and supplier).

    python benchmarks/unseen/tpch_like.py OUT.duckdb [--orders N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
from datetime import date, timedelta
from pathlib import Path

REGIONS = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]
NATIONS = [  # (name, region index), the TPC-H list
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
]
SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
SHIP_MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
WORDS = [
    "quickly",
    "furiously",
    "carefully",
    "final",
    "regular",
    "pending",
    "express",
    "ironic",
    "bold",
    "even",
]
FIRST_DAY = date(1992, 1, 1)
LAST_DAY = date(1998, 8, 2)

DDL = """
CREATE TABLE region (r_regionkey INTEGER, r_name VARCHAR, r_comment VARCHAR);
CREATE TABLE nation (n_nationkey INTEGER, n_name VARCHAR, n_regionkey INTEGER, n_comment VARCHAR);
CREATE TABLE customer (c_custkey INTEGER, c_name VARCHAR, c_nationkey INTEGER,
  c_acctbal DECIMAL(12, 2), c_mktsegment VARCHAR, c_comment VARCHAR);
CREATE TABLE supplier (s_suppkey INTEGER, s_name VARCHAR, s_nationkey INTEGER,
  s_acctbal DECIMAL(12, 2), s_comment VARCHAR);
CREATE TABLE orders (o_orderkey INTEGER, o_custkey INTEGER, o_orderstatus VARCHAR,
  o_totalprice DECIMAL(12, 2), o_orderdate DATE, o_orderpriority VARCHAR, o_comment VARCHAR);
CREATE TABLE lineitem (l_orderkey INTEGER, l_linenumber INTEGER, l_suppkey INTEGER,
  l_quantity DECIMAL(12, 2), l_extendedprice DECIMAL(12, 2), l_discount DECIMAL(4, 2),
  l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_shipmode VARCHAR,
  l_comment VARCHAR);
"""


def _comment(rnd: random.Random) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 9)))


def _load(con: object, table: str, rows: list[tuple], folder: Path) -> None:
    """Bulk-load rows through a CSV file: DuckDB's executemany is row by row (minutes)."""
    import csv

    file = folder / f"{table}.csv"
    with file.open("w", newline="", encoding="utf-8") as out:
        csv.writer(out).writerows(rows)
    con.execute(f"COPY {table} FROM '{file}' (HEADER false)")  # type: ignore[attr-defined]


def generate(path: Path, *, orders: int = 3000, seed: int = 7) -> Path:
    """Write the star into a fresh DuckDB file at ``path`` and return it."""
    import tempfile

    import duckdb

    rnd = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    tmp = tempfile.TemporaryDirectory()
    folder = Path(tmp.name)
    try:
        con.execute(DDL)
        _load(con, "region", [(i, name, _comment(rnd)) for i, name in enumerate(REGIONS)], folder)
        _load(
            con,
            "nation",
            [(i, name, reg, _comment(rnd)) for i, (name, reg) in enumerate(NATIONS)],
            folder,
        )
        customers = max(orders // 10, 30)
        _load(
            con,
            "customer",
            [
                (
                    k,
                    f"Customer#{k:09d}",
                    rnd.randrange(len(NATIONS)),
                    round(rnd.uniform(-999, 9999), 2),
                    rnd.choice(SEGMENTS),
                    _comment(rnd),
                )
                for k in range(1, customers + 1)
            ],
            folder,
        )
        suppliers = max(orders // 100, 10)
        _load(
            con,
            "supplier",
            [
                (
                    k,
                    f"Supplier#{k:09d}",
                    rnd.randrange(len(NATIONS)),
                    round(rnd.uniform(-999, 9999), 2),
                    _comment(rnd),
                )
                for k in range(1, suppliers + 1)
            ],
            folder,
        )
        span = (LAST_DAY - FIRST_DAY).days
        order_rows, line_rows = [], []
        for key in range(1, orders + 1):
            odate = FIRST_DAY + timedelta(days=rnd.randrange(span - 130))
            lines, total, statuses = rnd.randint(1, 7), 0.0, set()
            for n in range(1, lines + 1):
                qty = rnd.randint(1, 50)
                price = round(qty * rnd.uniform(900, 2100), 2)
                disc = rnd.randint(0, 10) / 100
                ship = odate + timedelta(days=rnd.randint(1, 121))
                shipped = ship <= date(1995, 6, 17)
                flag = rnd.choice("RA") if shipped else "N"
                status = "F" if shipped else "O"
                statuses.add(status)
                total += price * (1 - disc)
                line_rows.append(
                    (
                        key,
                        n,
                        rnd.randint(1, suppliers),
                        qty,
                        price,
                        disc,
                        flag,
                        status,
                        ship,
                        rnd.choice(SHIP_MODES),
                        _comment(rnd),
                    )
                )
            ostatus = statuses.pop() if len(statuses) == 1 else "P"
            order_rows.append(
                (
                    key,
                    rnd.randint(1, customers),
                    ostatus,
                    round(total, 2),
                    odate,
                    rnd.choice(PRIORITIES),
                    _comment(rnd),
                )
            )
        _load(con, "orders", order_rows, folder)
        _load(con, "lineitem", line_rows, folder)
    finally:
        con.close()
        tmp.cleanup()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--orders", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(generate(args.out, orders=args.orders, seed=args.seed))


if __name__ == "__main__":
    main()
