# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck lab samples notebooks clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

demo: $(STAMP)
	@for run in sample_runs/universes/*/; do \
		$(BIN)/toolkit quality $$run; echo; \
	done

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check toolkit tests bench sample_runs notebooks/refresh.py
	$(BIN)/ruff format --check toolkit tests bench sample_runs notebooks/refresh.py

typecheck: $(STAMP)
	$(BIN)/mypy

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

samples: $(STAMP)
	$(BIN)/python sample_runs/make_universes.py sample_runs/universes

notebooks: $(STAMP)
	$(BIN)/python notebooks/refresh.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache
