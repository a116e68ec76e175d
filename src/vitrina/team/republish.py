"""Publishing a finished build again, and an edited brief as a new version of its dashboard
(issue 31 item 4, decision 207).

Why it works in place: every id of a dashboard bundle is a uuid5 of a key (the dashboard,
each dataset, each chart), and the HTML folder is named by a build id. A re-publish reads
the reviewed `dashboard/` files of the build's main branch and hands them to the same
publishers: the same folder is replaced whole, Superset's import (`overwrite`) updates the
objects of the same UUIDs. An edited brief on a finished build is a new build (its board,
its reviews) whose dashboard is the earlier one's next version: it inherits the key of the
UUIDs and the folder (`dashboard_of`, `dashboard_key`), so nothing is published twice.

>>> next_version({"version": 2}), next_version({})
(3, 2)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vitrina.team.board import BoardStore, Build
from vitrina.team.errors import TeamError
from vitrina.team.publish import DashboardBundle, Publisher, render_html
from vitrina.team.workspace import Workspace


def next_version(result: dict[str, Any]) -> int:
    """The version the next publication of this dashboard gets."""
    return int(result.get("version") or 1) + 1


def dashboard_owner(build: Build) -> int:
    """The build whose id names the dashboard (its folder, its bundle id)."""
    return int(build.result.get("dashboard_of") or build.id)


def uuid_key(build: Build) -> str:
    """The key every UUID of the dashboard derives from."""
    return str(build.result.get("dashboard_key") or build.key)


def lineage(store: BoardStore, build: Build) -> dict[str, Any]:
    """For a new build of a brief file that already has a finished build (the brief was
    edited): the earlier dashboard it versions. Empty when there is none."""
    if not build.brief_path:
        return {}
    earlier = [
        b
        for b in store.builds(limit=10_000)
        if b.id != build.id
        and b.status == "done"
        and b.brief_path == build.brief_path
        and b.out_dir == build.out_dir
    ]
    if not earlier:
        return {}
    last = max(earlier, key=lambda b: b.id)
    return {
        "dashboard_of": dashboard_owner(last),
        "dashboard_key": uuid_key(last),
        "version": next_version(last.result),
        "previous_build": last.id,
    }


def publish_bundle(
    workspace: Workspace, publishers: list[Publisher], version: int
) -> tuple[DashboardBundle, list[dict[str, Any]]]:
    """Main's reviewed dashboard, stamped with its version, to every publisher."""
    names = workspace.files("main", "dashboard")
    files = {n.removeprefix("dashboard/"): workspace.read_bytes("main", n) or b"" for n in names}
    if "dashboard.json" not in files:
        raise TeamError("the build has no dashboard on its main branch: nothing to publish")
    bundle = DashboardBundle.model_validate(json.loads(files["dashboard.json"]))
    bundle = bundle.model_copy(update={"version": version})
    files.update(render_html(bundle))  # the page and its data carry the version
    return bundle, [p.publish(bundle, files).model_dump(mode="json") for p in publishers]


@dataclass
class Republished:
    build_id: int
    version: int
    location: str
    publications: list[dict[str, Any]]


def republish(
    store: BoardStore,
    build_id: int,
    publishers_for: Callable[[Build], list[Publisher]],
    *,
    actor: str = "person",
) -> Republished:
    """Publish a finished build again to its targets, in place; the version goes up."""
    build = store.get_build(build_id)
    if build is None:
        raise TeamError(f"no build {build_id} on this board: `vitrina board list` lists them")
    if build.status != "done":
        brief = build.brief_path or "BRIEF"
        raise TeamError(
            f"build {build_id} is {build.status}, not finished: `vitrina build {brief}` "
            "finishes it, then it can be published again"
        )
    newer = [
        b.id
        for b in store.builds(limit=10_000)
        if b.id > build.id and b.status == "done" and dashboard_owner(b) == dashboard_owner(build)
    ]
    if newer:  # an edited brief published a later version: this one would roll it back
        raise TeamError(
            f"build {build_id}'s dashboard has a newer version from build {max(newer)}: "
            f"`vitrina build --republish {max(newer)}` publishes the latest"
        )
    version = next_version(build.result)
    try:
        bundle, publications = publish_bundle(
            Workspace.open(Path(build.workspace)), publishers_for(build), version
        )
    except TeamError as exc:
        store.audit(build_id=build.id, actor=actor, action="republish", outcome="failed",
                    task_id=None, reason=str(exc)[:500])  # fmt: skip
        raise
    location = publications[0]["location"] if publications else ""
    result = {
        **build.result,
        "location": location,
        "publications": publications,
        "dashboard_uuid": bundle.uuid,
        "version": version,
        "republished_at": time.time(),
    }
    store.update_build(build.id, result=result)
    store.audit(build_id=build.id, actor=actor, action="republish", outcome="done",
                task_id=None, version=version)  # fmt: skip
    return Republished(build.id, version, location, publications)


republish_build = republish  # the public entry's name (`vitrina.team.republish` is this module)
