# Two commands set everything up on a fresh machine:
#   make run    install, migrate, serve Whizi on http://127.0.0.1:8000 with a Celery worker
#   make test   install, make sure PostgreSQL/Redis/Chromium are there, run ruff and the suite
# While working: make test-fast (no worker, no browser, nothing marked slow; under a minute).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-fast install install-test

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet ".[test]"
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(PY) manage.py migrate --noinput
	HOST=$(HOST) PORT=$(PORT) PY=$(PY) bash scripts/run.sh

# pytest-xdist: 3 processes on 2 cores, because most of the suite's time is spent
# waiting on workers, browsers and servers rather than computing.
test: install-test
	bash scripts/ensure_services.sh
	$(VENV)/bin/ruff check --no-cache .
	PY=$(PY) bash scripts/test.sh -n 3 $(ARGS)

test-fast: install-test
	bash scripts/ensure_services.sh
	$(VENV)/bin/ruff check --no-cache .
	PY=$(PY) bash scripts/test.sh -n 2 -m "not worker and not browser and not slow" $(ARGS)
