# Thin wrapper over CMake. `make demo` and `make test` are the two set-up commands of the
# README: each installs missing Debian packages, builds, and runs.
BUILD ?= build
comma := ,
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
PREFIX ?= /usr/local

.PHONY: all deps configure-with-tests configure-runtime build build-tests check test test-full test-heavy test-clang catalogs demo bench bench-scale reproduce install clean mutants \
        test-asan test-tsan fuzz stress

all: build

deps:
	bash scripts/install-deps.sh

# Objects compile through ccache when it is there (install-deps installs it); paths under this
# directory are hashed relative to it, and the build directory's path is left out of the hash of
# objects with debug information (the clang tree's -g1), so a fresh clone elsewhere reuses the
# cache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
CCACHE_LAUNCHER = $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

# Configures $(BUILD) once; `with-tests` turns the tests on in a build directory that `make demo`
# or `make install` configured without them.
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CCACHE_LAUNCHER)
configure-with-tests: deps
	@grep -qs '^FEDBENCH_TESTS:BOOL=ON' $(BUILD)/CMakeCache.txt || $(CONFIGURE) -DFEDBENCH_TESTS=ON
configure-runtime:
	bash scripts/install-deps.sh --runtime
	@test -f $(BUILD)/CMakeCache.txt || $(CONFIGURE) -DFEDBENCH_TESTS=OFF

build: configure-with-tests
	cmake --build $(BUILD) -j $(JOBS)

# What the check and test tiers run: fedbench, its man page and Python support (cli.install,
# cli.python_solvers), the unit tests and fuzz replays; not the benchmarks.
TEST_TARGETS = fedbench fedbench_man fedbench_python fedbench_test_programs
build-tests: configure-with-tests
	cmake --build $(BUILD) -j $(JOBS) --target $(TEST_TARGETS)

# Test tiers (ctest labels; docs/testing.md). check: unit tests, contracts, reference
# transcriptions, fast command-line scripts (times: docs/testing.md). test: + the slower scripts and
# the quick experiments of at most 20 s (the README's command). test-full: test + test-heavy,
# which is everything else: the longer quick experiments, a larger kill storm, then the clang
# tree (test-clang).
check: build-tests
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L check

test: build-tests
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L 'check|test'

# SKIP_LONG=1 (CI) leaves out the entries labelled long: the quick runs measured in minutes (the
# two hyper-cleaning ones, 6 and about 15 minutes on 2 cores; zhang2025's a9a, w8a and fig2).
test-heavy: build-tests
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L full $(if $(SKIP_LONG),-LE long)
	$(MAKE) test-clang

test-full: test test-heavy

# One clang tree (build-clang) serves the fuzz round and the sanitizer pass: every object is
# compiled once with ASan + UBSan and libFuzzer's coverage hooks; its tests (all but the
# command-line scripts and experiments, about 25 minutes more under ASan: make test-asan) run
# with the sanitizer options of tests/sanitizers, then each harness fuzzes FUZZ_QUICK seconds.
CLANG_TREE ?= build-clang
FUZZ_QUICK ?= 5
test-clang:
	bash scripts/install-deps.sh clang libclang-rt-14-dev
	bash scripts/clang-tree.sh $(CLANG_TREE)
	cmake --build $(CLANG_TREE) -j $(JOBS) --target fedbench fedbench_test_programs fuzzers
	cd $(CLANG_TREE) && ctest --output-on-failure -j $(JOBS) -E '^(cli|experiment|stress|guide)[.]'
	bash scripts/fuzz.sh --build $(CLANG_TREE) --seconds $(FUZZ_QUICK)

# libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan) in the clang tree, FUZZ_SECONDS each, or
# FUZZ_RUNS executions each when set (docs/fuzzing.md); fails on any crash, leak, timeout or
# out-of-memory.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
fuzz:
	bash scripts/install-deps.sh clang libclang-rt-14-dev
	bash scripts/fuzz.sh --build $(CLANG_TREE) $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

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

# The long fault runs (docs/reliability.md): 300 SIGKILLs at random moments of a 600-run suite
# with two jobs, resumed after each; then 100 SIGKILLs spread over two processes with two jobs
# each sharing one results directory (the killed one restarted at once); then mpirun -np 2
# killed mid-way; results compared with an uninterrupted run. `make test` has 8 + 6 kills, the
# full tier 30 + 6.
stress: build
	KILLS=300 PAIR_KILLS=100 STORM_SUITE=tests/cli/suites/storm-long.yaml \
	  bash tests/cli/kill_storm.sh $(BUILD)/bin/fedbench $(BUILD)/stress-scratch $(PYTHON)

# The generated catalogs of docs/catalog (solvers, problems, experiments); cli.catalogs fails
# when they are stale.
catalogs: build
	bash scripts/catalogs.sh $(BUILD)/bin/fedbench docs/catalog

# The demo builds the fedbench program only (and needs only the runtime packages).
demo: configure-runtime
	cmake --build $(BUILD) -j $(JOBS) --target fedbench
	bash scripts/demo.sh $(BUILD)/bin/fedbench results/demo $(PYTHON)

# The mutation score of the check tier: every mutant of tests/mutants/mutants.yaml applied to a
# worktree of HEAD (build/mutants/tree), rebuilt through ccache and judged by `ctest -L check`;
# the table goes to build/mutants/table.md (docs/testing.md). Hours on 2 cores: ONLY=id1,id2
# runs those mutants only.
mutants: build
	$(PYTHON) scripts/mutants.py --jobs $(JOBS) --markdown $(BUILD)/mutants/table.md $(if $(ONLY),--only $(ONLY))

# Google Benchmark (oracles, rounds per solver at 1 and 2 threads), then fedbench against a
# vectorized numpy implementation of the same rounds (docs/performance.md).
bench: build
	$(BUILD)/bin/fedbench_bench --benchmark_min_time=0.2
	$(PYTHON) scripts/bench_numpy.py --fedbench $(BUILD)/bin/fedbench

# How suites use the cores: wall time against max(work / cores, longest run), at --jobs 1, 2 and
# the machine's cores; then single runs' speed-ups at 1, 2 and all threads (rounds, exact
# evaluations, evaluation beside the rounds, small rounds under load) against their goals
# (docs/performance.md). Minutes: it runs three paper suites several times.
bench-scale: build
	$(PYTHON) scripts/bench_scale.py --fedbench $(BUILD)/bin/fedbench
	$(PYTHON) scripts/bench_scale.py --fedbench $(BUILD)/bin/fedbench --runs --repeat 3

# Every paper experiment in full (results/experiments): tuning, selection, report, claims, each
# experiment's verdicts recorded in results/verdicts/NAME.json and its time printed; then the
# generated verdict pages (make catalogs). Two experiments at a time (scripts/reproduce_all.py:
# one alone leaves a core idle in its stages' tails; the bits do not depend on it), longest
# first by their recorded CPU time, experiments on one suite file in order. Goes on after a
# contradicted claim and fails at the end if any was. ONLY="a b" runs those experiments only;
# REPRODUCE_PARALLEL=1 runs them one at a time.
REPRODUCE_PARALLEL ?= 2
reproduce: build
	@mkdir -p results/verdicts; status=0; \
	$(PYTHON) scripts/reproduce_all.py --fedbench $(BUILD)/bin/fedbench --record results/verdicts \
	  --parallel $(REPRODUCE_PARALLEL) --only "$(subst $(eval) ,$(comma),$(strip $(ONLY)))" || status=1; \
	echo "== per experiment (wall, CPU, CPU / cores): docs/catalog/verdicts.md, Time taken"; \
	bash scripts/catalogs.sh $(BUILD)/bin/fedbench docs/catalog; exit $$status

# Builds fedbench, its man page and its Python support only, then installs under $(PREFIX)
# (DESTDIR is honoured). Needs only the runtime packages (install-deps.sh --runtime, which asks
# for root only when one is missing); a build directory it configures itself leaves the tests
# out, so doctest, Google Benchmark and Armadillo need not be there (docs/install.md).
install: configure-runtime
	cmake --build $(BUILD) -j $(JOBS) --target fedbench fedbench_man fedbench_python
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
