"""The task board's tables (SQLAlchemy Core): one schema for SQLite and PostgreSQL.

Unique keys carry the idempotency of the primitives: a task, a review (parent, reviewer,
round), a verdict, a marker ("merged", "amendments applied") or an attachment written
twice is found, not duplicated, even when two processes race or a crashed run restarts.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

builds = Table(
    "team_builds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(128), nullable=False, unique=True),  # brief digest + output folder
    Column("title", Text, nullable=False),
    Column("brief", Text, nullable=False),  # the brief's source text, as given
    Column("brief_path", Text, nullable=True),
    Column("status", String(16), nullable=False),  # running, done, blocked
    Column("phase", String(32), nullable=False),
    Column("workspace", Text, nullable=False),  # the git workspace of the artifacts
    Column("out_dir", Text, nullable=True),
    Column("result", Text, nullable=True),  # JSON: published dashboard, reason of a block
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)

tasks = Table(
    "team_tasks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("build_id", Integer, ForeignKey("team_builds.id"), nullable=False),
    Column("key", String(200), nullable=False),  # idempotency key inside the build
    Column("kind", String(16), nullable=False),  # work, review, blocker
    Column("title", Text, nullable=False),
    Column("body", Text, nullable=False, default=""),
    Column("status", String(16), nullable=False),
    Column("role", String(32), nullable=False),  # the role assigned
    Column("phase", String(32), nullable=False),
    Column("step", String(32), nullable=False),  # the chain step (work) or the reviewed step
    Column("parent_id", Integer, ForeignKey("team_tasks.id"), nullable=True),
    Column("round", Integer, nullable=False, default=1),
    Column("branch", String(200), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    UniqueConstraint("build_id", "key", name="uq_team_tasks_key"),
    Index("ix_team_tasks_build", "build_id", "id"),
    Index("ix_team_tasks_parent", "parent_id"),
)

comments = Table(
    "team_comments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("task_id", Integer, ForeignKey("team_tasks.id"), nullable=False),
    Column("key", String(200), nullable=False),
    Column("author", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("handoff", Text, nullable=True),  # JSON of the parsed HANDOFF block
    Column("verdict", Text, nullable=True),  # JSON of the parsed VERDICT block
    Column("problems", Text, nullable=False, default="[]"),  # JSON: why the blocks did not parse
    Column("round", Integer, nullable=False, default=1),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("task_id", "key", name="uq_team_comments_key"),
    Index("ix_team_comments_task", "task_id", "id"),
)

markers = Table(
    "team_markers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("task_id", Integer, ForeignKey("team_tasks.id"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("round", Integer, nullable=False),
    Column("value", Text, nullable=False, default=""),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("task_id", "name", "round", name="uq_team_markers"),
)

attachments = Table(
    "team_attachments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("task_id", Integer, ForeignKey("team_tasks.id"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("path", Text, nullable=False),
    Column("media_type", String(64), nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("task_id", "name", name="uq_team_attachments"),
)

audit = Table(
    "team_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("build_id", Integer, nullable=False),
    Column("task_id", Integer, nullable=True),
    Column("actor", String(32), nullable=False),
    Column("action", String(40), nullable=False),
    Column("outcome", String(16), nullable=False),  # done, noop, denied, invalid
    Column("detail", Text, nullable=False, default="{}"),
    Column("at", Float, nullable=False),
    Index("ix_team_audit_build", "build_id", "id"),
)
