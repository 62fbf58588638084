# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make demo` needs only the toolkit itself; `make test` adds the test and extra packages.
CORE := $(VENV)/.core

.PHONY: demo view test fuzz lint typecheck lab samples notebooks bench clean

$(CORE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE)

$(STAMP): $(CORE) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

demo: $(CORE)
	@echo "== Simulation runs: the fleet, then each sample run"
	@$(BIN)/toolkit quality --all sample_runs/universes; echo
	@for run in sample_runs/universes/*/; do $(BIN)/toolkit quality $$run; echo; done
	@echo "== LLM Mafia discussions"
	@$(BIN)/toolkit discussion sample_runs/discussions \
		--ratings sample_runs/discussions/ratings.csv --baseline sample_runs/discussions/baseline
	@echo; echo "== Persona drift (week 2 against week 1's golden baselines)"
	@$(BIN)/toolkit persona sample_runs/persona/radio-week2.jsonl \
		--propositions sample_runs/persona/propositions \
		--judge recorded:sample_runs/persona/cassette.json \
		--baseline sample_runs/persona/baselines \
		|| echo "(exit $$?: a regression against the baselines, as this sample is meant to show)"
	@echo; echo "== Outcome scores of an agent iteration log (with the git repo it refers to)"
	@$(BIN)/python sample_runs/iteration_logs/make_repo.py build/tally-repo --force >/dev/null
	@$(BIN)/toolkit outcome sample_runs/iteration_logs/tally-loop --repo build/tally-repo \
		--transcripts sample_runs/iteration_logs/transcripts
	@echo; echo "What next: 'make view' writes every sample run as one offline site" \
		"(build/site/index.html); 'make lab' opens the notebooks; '. .venv/bin/activate'" \
		"puts the toolkit command on your PATH for the README's other commands."

view: $(CORE)
	$(BIN)/toolkit view sample_runs -o build/site
	@echo "Open build/site/index.html in a browser."

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest

fuzz: $(STAMP)
	TOOLKIT_FUZZ_PROFILE=fuzz $(BIN)/python -m pytest tests/fuzz tests/io/test_reading_edge.py

lint: $(STAMP)
	$(BIN)/ruff check toolkit tests bench sample_runs notebooks/refresh.py
	$(BIN)/ruff format --check toolkit tests bench sample_runs notebooks/refresh.py
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

samples: $(STAMP)
	$(BIN)/python sample_runs/make_universes.py sample_runs/universes
	$(BIN)/python bench/make_fleet.py sample_runs/fleet --runs 16 --ticks 60 --nights 8
	$(BIN)/python sample_runs/make_discussions.py
	$(BIN)/python sample_runs/persona/make_samples.py
	$(BIN)/python sample_runs/make_compare.py
	$(BIN)/python sample_runs/make_calibration.py

bench: $(STAMP)
	$(BIN)/python bench/bench_fleet.py --runs 300 --ticks 300
	$(BIN)/python bench/bench_iterlogs.py --logs 200 --iterations 50
	$(BIN)/python bench/bench_startup.py --repeat 7
	$(BIN)/python bench/bench_reports.py
	$(BIN)/python bench/bench_compare.py --scenarios 50 --splits 1000
	$(BIN)/python bench/bench_judge.py
	$(BIN)/python bench/bench_rating_server.py --think-ms 1000
	$(BIN)/python bench/bench_rating_server.py
	$(BIN)/python bench/bench_view.py
	$(BIN)/python bench/bench_calibrate.py
	$(BIN)/python bench/bench_discussion_judge.py
	$(BIN)/python bench/bench_persona_session.py

notebooks: $(STAMP)
	$(BIN)/python notebooks/refresh.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache
