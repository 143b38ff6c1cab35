# Thin wrapper over CMake. `make demo` and `make test` are the two set-up commands of the
# README: each installs missing Debian packages, builds, and runs.
BUILD ?= build
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
PREFIX ?= /usr/local

.PHONY: all deps build test demo bench reproduce install clean test-asan test-tsan test-asan-quick fuzz stress

all: build

deps:
	bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	bash scripts/fuzz.sh --seconds 5 --skip-without-clang

# libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan) in build-fuzz, FUZZ_SECONDS each, or
# FUZZ_RUNS executions each when set (docs/fuzzing.md); fails on any crash, leak, timeout or
# out-of-memory.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
fuzz:
	bash scripts/install-deps.sh clang libclang-rt-14-dev
	bash scripts/fuzz.sh $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

# The whole suite under ASan + UBSan (test-asan) or TSan (test-tsan) in build-asan /
# build-tsan; with CXX=clang++ (CC follows) in build-asan-clang / build-tsan-clang. -O2 with
# line tables only (-g1): reports get file:line and inlined frames, builds take a third less.
# Options and suppressions: tests/sanitizers, docs/sanitizers.md.
SAN_CLANG = $(if $(findstring clang,$(CXX)),-clang)
SAN_CC = $(if $(SAN_CLANG),$(if $(findstring clang,$(CC)),$(CC),$(subst clang++,clang,$(CXX))),$(CC))
test-asan test-tsan: test-%:
	bash scripts/install-deps.sh $(if $(SAN_CLANG),clang libclang-rt-14-dev)
	cmake -S . -B build-$*$(SAN_CLANG) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
	  -DCMAKE_C_COMPILER=$(SAN_CC) -DCMAKE_CXX_COMPILER=$(CXX) \
	  -DFEDBENCH_SANITIZE=$(if $(filter asan,$*),address,thread)
	cmake --build build-$*$(SAN_CLANG) -j $(JOBS) $(if $(SAN_TARGET),--target $(SAN_TARGET))
	cd build-$*$(SAN_CLANG) && ctest --output-on-failure -j $(JOBS) $(SAN_TESTS)

# What CI runs under ASan + UBSan: every test but the command-line ones (unit tests, solver
# and problem contracts, fuzz corpora, the report check). The command-line tests add about 25
# minutes under ASan on two cores; make test-asan runs them too.
test-asan-quick:
	$(MAKE) test-asan "SAN_TESTS=-E '^cli[.]'" SAN_TARGET=fedbench_test_programs

# The long fault runs (docs/reliability.md): 300 SIGKILLs at random moments of a 600-run suite
# with two jobs, resumed after each, then mpirun -np 2 killed mid-way; results compared with
# an uninterrupted run. The short version (30 kills) is part of `make test`.
stress: build
	KILLS=300 STORM_SUITE=tests/cli/suites/storm-long.yaml \
	  bash tests/cli/kill_storm.sh $(BUILD)/bin/fedbench $(BUILD)/stress-scratch $(PYTHON)

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
