"""Vitrina's own HTML dashboard: static files, Chart.js from the local assets, never a CDN.

`render_html` turns a bundle into files: ``index.html`` (the data embedded, opens from disk
or any static server), ``app.html`` (the same page without data: under `vitrina serve` it
fetches ``dashboard.json`` with the reader's API token), ``dashboard.json`` and ``assets/``.
A Content-Security-Policy allows scripts, styles and data only from the page's own origin.
`HtmlPublisher` writes the files into folders, replacing an earlier publication whole.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from vitrina.team.errors import TeamError
from vitrina.team.publish.bundle import DashboardBundle, Publication

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)
ASSETS = ("dashboard.js", "dashboard.css")
# Chart.js comes from the npm registry at install time (`make assets`, web/package-lock.json) and
# lives with the web app's other vendored files; it is copied next to every dashboard.
CHARTJS = ("server", "static", "vendor", "chart.umd.min.js")
_ENV = Environment(
    loader=PackageLoader("vitrina.team.publish", "templates"),
    autoescape=select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def chartjs_source() -> bytes:
    path = resources.files("vitrina").joinpath(*CHARTJS)
    if not path.is_file():
        raise TeamError(
            "Chart.js is not installed next to Vitrina: run `make assets` "
            "(npm ci in web/ copies it into src/vitrina/server/static/vendor/)"
        )
    return path.read_bytes()


def _page(bundle: DashboardBundle, *, embedded: bool) -> bytes:
    template = _ENV.get_template("dashboard.html.j2")
    return template.render(
        bundle=bundle,
        csp=CSP,
        embedded=embedded,
        data=bundle.model_dump(mode="json") if embedded else None,
    ).encode("utf-8")


def render_html(bundle: DashboardBundle) -> dict[str, bytes]:
    """Every file of the dashboard, by its path inside the dashboard folder."""
    files = {
        "index.html": _page(bundle, embedded=True),
        "app.html": _page(bundle, embedded=False),
        "dashboard.json": json.dumps(
            bundle.model_dump(mode="json"), ensure_ascii=False, indent=1
        ).encode("utf-8"),
        "assets/chart.umd.min.js": chartjs_source(),
    }
    static = resources.files("vitrina.team.publish").joinpath("static")
    for name in ASSETS:
        files[f"assets/{name}"] = static.joinpath(name).read_bytes()
    return files


class HtmlPublisher:
    """Writes the dashboard's files into each folder (the --out folder, the served folder)."""

    target = "html"

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders

    def publish(self, bundle: DashboardBundle, files: dict[str, bytes]) -> Publication:
        for folder in self.folders:
            folder.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".publish-", dir=folder.parent))
            for name, data in files.items():
                path = staging / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            if folder.exists():
                old = folder.with_name(folder.name + ".old")
                shutil.rmtree(old, ignore_errors=True)
                folder.rename(old)
                staging.rename(folder)
                shutil.rmtree(old, ignore_errors=True)
            else:
                staging.rename(folder)
        return Publication(
            target=self.target,
            dashboard_uuid=bundle.uuid,
            location=str(self.folders[0] / "index.html") if self.folders else "",
            files=sorted(files),
        )
