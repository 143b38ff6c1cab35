# Thin wrapper over CMake. `make demo` and `make test` are the two set-up commands of the
# README: each installs missing Debian packages, builds, and runs.
BUILD ?= build
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
PREFIX ?= /usr/local

.PHONY: all deps build test demo bench reproduce install clean

all: build

deps:
	bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD)/bin/fedbench results/demo $(PYTHON)

# Google Benchmark (oracles, rounds per solver at 1 and 2 threads), then fedbench against a
# vectorized numpy implementation of the same rounds (docs/performance.md).
bench: build
	$(BUILD)/bin/fedbench_bench --benchmark_min_time=0.2
	$(PYTHON) scripts/bench_numpy.py --fedbench $(BUILD)/bin/fedbench

# Every paper experiment in full (results/experiments): tuning, selection, report, claims.
# Goes on after a failed claim and fails at the end if any did.
reproduce: build
	@status=0; for name in $$($(BUILD)/bin/fedbench reproduce --list | awk '/^[a-z0-9-]+$$/ { n = $$0 } /^  claims: / { print n }'); do \
	  echo "== $$name"; $(BUILD)/bin/fedbench reproduce $$name -q || status=1; done; exit $$status

# Builds fedbench and its man page only, then installs under $(PREFIX) (DESTDIR is honoured).
install: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target fedbench fedbench_man
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
