"""Downloads named by the question and the run's date, not by a run id (issue 34, item 6):
characters a file system refuses are dropped; the name is sent UTF-8 encoded."""

from __future__ import annotations

import re
from urllib.parse import unquote

from vitrina.server.views.runs import file_base

from .helpers import ask, new_thread

QUESTION = "Количество платежей по месяцам в 2025 году"


def _name(disposition: str) -> str:
    found = re.search(r"filename\*=utf-8''([^;]+)", disposition)
    assert found, disposition
    return unquote(found.group(1))


def test_downloads_are_named_by_question_and_date(client, auth):
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, QUESTION)[-1]["run_id"]
    for kind, ext in (("excel", "xlsx"), ("csv", "csv"), ("parquet", "parquet")):
        resp = client.get(f"/api/runs/{run_id}/{kind}", headers=auth)
        assert resp.status_code == 200, resp.text
        name = _name(resp.headers["content-disposition"])
        assert re.fullmatch(rf"{QUESTION} \d{{4}}-\d\d-\d\d\.{ext}", name), name
        assert run_id not in name


def test_unsafe_characters_are_dropped():
    assert file_base('Платежи / по месяцам: "2025"?\n') == "Платежи по месяцам 2025"
    assert len(file_base("слово " * 40)) <= 80
    assert file_base("///") == ""  # the caller falls back to the run id
