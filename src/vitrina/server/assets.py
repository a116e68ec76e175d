"""Front-end libraries of the web UI: installed from the npm registry, never fetched at run time.

``python -m vitrina.server.assets`` runs ``npm ci --ignore-scripts`` in ``web/`` (versions
pinned by package-lock.json) and copies the prebuilt browser files into ``static/vendor/``
(git-ignored), where the app serves them. Without them the page says what to run.
axe-core is copied the same way for the accessibility test only: no page loads it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
VENDOR_DIR = STATIC_DIR / "vendor"
WEB_DIR = Path(__file__).resolve().parents[3] / "web"  # the source tree's web/ (absent in a wheel)

# file served from static/vendor/  ->  (npm package, file inside it)
VENDOR_FILES: dict[str, tuple[str, str]] = {
    "chart.umd.min.js": ("chart.js", "dist/chart.umd.min.js"),
    "mermaid.min.js": ("mermaid", "dist/mermaid.min.js"),
    "axe.min.js": ("axe-core", "axe.min.js"),
}
LIBRARY_OF = {"chart.umd.min.js": "chartjs", "mermaid.min.js": "mermaid"}  # what pages load
AXE_FILE = VENDOR_DIR / "axe.min.js"  # injected by tests/server/test_accessibility.py


def vendor_status() -> dict[str, bool]:
    """Which libraries the page can load: {"chartjs": bool, "mermaid": bool}."""
    return {lib: (VENDOR_DIR / name).is_file() for name, lib in LIBRARY_OF.items()}


def install(
    web_dir: Path = WEB_DIR, vendor_dir: Path = VENDOR_DIR, *, npm: str = "npm"
) -> dict[str, str]:
    """npm ci in ``web_dir``, then copy the pinned dist files; returns {file: version}."""
    if not (web_dir / "package-lock.json").is_file():
        raise FileNotFoundError(
            f"{web_dir / 'package-lock.json'} not found: run this from a source checkout"
        )
    if shutil.which(npm) is None:
        raise FileNotFoundError("npm not found: install Node.js 20+ (it includes npm)")
    subprocess.run(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=web_dir, check=True
    )
    vendor_dir.mkdir(parents=True, exist_ok=True)
    versions: dict[str, str] = {}
    for target, (package, inner) in VENDOR_FILES.items():
        source = web_dir / "node_modules" / package / inner
        shutil.copyfile(source, vendor_dir / target)
        meta = json.loads(
            (web_dir / "node_modules" / package / "package.json").read_text(encoding="utf-8")
        )
        versions[target] = f"{package}@{meta['version']}"
        license_file = web_dir / "node_modules" / package / "LICENSE"
        if license_file.is_file():
            shutil.copyfile(license_file, vendor_dir / f"{package}.LICENSE")
    (vendor_dir / "versions.json").write_text(
        json.dumps(versions, indent=2) + "\n", encoding="utf-8"
    )
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vitrina.server.assets", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--web", type=Path, default=WEB_DIR, help="folder with package.json and package-lock.json"
    )
    parser.add_argument(
        "--check", action="store_true", help="only report whether the files are installed"
    )
    args = parser.parse_args(argv)
    if args.check:
        status = vendor_status()
        print(json.dumps(status))
        return 0 if all(status.values()) else 1
    try:
        versions = install(args.web)
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for target, version in versions.items():
        print(f"{version} -> {VENDOR_DIR / target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
