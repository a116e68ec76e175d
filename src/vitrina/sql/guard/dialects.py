"""Per-dialect settings of the guard, as constants (like ``sqlglot/dialects/*.py``).

The deny-lists here are a second belt: what a query may call is decided by the allow-list
in :mod:`vitrina.sql.guard.allowed_functions`; a denied name only gets a message that
says why it is dangerous. Function names are lower-case and matched case-insensitively;
a prefix entry denies every function whose name starts with it. A dialect the guard does
not know gets the union of all lists: being unknown must not make it laxer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DenyList:
    """Function names that may not appear anywhere in a query."""

    names: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()

    def denies(self, name: str) -> bool:
        name = name.lower()
        return name in self.names or name.startswith(self.prefixes)

    def __or__(self, other: DenyList) -> DenyList:
        return DenyList(self.names | other.names, self.prefixes + other.prefixes)


# Sleep, shell and cross-engine classics: denied in every dialect.
GENERIC = DenyList(
    names=frozenset(
        {"system", "shell", "exec", "execute", "xp_cmdshell", "sys_exec", "sys_eval"}
        | {"load_file", "benchmark", "waitfor", "dbms_lock", "dbms_pipe"}
    ),
    prefixes=("sleep",),
)

# DuckDB: file and network readers (also behind httpfs/s3 URLs), other engines' scanners,
# functions that run SQL text or touch secrets, settings and checkpoints.
DUCKDB = DenyList(
    names=frozenset(
        {"glob", "sniff_csv", "query", "query_table", "getenv", "load_aws_credentials"}
        | {"which_secret", "checkpoint", "force_checkpoint", "arrow_scan", "seq_scan"}
        | {"json_execute_serialized_sql", "enable_profiling", "disable_profiling", "st_read"}
        | {"from_csv_auto", "from_parquet", "install_extension", "load_extension"}
    ),
    prefixes=(
        # read_csv, read_csv_auto, read_parquet, read_json*, read_ndjson*, read_text, read_blob,
        # read_xlsx
        "read_",
        "parquet_",  # parquet_scan, parquet_metadata, parquet_schema, ...
        "iceberg_",
        "delta_",
        "sqlite_",
        "postgres_",  # postgres_scan, postgres_query, postgres_execute
        "mysql_",
        "httpfs",
        "s3_",
    ),
)

# PostgreSQL: server files, large objects, other servers, sleeps, backends, settings,
# transaction ids and advisory locks, XML exporters that run SQL text, sequence writers.
POSTGRES = DenyList(
    names=frozenset(
        {"set_config", "nextval", "setval", "ts_stat", "loread", "lowrite", "pg_current_xact_id"}
        | {"pg_notify", "pg_promote", "pg_export_snapshot", "pg_import_system_collations"}
    ),
    prefixes=(
        "pg_read_",  # pg_read_file, pg_read_binary_file
        "pg_ls_",  # pg_ls_dir, pg_ls_logdir, pg_ls_waldir, ...
        "pg_stat_file",
        "pg_file_",  # adminpack writers
        "lo_",  # lo_import, lo_export, lo_unlink, ...
        "dblink",  # dblink, dblink_exec, dblink_connect, ...
        "pg_sleep",  # pg_sleep, pg_sleep_for, pg_sleep_until
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_advisory",
        "pg_try_advisory",
        "txid_",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_switch_wal",
        "pg_create_",
        "pg_drop_replication",
        "pg_replication_origin",
        "pg_logical_",
        "pg_stat_reset",
        "pg_stat_statements_reset",
        "pg_backup_",
        "pg_wal_replay",
        "pg_log_backend",
        "query_to_xml",  # query_to_xml, query_to_xml_and_xmlschema, query_to_xmlschema
        "table_to_xml",
        "cursor_to_xml",
        "schema_to_xml",
        "database_to_xml",
    ),
)

# MariaDB / MySQL: named locks and replication waits (they block or signal across
# sessions), UDF shells, error-based exfiltration classics; LOAD_FILE, SLEEP and BENCHMARK
# are GENERIC. User variables (@x), INTO OUTFILE/DUMPFILE are refused by other rules.
MYSQL = DenyList(
    names=frozenset(
        {"get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock"}
        | {"master_pos_wait", "master_gtid_wait", "source_pos_wait", "name_const"}
        | {"wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids"}
        | {"extractvalue", "updatexml", "load_data", "sys_get", "sys_set"}
    ),
    prefixes=("sys_",),
)

# SQL Server: shells and extended procedures, other servers and files as row sources,
# system functions that read trace, audit and log files.
TSQL = DenyList(
    names=frozenset(
        {"openrowset", "openquery", "opendatasource", "openxml", "bulk", "waitfor"}
        | {"fn_dblog", "fn_dump_dblog", "fn_trace_gettable", "fn_get_audit_file"}
        | {"fn_xe_file_target_read_file", "fn_virtualfilestats", "pwdcompare", "pwdencrypt"}
    ),
    prefixes=("xp_", "sp_"),
)

# Trino: pass-through table functions run their text on the connector's database.
TRINO = DenyList(names=frozenset({"query", "raw_query", "exclude_columns"}))

# ClickHouse: table functions that read files, URLs, object stores, other servers and
# engines, or run programs; dictionary reads (a dictionary's source can be any of those);
# row generators; settings and server facts. readonly=1 refuses most at the engine too.
CLICKHOUSE = DenyList(
    names=frozenset(
        {"url", "urlcluster", "file", "filecluster", "input", "executable", "jdbc", "odbc"}
        | {"mysql", "postgresql", "mongodb", "redis", "sqlite", "remote", "remotesecure"}
        | {"cluster", "clusterallreplicas", "merge", "loop", "view", "viewifpermitted"}
        | {"generaterandom", "numbers", "numbers_mt", "zeros", "zeros_mt", "null", "format"}
        | {"getsetting", "getsettingordefault", "getmacro", "getserverport", "filesystemavailable"}
        | {"filesystemcapacity", "filesystemunreserved", "hostname", "fqdn", "throwif"}
        | {"sleep", "sleepeachrow", "currentprofiles", "currentroles", "initialqueryid"}
    ),
    prefixes=(
        "dict",  # dictGet*, dictHas, dictionary(): a dictionary reads its own source
        "s3",  # s3, s3Cluster
        "gcs",
        "oss",
        "cos",
        "azure",  # azureBlobStorage, azureBlobStorageCluster
        "hdfs",  # hdfs, hdfsCluster
        "iceberg",  # iceberg, icebergS3, icebergLocal, ...
        "deltalake",
        "hudi",
        "arrowflight",
        "ytsaurus",
        "fuzz",  # fuzzJSON, fuzzQuery
        "joinget",
    ),
)

DENY_LISTS: dict[str, DenyList] = {
    "duckdb": GENERIC | DUCKDB,
    "postgres": GENERIC | POSTGRES,
    "mysql": GENERIC | MYSQL,
    "tsql": GENERIC | TSQL,
    "trino": GENERIC | TRINO,
    "clickhouse": GENERIC | CLICKHOUSE,
}
UNKNOWN_DIALECT = GENERIC | DUCKDB | POSTGRES | MYSQL | TSQL | TRINO | CLICKHOUSE

# System catalogs: schemas and catalogs that are off limits, and name prefixes that an
# unqualified table (or table function) resolves into the system catalog with.
# MySQL's mysql, performance_schema and sys databases; SQL Server's sys schema and its
# system databases (master.dbo.x); Trino's system catalog.
SYSTEM_SCHEMAS = frozenset(
    {"information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys"}
)
SYSTEM_SCHEMA_PREFIXES = ("pg_temp", "pg_toast")
SYSTEM_CATALOGS = frozenset({"system", "temp", "master", "msdb", "tempdb", "model"})
SYSTEM_NAME_PREFIXES = ("pg_", "duckdb_", "sqlite_", "pragma_")


def deny_list(dialect: str) -> DenyList:
    """The deny-list for ``dialect`` (the union of all for a dialect not listed here)."""
    return DENY_LISTS.get(dialect.lower(), UNKNOWN_DIALECT)
