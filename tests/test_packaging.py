"""Project promises that are not about behaviour: a UI-free engine, a matching conda file, and
bundled sample photos."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import tomllib
from PIL import Image

from augexplorer.data import samples_dir

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_engine_loads_no_ui_or_plotting_package() -> None:
    code = (
        "import sys, augexplorer, augexplorer.render, augexplorer.cli; "
        "print(','.join(m for m in ('ipywidgets', 'matplotlib', 'IPython', 'anywidget', 'traitlets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_every_package_is_in_the_wheel() -> None:
    """pyproject lists the packages a wheel holds: a sub-package left out imports in an editable
    checkout and is missing from a real install."""
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "augexplorer").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
    assert "augexplorer_widgets" in listed


def test_every_data_file_is_in_the_wheel() -> None:
    """A wheel holds only the data files pyproject's package-data names (include-package-data is
    off): a new page script or sample photo that no pattern matches is missing from a real
    install, as the license files it names would be."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["include-package-data"] is False
    for package, folder in setuptools["package-dir"].items():
        patterns = setuptools["package-data"][package]
        files = [p.relative_to(ROOT / folder) for p in (ROOT / folder).rglob("*") if p.is_file()]
        data = [
            path
            for path in files
            if path.suffix != ".py"
            # caches a run leaves (bytecode, numba's compiled loops), not the package's files
            and not any(part == "__pycache__" or part.startswith(".") for part in path.parts)
        ]
        assert data, folder
        unlisted = [str(path) for path in data if not any(path.match(p) for p in patterns)]
        assert not unlisted, f"{folder}: {unlisted} (fix: add a pattern to package-data)"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert all((ROOT / name).is_file() for name in project["license-files"])


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_lists_the_same_dependencies_as_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for extra in ("notebook", "test", "bench"):
        wanted |= {_name(r) for r in project["optional-dependencies"][extra]}
    listed = set()
    for line in (ROOT / "environment.yml").read_text().splitlines():
        item = line.strip()
        if item.startswith("- ") and not item.endswith(":") and "-e ." not in item:
            listed.add(_name(item[2:]))
    listed -= {"python", "pip", "conda-forge"}
    assert listed == wanted


def test_bundled_samples_are_varied_and_licensed() -> None:
    files = sorted(samples_dir().glob("*/*.jpg"))
    classes = {f.parent.name for f in files}
    assert len(files) >= 16 and len(classes) >= 4
    sizes = set()
    ratios = set()
    for path in files:
        with Image.open(path) as image:
            assert image.mode == "RGB"
            sizes.add(image.size)
            ratios.add(round(image.size[0] / image.size[1], 1))
    assert len(sizes) >= 10 and min(ratios) < 1 < max(ratios)
    licenses = (samples_dir().parent / "LICENSES.md").read_text()
    for path in files:
        assert f"{path.parent.name}/{path.name}" in licenses


def test_a_suite_stopped_by_its_time_limit_writes_where_it_hung(tmp_path: Path) -> None:
    """The Makefile stops a suite that runs too long with SIGTERM; tests/conftest.py has every
    thread's stack written to the terminal first (pytest's capture would otherwise swallow it)."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    started = tmp_path / "started"
    (tmp_path / "test_stuck.py").write_text(
        "import pathlib, time\n\n\ndef test_stuck_here():\n"
        f"    pathlib.Path({str(started)!r}).touch()\n    time.sleep(120)\n"
    )
    suite = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and suite.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), "the stuck test never started"
        suite.send_signal(signal.SIGTERM)
        output, _ = suite.communicate(timeout=60)
    finally:
        suite.kill()
    assert suite.returncode == -signal.SIGTERM
    assert "most recent call first" in output
    assert re.search(r'test_stuck\.py", line 6 in test_stuck_here', output), output[-2000:]
