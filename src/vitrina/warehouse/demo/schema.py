"""DDL of the demo warehouse: the exact table and column names others build the catalog on."""

from __future__ import annotations

SCHEMA = "dwh"
MARKER_TABLE = "_vitrina_demo"

# Creation order = dependency order (dimensions first). Primary keys are declared in the
# CREATE TABLE so that they are real constraints an inspector can read.
TABLE_DDL: dict[str, str] = {
    "dim_region": """
        region_id INTEGER PRIMARY KEY,
        region_name VARCHAR NOT NULL,
        region_name_en VARCHAR NOT NULL,
        federal_district VARCHAR NOT NULL""",
    "dim_calendar": """
        date_day DATE PRIMARY KEY,
        year INTEGER NOT NULL,
        quarter INTEGER NOT NULL,
        month INTEGER NOT NULL,
        month_name VARCHAR NOT NULL,
        iso_week INTEGER NOT NULL,
        week_start DATE NOT NULL,
        day_of_week INTEGER NOT NULL,
        is_weekend BOOLEAN NOT NULL""",
    "dim_client": """
        client_id BIGINT PRIMARY KEY,
        segment VARCHAR NOT NULL,
        client_type VARCHAR NOT NULL,
        client_name VARCHAR NOT NULL,
        region_id INTEGER NOT NULL,
        registered_date DATE NOT NULL,
        gender VARCHAR,
        birth_year INTEGER,
        industry VARCHAR""",
    "dim_merchant": """
        merchant_id INTEGER PRIMARY KEY,
        merchant_name VARCHAR NOT NULL,
        category VARCHAR NOT NULL,
        region_id INTEGER NOT NULL""",
    "dim_wallet": """
        wallet_id BIGINT PRIMARY KEY,
        client_id BIGINT NOT NULL,
        opened_date DATE NOT NULL,
        currency VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        channel VARCHAR NOT NULL""",
    "dim_card": """
        card_id BIGINT PRIMARY KEY,
        client_id BIGINT NOT NULL,
        wallet_id BIGINT NOT NULL,
        issued_date DATE NOT NULL,
        card_type VARCHAR NOT NULL,
        payment_system VARCHAR NOT NULL,
        status VARCHAR NOT NULL""",
    "fact_wallet_opening": """
        wallet_id BIGINT NOT NULL,
        client_id BIGINT NOT NULL,
        region_id INTEGER NOT NULL,
        open_date DATE NOT NULL,
        channel VARCHAR NOT NULL,
        currency VARCHAR NOT NULL""",
    "fact_card_issue": """
        card_id BIGINT NOT NULL,
        client_id BIGINT NOT NULL,
        region_id INTEGER NOT NULL,
        issue_date DATE NOT NULL,
        card_type VARCHAR NOT NULL,
        payment_system VARCHAR NOT NULL""",
    "fact_payment": """
        payment_id BIGINT PRIMARY KEY,
        payment_date DATE NOT NULL,
        payment_ts TIMESTAMP NOT NULL,
        client_id BIGINT NOT NULL,
        wallet_id BIGINT NOT NULL,
        card_id BIGINT,
        merchant_id INTEGER NOT NULL,
        amount_rub DECIMAL(14,2) NOT NULL,
        fee_rub DECIMAL(12,2) NOT NULL,
        status VARCHAR NOT NULL,
        channel VARCHAR NOT NULL""",
    MARKER_TABLE: """
        version VARCHAR NOT NULL,
        seed BIGINT NOT NULL,
        scale DOUBLE NOT NULL,
        built_at TIMESTAMP NOT NULL""",
}

DATA_TABLES: tuple[str, ...] = tuple(t for t in TABLE_DDL if t != MARKER_TABLE)
