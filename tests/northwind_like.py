"""A Northwind-shaped warehouse written for the `catalog init` tests: an orders header with
its order_details lines (no date of their own), employees with birth and hire dates, postal
codes, home phones and extensions, lookups with one text column (region, shippers) and one
with a prose description beside its name (categories). Rows are generated, deterministic."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

DDL = [
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.region (region_id INTEGER PRIMARY KEY, region_description VARCHAR(50))",
    "CREATE TABLE {s}.territories (territory_id VARCHAR(20) PRIMARY KEY, "
    "territory_description VARCHAR(50), region_id INTEGER REFERENCES {s}.region)",
    "CREATE TABLE {s}.categories (category_id INTEGER PRIMARY KEY, category_name VARCHAR(15), "
    "description VARCHAR(200))",
    "CREATE TABLE {s}.shippers (shipper_id INTEGER PRIMARY KEY, company_name VARCHAR(40), "
    "phone VARCHAR(24))",
    "CREATE TABLE {s}.employees (employee_id INTEGER PRIMARY KEY, last_name VARCHAR(20), "
    "first_name VARCHAR(10), title VARCHAR(30), birth_date DATE, hire_date DATE, "
    "city VARCHAR(15), region VARCHAR(15), postal_code VARCHAR(10), country VARCHAR(15), "
    "home_phone VARCHAR(24), extension VARCHAR(4), reports_to INTEGER)",
    "CREATE TABLE {s}.employee_territories (employee_id INTEGER REFERENCES {s}.employees, "
    "territory_id VARCHAR(20) REFERENCES {s}.territories, PRIMARY KEY (employee_id, territory_id))",
    "CREATE TABLE {s}.customers (customer_id VARCHAR(5) PRIMARY KEY, company_name VARCHAR(40), "
    "contact_name VARCHAR(30), city VARCHAR(15), postal_code VARCHAR(10), country VARCHAR(15), "
    "phone VARCHAR(24), fax VARCHAR(24))",
    "CREATE TABLE {s}.products (product_id INTEGER PRIMARY KEY, product_name VARCHAR(40), "
    "category_id INTEGER REFERENCES {s}.categories, unit_price NUMERIC(10,2), "
    "units_in_stock INTEGER)",
    "CREATE TABLE {s}.orders (order_id INTEGER PRIMARY KEY, customer_id VARCHAR(5) "
    "REFERENCES {s}.customers, employee_id INTEGER REFERENCES {s}.employees, order_date DATE, "
    "required_date DATE, shipped_date DATE, ship_via INTEGER REFERENCES {s}.shippers, "
    "freight NUMERIC(10,2), ship_city VARCHAR(15), ship_postal_code VARCHAR(10))",
    "CREATE TABLE {s}.order_details (order_id INTEGER REFERENCES {s}.orders, "
    "product_id INTEGER REFERENCES {s}.products, unit_price NUMERIC(10,2), quantity INTEGER, "
    "discount REAL, PRIMARY KEY (order_id, product_id))",
]
REGIONS = ["Eastern", "Western", "Northern", "Southern"]
CATEGORIES = ["Beverages", "Condiments", "Confections", "Dairy Products", "Grains/Cereals",
              "Meat/Poultry", "Produce", "Seafood"]  # fmt: skip
SHIPPERS = ["Speedy Express", "United Package", "Federal Shipping"]
CITIES = ["Seattle", "Tacoma", "Kirkland", "Redmond", "London"]
COUNTRIES = ["USA", "UK", "Germany", "France", "Brazil"]


def rows() -> dict[str, list[tuple]]:
    region = [(i + 1, name) for i, name in enumerate(REGIONS)]
    territories = [(f"{1730 + i * 7:05d}", f"Territory {i}", 1 + i % 4) for i in range(12)]
    categories = [
        (i + 1, name, f"{name}: everything we sell of this kind, described at length for buyers")
        for i, name in enumerate(CATEGORIES)
    ]
    shippers = [(i + 1, name, f"(503) 555-{9831 + i:04d}") for i, name in enumerate(SHIPPERS)]
    employees = [
        (i, f"Last{i}", f"First{i}", ["Sales Representative", "Sales Manager"][i % 2],
         date(1950 + i * 3, 1 + i, 1 + i), date(1992 + i % 3, 1 + i, 10), CITIES[i % 5],
         ["WA", "WA", "WA", "OR", "London"][i % 5], f"98{100 + i * 11:03d}", COUNTRIES[i % 2],
         f"(206) 555-{1000 + i * 37:04d}", f"{3000 + i * 417}", None if i == 2 else 2)
        for i in range(1, 10)
    ]  # fmt: skip
    employee_territories = [(1 + i % 9, territories[i][0]) for i in range(12)]
    customers = [
        (f"C{i:04d}", f"Company {i}", f"Contact {i}", CITIES[i % 5], f"{10000 + i * 97}",
         COUNTRIES[i % 5], f"030-{5550000 + i}", f"030-{5560000 + i}")
        for i in range(1, 41)
    ]  # fmt: skip
    products = [
        (i, f"Product {i}", 1 + i % 8, round(5 + (i * 7) % 60 + 0.25, 2), (i * 13) % 120)
        for i in range(1, 31)
    ]
    orders, details = [], []
    for i in range(1, 401):
        day = date(1996, 7, 4) + timedelta(days=(i * 37) % 670)
        orders.append(
            (10247 + i, f"C{1 + (i * 7) % 40:04d}", 1 + i % 9, day, day + timedelta(days=28),
             day + timedelta(days=3 + i % 9), 1 + i % 3, round(1 + (i * 29) % 300 + 0.5, 2),
             CITIES[i % 5], f"{10000 + (i * 97) % 4000}")
        )  # fmt: skip
        for k in range(1 + i % 3):
            product = 1 + (i * 11 + k * 5) % 30
            details.append(
                (10247 + i, product, round(5 + (product * 7) % 60 + 0.25, 2), 1 + (i + k) % 20,
                 [0.0, 0.05, 0.1][k % 3])
            )  # fmt: skip
    return {
        "region": region,
        "territories": territories,
        "categories": categories,
        "shippers": shippers,
        "employees": employees,
        "employee_territories": employee_territories,
        "customers": customers,
        "products": products,
        "orders": orders,
        "order_details": details,
    }


def create(execute: Callable[[str, tuple | None], object], schema: str) -> None:
    """Create and fill the schema through `execute(sql, params)` (placeholders `%s`)."""
    for ddl in DDL:
        execute(ddl.format(s=schema), None)
    for table, data in rows().items():
        marks = ", ".join(["%s"] * len(data[0]))
        for row in data:
            execute(f"INSERT INTO {schema}.{table} VALUES ({marks})", row)
