"""A small client of Apache Superset's REST API: log in, import a bundle, look up, verify.

Superset answers with JSON; every call that fails raises `SupersetError` with the method,
the path, the HTTP status and Superset's own message, so a failed publish says what
Superset refused. Ids are looked up by what the bundle controls (the dashboard's slug, the
datasets' table names, the charts' UUIDs), never guessed.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx

from vitrina.team.errors import TeamError

PAGE_SIZE = 100
MAX_PAGES = 50  # a listing reads at most this many pages


class SupersetError(TeamError):
    """Superset refused a call, or answered something we cannot read."""


def rison_filter(column: str, value: str, opr: str = "eq") -> str:
    """A list query's ``q`` argument (Superset reads rison); the value is quoted for it.

    >>> rison_filter("table_name", "a'b")
    "(filters:!((col:table_name,opr:eq,value:'a!'b')),page:0,page_size:100)"
    """
    escaped = value.replace("!", "!!").replace("'", "!'")
    return f"(filters:!((col:{column},opr:{opr},value:'{escaped}')),page:0,page_size:{PAGE_SIZE})"


class SupersetClient:
    """One logged-in session (a JWT and the CSRF token the write calls need)."""

    def __init__(self, url: str, username: str, password: str, *, timeout_s: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.username = username
        self._password = password
        self.http = httpx.Client(base_url=self.url, timeout=timeout_s, follow_redirects=False)
        self._logged_in = False

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> SupersetClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the session ---------------------------------------------------------------------------
    def login(self) -> None:
        answer = self._call(
            "POST",
            "/api/v1/security/login",
            json={
                "username": self.username,
                "password": self._password,
                "provider": "db",
                "refresh": False,
            },
            auth=False,
        )
        token = answer.get("access_token")
        if not token:
            raise SupersetError("Superset's login answered without an access token")
        self.http.headers["Authorization"] = f"Bearer {token}"
        csrf = self._call("GET", "/api/v1/security/csrf_token/", auth=False).get("result")
        if csrf:
            self.http.headers["X-CSRFToken"] = csrf
            self.http.headers["Referer"] = self.url + "/"
        self._logged_in = True

    def _call(self, method: str, path: str, *, auth: bool = True, **kwargs: Any) -> dict[str, Any]:
        if auth and not self._logged_in:
            self.login()
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise SupersetError(f"Superset at {self.url} cannot be reached: {exc}") from exc
        if response.status_code >= 400:
            raise SupersetError(
                f"{method} {path}: HTTP {response.status_code}: {_message(response)}",
            )
        try:
            return response.json()
        except ValueError as exc:
            raise SupersetError(f"{method} {path}: the answer is not JSON") from exc

    def status(self, method: str, path: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON) without raising: the verification reads failures as findings."""
        if not self._logged_in:
            self.login()
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            return 0, {"message": str(exc)}
        try:
            body = response.json()
        except ValueError:
            body = {"message": response.text[:300]}
        return response.status_code, body if isinstance(body, dict) else {"result": body}

    # import ----------------------------------------------------------------------------------
    def import_bundle(
        self, kind: str, archive: bytes, *, passwords: dict[str, str] | None = None
    ) -> None:
        """POST the ZIP to /api/v1/<kind>/import/ with overwrite (a re-publish updates)."""
        self._call(
            "POST",
            f"/api/v1/{kind}/import/",
            files={"formData": ("bundle.zip", archive, "application/zip")},
            data={"overwrite": "true", "passwords": json.dumps(passwords or {})},
        )

    # look-ups --------------------------------------------------------------------------------
    def find(self, kind: str, column: str, value: str) -> list[dict[str, Any]]:
        """Every object of ``kind`` whose ``column`` equals ``value``."""
        answer = self._call("GET", f"/api/v1/{kind}/?q={quote(rison_filter(column, value))}")
        return list(answer.get("result") or [])

    def get(self, kind: str, key: int | str) -> dict[str, Any]:
        return dict(self._call("GET", f"/api/v1/{kind}/{key}").get("result") or {})

    def dashboard_charts(self, dashboard_id: int) -> list[dict[str, Any]]:
        return list(
            self._call("GET", f"/api/v1/dashboard/{dashboard_id}/charts").get("result") or []
        )

    def databases(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for page in range(MAX_PAGES):
            q = quote(f"(page:{page},page_size:{PAGE_SIZE})")
            result = self._call("GET", f"/api/v1/database/?q={q}").get("result") or []
            out.extend(result)
            if len(result) < PAGE_SIZE:
                break
        return out

    def put(self, kind: str, key: int, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("PUT", f"/api/v1/{kind}/{key}", json=body)


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    if isinstance(body, dict):
        for key in ("message", "msg", "error", "errors"):
            if key in body:
                return json.dumps(body[key], ensure_ascii=False)[:600]
    return json.dumps(body, ensure_ascii=False)[:600]
