# augexplorer: `make lab` to explore, `make test` to check everything.
# Both create .venv when it is missing and install what they need into it.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
# The local CPU build of torch satisfies the project's `torch>=2.1`; on a machine with a GPU
# the same command installs the CUDA build from the package index.
TORCH ?= torch==2.13.0

# A suite that runs past this many seconds is stopped, its threads' stacks written (tests/
# conftest.py): a hang fails in minutes with where it hung, not at CI's own limit.
SUITE_LIMIT ?= 1800
# coreutils' timeout (gtimeout where coreutils comes from Homebrew); --foreground: Ctrl-C still
# reaches pytest from a terminal. Without either command the suites run without a limit.
TIMEOUT := $(shell command -v timeout 2>/dev/null || command -v gtimeout 2>/dev/null)
PYTEST := $(if $(TIMEOUT),$(TIMEOUT) --foreground --kill-after=30 $(SUITE_LIMIT) )$(PY) -m pytest

.PHONY: lab test unit notebooks browser lint typecheck bench install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q "$(TORCH)"
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PIP) install -q -e ".[notebook,test,bench]"
	touch $(STAMP)

install: $(STAMP)

# Adds --allow-root as root and --no-browser where there is no display (then says which URL to
# open); LAB_ARGS go to JupyterLab, e.g. `make lab LAB_ARGS="--port=8899 --ip=0.0.0.0"`.
lab: install
	$(PY) -m augexplorer_widgets.lab notebooks/01_quickstart.ipynb $(LAB_ARGS)

# The whole suite: lint, types, unit tests, notebooks, and the browser suite.
test: install lint typecheck unit notebooks browser

unit: install
	$(PYTEST) -q -m "not browser and not notebooks" --durations=25 tests

notebooks: install
	$(PYTEST) -q -m notebooks tests

browser: install
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
	$(PYTEST) -q -m browser tests

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check augexplorer widgets tests benchmarks

typecheck: install
	$(VENV)/bin/mypy

bench: install
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-artifacts
