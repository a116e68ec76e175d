"""A local fake of a 1C infobase's standard OData interface, for tests (no network).

It answers GET requests under /<base>/odata/standard.odata/ the way the platform does: JSON
with a `value` list; a register's virtual table as `<EntitySet>/<Function>(args)`; predefined
items by `$filter=PredefinedDataName eq '...'`; anything else 404. Every request is recorded.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

KEYS = {("Catalog_Склады", "ОсновнойСклад"): "11111111-2222-3333-4444-555555555555"}
ROWS = {
    "AccumulationRegister_ТоварыНаСкладах/Balance": [
        {
            "Номенклатура": {"Description": "Гвозди"},
            "Номенклатура_Key": "a1",
            "КоличествоBalance": 120,
        },
        {
            "Номенклатура": {"Description": "Шурупы"},
            "Номенклатура_Key": "a2",
            "КоличествоBalance": 35.5,
        },
    ],
}


class FakeInfobase:
    def __init__(self, base: str = "trade") -> None:
        self.base = base
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                parts = urlsplit(self.path)
                path, query = unquote(parts.path), parse_qs(parts.query)
                owner.requests.append((path, query))
                prefix = f"/{owner.base}/odata/standard.odata/"
                if not path.startswith(prefix) or query.get("$format") != ["json"]:
                    return self._send(404, {"odata.error": {"message": {"value": "not found"}}})
                entity = path[len(prefix) :]
                if "PredefinedDataName" in (query.get("$filter") or [""])[0]:
                    item = query["$filter"][0].split("'")[1]
                    key = KEYS.get((entity, item))
                    return self._send(200, {"value": [{"Ref_Key": key}] if key else []})
                head = entity.split("(", 1)[0]
                if head in ROWS:
                    return self._send(200, {"odata.metadata": "...", "value": ROWS[head]})
                return self._send(
                    404, {"odata.error": {"message": {"value": f"{head}: no such entity set"}}}
                )

            def _send(self, status, body):
                data = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json;charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/{base}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeInfobase:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
