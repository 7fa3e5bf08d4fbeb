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
SUITE_LIMIT ?= 2700
# coreutils' timeout (gtimeout where coreutils comes from Homebrew); --foreground: Ctrl-C still
# reaches pytest from a terminal. Without either command the suites run without a limit.
TIMEOUT := $(shell command -v timeout 2>/dev/null || command -v gtimeout 2>/dev/null)
PYTEST := $(if $(TIMEOUT),$(TIMEOUT) --foreground --kill-after=30 $(SUITE_LIMIT) )$(PY) -m pytest

.PHONY: lab test unit notebooks browser lint typecheck bench install reference clean strip-notebooks explore

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q "$(TORCH)"
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PIP) install -q -e ".[notebook,test,bench]"
	touch $(STAMP)

install: $(STAMP)

# The libraries a port is checked against, run for real: torchvision's wheels need torch's CUDA
# build (it runs on a CPU), which cannot share .venv with the CPU build, so they get a venv of
# their own, made once and kept outside the checkout (several GB; tests find it through
# AUGEXPLORER_REFERENCE_PYTHON). On x86_64 Python 3.11 the wheels may already lie on disk.
REFERENCE_VENV ?= $(HOME)/.cache/augexplorer/reference-venv
REFERENCE_PACKAGES ?= torch==2.14.1 torchvision==0.29.1 albumentations==2.0.8 pillow numpy
REFERENCE_STAMP := $(REFERENCE_VENV)/.installed-$(shell echo "$(REFERENCE_PACKAGES)" | cksum | cut -d' ' -f1)
export AUGEXPLORER_REFERENCE_PYTHON := $(REFERENCE_VENV)/bin/python

$(REFERENCE_STAMP):
	$(PYTHON) -m venv $(REFERENCE_VENV)
	$(REFERENCE_VENV)/bin/python -m pip install -q $(REFERENCE_PACKAGES)
	touch $@

reference: $(REFERENCE_STAMP)

# Adds --allow-root as root and --no-browser where there is no display (then says which URL to
# open); it opens a working copy of the quickstart in .augexplorer/notebooks/, refreshed from the
# tracked one unless edited there. LAB_ARGS go to JupyterLab, e.g.
# `make lab LAB_ARGS="--port=8899 --ip=0.0.0.0"`.
lab: install
	$(PY) -m augexplorer_widgets.lab --working-copy notebooks/01_quickstart.ipynb $(LAB_ARGS)

# `make lab` opens working copies in .augexplorer/notebooks/ (ignored), so running them leaves
# the tracked notebooks alone; a notebook opened directly keeps what a run shows (outputs, widget
# state): strip that before committing (tests/test_notebooks.py refuses it).
strip-notebooks: install
	$(PY) -m augexplorer_widgets.notebook_clean notebooks/*.ipynb

# The whole suite: lint, types, unit tests, notebooks, and the browser suite.
test: install reference lint typecheck unit notebooks browser

# The unit tests in two processes (pytest-xdist), a test file to each at a time: most of their
# time is single-threaded Python (DALI's tracing, code generation): on two cores, 14 minutes
# (other work beside it) against 21-24 in one process.
UNIT_WORKERS ?= 2
# Tests marked solo compare times, which a test running beside them would skew: they run
# after the others, alone.
unit: install reference
	$(PYTEST) -q -n $(UNIT_WORKERS) --dist loadfile --no-loadscope-reorder -m "not browser and not notebooks and not solo" --durations=25 tests
	$(PYTEST) -q -m "solo and not browser and not notebooks" tests

# 05 and 07 time torchvision's own DataLoader in the reference Python (AUGEXPLORER_REFERENCE_PYTHON).
# One at a time: under pytest-xdist a notebook's temporary folder (its TMPDIR) is so deep that
# the DataLoader workers' sockets there pass the 108-byte limit of a Unix socket's path.
notebooks: install reference
	$(PYTEST) -q -m notebooks tests

# A browser test that fails runs once more, two seconds later: a page's timing on a loaded
# two-core machine can miss a wait that holds on the next try; one that fails twice fails the
# run, and the summary counts every rerun ("1 rerun"), so a flaky test stays in sight.
browser: install
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
	$(PYTEST) -q -m browser --reruns 1 --reruns-delay 2 tests

# New draws for the property test and other seeded pairs for the argument probe, a run a seed.
# Not part of `make test`, whose draws stay fixed so that a change elsewhere cannot fail it by
# chance; run it nightly or before a release. A failure names its seed: `make explore SEEDS=N`
# draws the same cases again.
SEEDS ?= 1 2 3
explore: install reference
	@for seed in $(SEEDS); do \
	  echo "explore: seed $$seed"; \
	  AUGEXPLORER_EXPLORE=$$seed $(PYTEST) -q --hypothesis-seed=$$seed \
	    tests/test_properties.py tests/test_arg_probe.py || { echo "explore: seed $$seed failed"; exit 1; }; \
	done

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check augexplorer widgets tests benchmarks

typecheck: install
	$(VENV)/bin/mypy

bench: install
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache test-artifacts
