#!/usr/bin/env bash
# Configures the clang tree (default build-clang) once: every object compiled with clang, ASan +
# UBSan (any UB report fatal) and libFuzzer's coverage hooks, so that one build serves both the
# fuzz harnesses (scripts/fuzz.sh) and the sanitizer pass over the tests (make test-clang).
# Compiles through ccache when it is installed. Idempotent: an existing tree is left as it is.
#
#   bash scripts/clang-tree.sh [DIR]
set -euo pipefail
dir=${1:-build-clang}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$dir/CMakeCache.txt" ] && exit 0
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# -O2 with line tables only (-g1): reports get file:line and inlined frames, builds take a third
# less than with full debug information.
CC=clang CXX=clang++ cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  -DFEDBENCH_SANITIZE=address -DFEDBENCH_FUZZ=ON "${launcher[@]}" >/dev/null
