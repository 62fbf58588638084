# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck lab samples clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

demo: $(STAMP)
	@for run in $(wildcard sample_runs/universes/*/); do \
		$(BIN)/toolkit quality $$run; echo; \
	done
	@$(BIN)/python sample_runs/iteration_logs/make_repo.py build/tally-repo --force >/dev/null
	$(BIN)/toolkit outcome sample_runs/iteration_logs/tally-loop --repo build/tally-repo \
		--transcripts sample_runs/iteration_logs/transcripts

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check $(wildcard toolkit tests bench sample_runs)
	$(BIN)/ruff format --check $(wildcard toolkit tests bench sample_runs)

typecheck: $(STAMP)
	$(BIN)/mypy

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

samples: $(STAMP)
	$(BIN)/python sample_runs/make_universes.py sample_runs/universes

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache
