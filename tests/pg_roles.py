"""A read-only PostgreSQL role of a test's own: roles are server-wide, tests run side by side."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg

from vitrina.warehouse.reader_role import create_reader_role


def reader_role(admin_url: str, schemas: list[str]) -> Iterator[str]:
    """Yield the URL of a new reader role on ``admin_url``'s database; drop it afterwards."""
    role = f"vitrina_test_reader_{uuid.uuid4().hex[:8]}"
    yield create_reader_role(admin_url, schemas, role=role)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (role,)
        )
        admin.execute(f'DROP OWNED BY "{role}"')  # its grants in this database
        admin.execute(f'DROP ROLE "{role}"')
