"""CLI: `vitrina serve` and `vitrina token create|list|revoke`. Thin: parse, build the app, run."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from vitrina.cli_options import CatalogDir, WarehouseUrl

err = Console(stderr=True)

token_app = typer.Typer(
    help="API tokens of `vitrina serve` (stored hashed in the state database).",
    no_args_is_help=True,
)


WORKER_HEALTHCHECK_S = 60  # seconds a worker process may take to answer uvicorn's health ping


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _store():
    from vitrina.config import load_settings
    from vitrina.server.store import Store

    return Store.from_settings(load_settings())


@token_app.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="Who or what the token is for, e.g. 'bi-bot'.")],
    role: Annotated[
        str,
        typer.Option(
            help="viewer (ask only), analyst (also tasks and run_sql) or "
            "admin (also experiments and evaluations)."
        ),
    ] = "analyst",
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            help="A row filter: table.column=value[,value...] over the catalog's columns, "
            "e.g. dim_region.region_name=Москва; repeat for more (all must hold). Every query "
            "of the token reads only those rows (docs/security.md).",
        ),
    ] = None,
    catalog_dir: CatalogDir = None,
) -> None:
    """Create a token; it is printed once, as the last word of the output."""
    from vitrina.server.roles import ROLES
    from vitrina.server.tokens import create_token

    if not name.strip() or len(name) > 200:
        raise _fail("NAME must be 1 to 200 characters")
    if role not in ROLES:
        raise _fail(f"--role must be one of {', '.join(ROLES)}, not {role!r}")
    row_policy = _row_policy(policy or [], catalog_dir)
    store = _store()
    try:
        token = create_token(store, name.strip(), role, row_policy)
    finally:
        store.close()
    if row_policy:
        typer.echo(f"row policy / политика доступа: {row_policy.describe()}")
    typer.echo(
        f"Created token {name.strip()!r}; it is shown only once / токен показан один раз: {token}"
    )


def _row_policy(written: list[str], catalog_dir: Path | None) -> Any:
    """The --policy options checked against the catalog (a clear error naming what is wrong)."""
    if not written:
        return None
    from vitrina.catalog import load_catalog
    from vitrina.catalog.errors import CatalogError
    from vitrina.config import load_settings
    from vitrina.sql.policy import PolicyError, RowPolicy, parse_condition

    try:
        catalog = load_catalog(catalog_dir or load_settings().catalog_dir)
        return RowPolicy(conditions=[parse_condition(text, catalog) for text in written])
    except PolicyError as exc:
        raise _fail(str(exc)) from None
    except CatalogError as exc:
        raise _fail(
            f"--policy needs the catalog / --policy проверяется по каталогу: {exc}"
        ) from None


@token_app.command("list")
def token_list() -> None:
    """List tokens (names and ids; secrets are never stored)."""
    store = _store()
    try:
        for t in store.list_tokens():
            created = datetime.fromtimestamp(t.created_at).isoformat(timespec="seconds")
            state = "revoked" if t.revoked_at else "active"
            typer.echo(f"{t.id}  {state:<7}  {t.role:<7}  {created}  {t.name}{_policy_note(t)}")
    finally:
        store.close()


def _policy_note(record: Any) -> str:
    from vitrina.server.tokens import token_policy

    policy = token_policy(record)
    return f"  policy: {policy.describe()}" if policy else ""


@token_app.command("revoke")
def token_revoke(name: Annotated[str, typer.Argument(help="Token name or id.")]) -> None:
    """Revoke every active token with this name or id."""
    store = _store()
    try:
        count = store.revoke_tokens(name)
    finally:
        store.close()
    if not count:
        raise _fail(f"no active token named {name!r}")
    typer.echo(f"revoked {count} token(s)")


def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="No tokens (loopback hosts only).")
    ] = False,
    db: WarehouseUrl = None,
    catalog: CatalogDir = None,
    docs: Annotated[
        Path | None,
        typer.Option(help="A `vitrina docs` output folder to show (env VITRINA_DOCS_DIR)."),
    ] = None,
    rate_limit: Annotated[
        float, typer.Option(help="Requests per minute per token; 0 switches it off.")
    ] = 120.0,
    burst: Annotated[int, typer.Option(help="Requests a token may make at once.")] = 30,
    max_body: Annotated[int, typer.Option(help="Largest request body, bytes.")] = 64 * 1024,
    workers: Annotated[
        int, typer.Option(help="Server processes (uvicorn workers); about one per CPU core.")
    ] = 1,
    threads: Annotated[
        int, typer.Option(help="Questions answered at the same time in one process.")
    ] = 8,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the web UI and the HTTP API (OpenAPI at /openapi.json)."""
    import os

    import uvicorn

    from vitrina.config import load_settings
    from vitrina.server.app import create_app
    from vitrina.server.options import OPTIONS_ENV, ServeOptions, docs_dir_from_env, options_to_env
    from vitrina.warehouse.demo import ensure_demo_warehouse

    options = ServeOptions(
        host=host,
        port=port,
        auth=not no_auth,
        max_body_bytes=max_body,
        rate_per_minute=rate_limit,
        burst=burst,
        workers=max(1, workers),
        threads=max(1, threads),
        docs_dir=docs or docs_dir_from_env(),
    )
    try:
        options.check()
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if catalog is not None and not catalog.exists():
        raise _fail(f"catalog folder not found: {catalog}")
    settings = load_settings(db_url=db, catalog_dir=catalog)
    if not settings.db_url:
        ensure_demo_warehouse(settings.demo_db_path)
    where = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    err.print(
        f"Vitrina on {where} · auth {'on' if options.auth else 'off (loopback)'} · "
        f"{options.workers} process(es) x {options.threads} turn(s)",
        highlight=False,
    )
    if options.workers == 1:
        uvicorn.run(
            create_app(settings, options),
            host=host,
            port=port,
            log_level=log_level,
            timeout_graceful_shutdown=5,
        )
        return
    # several processes: each worker builds its own app from the environment (uvicorn's factory)
    if db:
        os.environ["VITRINA_DB_URL"] = db
    if catalog is not None:
        os.environ["VITRINA_CATALOG_DIR"] = str(catalog.resolve())
    os.environ[OPTIONS_ENV] = options_to_env(options)
    if settings.duckdb_threads is None:  # the workers share the cores: a DuckDB pool each
        os.environ["VITRINA_DUCKDB_THREADS"] = str(max(1, (os.cpu_count() or 1) // options.workers))
    from vitrina.server import workers as worker_processes

    if worker_processes.supported():  # a socket per worker: connections spread by the kernel
        try:
            worker_processes.check_port_free(host, port)
            worker_processes.Supervisor(
                host,
                port,
                options.workers,
                {"log_level": log_level, "timeout_graceful_shutdown": 5},
            ).run()
        except worker_processes.WorkersError as exc:
            raise _fail(str(exc)) from None
        return
    # a worker busy with turns may hold the GIL past uvicorn's 5 s health check on a loaded
    # machine and be killed mid-request: give it longer before it counts as hung
    uvicorn.run(
        worker_processes.APP,
        factory=True,
        workers=options.workers,
        host=host,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=5,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
    )


def register(app: typer.Typer) -> None:
    """Add `serve` and `token` to the Vitrina CLI."""
    app.command("serve")(serve_command)
    app.add_typer(token_app, name="token")
