// Dataset loading and partitioning speed: a9a from text to CSR, and a Dirichlet
// partition of it over 10^4 clients (index lists into the one shared matrix).
#include <benchmark/benchmark.h>

#include "datasets/partition.hpp"
#include "datasets/registry.hpp"

using namespace fedbench;

namespace {

void load_a9a(benchmark::State& state) {
  Index nnz = 0;
  for (auto _ : state) {
    const auto d = datasets::load_libsvm("a9a");
    nnz = d.X.nnz();
    benchmark::DoNotOptimize(d.X.val.data());
  }
  state.counters["nnz"] = static_cast<double>(nnz);
  state.counters["MB_csr"] = static_cast<double>(nnz) * 12.0 / 1e6;
}

void partition_a9a(benchmark::State& state) {
  const auto labels = datasets::load_libsvm("a9a").labels;
  const int clients = static_cast<int>(state.range(0));
  double bytes_per_client = 0;
  for (auto _ : state) {
    const auto p = datasets::partition_rows(labels, clients,
                                            datasets::PartitionScheme::parse("dirichlet:0.5"), 1);
    std::size_t bytes = 0;
    for (const auto& c : p) bytes += c.capacity() * sizeof(Index) + sizeof(c);
    bytes_per_client = static_cast<double>(bytes) / clients;
    benchmark::DoNotOptimize(p.data());
  }
  state.counters["bytes/client"] = bytes_per_client;
}

}  // namespace

BENCHMARK(load_a9a)->Unit(benchmark::kMillisecond);
BENCHMARK(partition_a9a)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);
