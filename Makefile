# Thin wrapper over CMake. `make demo` and `make test` are the two set-up commands of the
# README: each installs missing Debian packages, builds, and runs.
BUILD ?= build
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
PREFIX ?= /usr/local

.PHONY: all deps build test demo bench install clean

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

bench: build
	$(BUILD)/bin/fedbench_bench --benchmark_min_time=0.2

# Builds fedbench and its man page only, then installs under $(PREFIX) (DESTDIR is honoured).
install: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target fedbench fedbench_man
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
