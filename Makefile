# Two commands do all the set-up: `make demo` and `make test`. uv installs in seconds what pip takes most of a
# minute for; pip is the fallback where uv cannot be had.
PYTHON ?= python3
# Python keeps compiled bytecode beside the modules; where the environment turns that off, every process that
# imports numba, polars, pandas and matplotlib compiles them from source again (about 6 s each on 2 cores). The
# install compiles them once, so that `atelier` run outside make imports them in a third of a second, not over one.
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RESULTS ?= results
REPORT ?= report
JOBS ?= 2

.PHONY: demo test install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv \
		&& $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test,dask]' \
		|| $(BIN)/python -m pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/atelier run experiments/*.toml --jobs $(JOBS) --out $(RESULTS)
	$(BIN)/atelier report $(RESULTS) --out $(REPORT)

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto --dist loadfile

clean:
	rm -rf $(VENV) $(RESULTS) $(REPORT) .pytest_cache .hypothesis
