// Google Benchmark's main for the fedbench micro-benchmarks.
#include <benchmark/benchmark.h>
BENCHMARK_MAIN();
