#include "datasets/partition.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"

namespace fedbench::datasets {

namespace {

void shuffle(std::vector<Index>& v, Stream& rng) {  // Fisher-Yates
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 through the boost U^(1/shape).
double gamma(Stream& rng, double shape) {
  if (shape < 1) return gamma(rng, shape + 1) * std::pow(rng.uniform_open0(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform_open0();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

std::vector<double> dirichlet(Stream& rng, int k, double alpha) {
  std::vector<double> p(k);
  double total = 0;
  for (auto& x : p) total += (x = gamma(rng, alpha));
  for (auto& x : p) x /= total;
  return p;
}

// Cuts `rows` (in order) into parts with the given proportions; sizes by cumulative rounding.
void cut(const std::vector<Index>& rows, const std::vector<double>& proportions, Partition& out) {
  double cumulative = 0;
  std::size_t start = 0;
  for (std::size_t c = 0; c < proportions.size(); ++c) {
    cumulative += proportions[c];
    const std::size_t end = c + 1 == proportions.size()
                                ? rows.size()
                                : std::min(rows.size(), static_cast<std::size_t>(std::llround(
                                                            cumulative * static_cast<double>(rows.size()))));
    for (std::size_t i = start; i < std::max(start, end); ++i) out[c].push_back(rows[i]);
    start = std::max(start, end);
  }
}

}  // namespace

PartitionScheme PartitionScheme::parse(const std::string& text) {
  PartitionScheme s;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const bool has_value = colon != std::string::npos && parse_real(text.substr(colon + 1), s.value);
  if (kind == "iid" && colon == std::string::npos) return s;
  if (kind == "contiguous" && colon == std::string::npos) {
    s.kind = Kind::contiguous;
    return s;
  }
  if (kind == "shards" && has_value && s.value >= 1 && s.value == std::floor(s.value)) {
    s.kind = Kind::shards;
    return s;
  }
  if ((kind == "dirichlet" || kind == "quantity") && has_value && s.value > 0) {
    s.kind = kind == "dirichlet" ? Kind::dirichlet : Kind::quantity;
    return s;
  }
  throw UserError("partition '" + text + "' is not valid; use iid, shards:S (S whole >= 1), "
                  "dirichlet:A, quantity:A (A > 0) or contiguous");
}

std::string PartitionScheme::to_text() const {
  switch (kind) {
    case Kind::iid: return "iid";
    case Kind::shards: return "shards:" + format_real(value);
    case Kind::dirichlet: return "dirichlet:" + format_real(value);
    case Kind::quantity: return "quantity:" + format_real(value);
    case Kind::contiguous: return "contiguous";
  }
  return "iid";
}

Partition partition_rows(const std::vector<double>& labels, int clients,
                         const PartitionScheme& scheme, std::uint64_t seed) {
  const Index n = static_cast<Index>(labels.size());
  if (clients < 1) throw UserError("partition needs at least one client");
  if (n < clients)
    throw UserError("cannot partition " + std::to_string(n) + " rows over " +
                    std::to_string(clients) + " clients; lower the client count");
  Stream rng(seed, "partition");
  std::vector<Index> rows(n);
  std::iota(rows.begin(), rows.end(), Index{0});
  Partition out(clients);
  switch (scheme.kind) {
    case PartitionScheme::Kind::contiguous: {
      // Blocks in file order, every row kept: the first n mod M clients hold one row more.
      const Index base = n / clients, extra = n % clients;
      Index start = 0;
      for (int i = 0; i < clients; ++i) {
        const Index size = base + (i < extra ? 1 : 0);
        out[i].assign(rows.begin() + start, rows.begin() + start + size);
        start += size;
      }
      break;
    }
    case PartitionScheme::Kind::iid:
      shuffle(rows, rng);
      cut(rows, std::vector<double>(clients, 1.0 / clients), out);
      break;
    case PartitionScheme::Kind::quantity:
      shuffle(rows, rng);
      cut(rows, dirichlet(rng, clients, scheme.value), out);
      break;
    case PartitionScheme::Kind::shards: {
      const int per_client = static_cast<int>(scheme.value);
      const Index shards = static_cast<Index>(clients) * per_client;
      if (n < shards)
        throw UserError("shards:" + std::to_string(per_client) + " over " +
                        std::to_string(clients) + " clients needs at least " +
                        std::to_string(shards) + " rows; the data has " + std::to_string(n));
      std::stable_sort(rows.begin(), rows.end(),
                       [&](Index a, Index b) { return labels[a] < labels[b]; });
      std::vector<Index> order(shards);
      std::iota(order.begin(), order.end(), Index{0});
      shuffle(order, rng);
      for (Index s = 0; s < shards; ++s) {
        const Index shard = order[s], lo = shard * n / shards, hi = (shard + 1) * n / shards;
        auto& client = out[static_cast<std::size_t>(s / per_client)];
        for (Index i = lo; i < hi; ++i) client.push_back(rows[i]);
      }
      break;
    }
    case PartitionScheme::Kind::dirichlet: {
      std::map<double, std::vector<Index>> by_class;
      for (Index i = 0; i < n; ++i) by_class[labels[i]].push_back(i);
      for (auto& [label, members] : by_class) {
        shuffle(members, rng);
        cut(members, dirichlet(rng, clients, scheme.value), out);
      }
      break;
    }
  }
  // No client may be empty (every problem needs a sample per client).
  for (auto& client : out)
    if (client.empty()) {
      auto& largest = *std::max_element(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.size() < b.size();
      });
      client.push_back(largest.back());
      largest.pop_back();
    }
  for (auto& client : out) std::sort(client.begin(), client.end());
  return out;
}

Split split_rows(Index rows, double test_fraction, double validation_fraction, std::uint64_t seed) {
  if (test_fraction < 0 || validation_fraction < 0 || test_fraction + validation_fraction >= 1)
    throw UserError("split fractions must be >= 0 and leave some training rows");
  Stream rng(seed, "split");
  std::vector<Index> order(rows);
  std::iota(order.begin(), order.end(), Index{0});
  shuffle(order, rng);
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * rows));
  const auto n_val = static_cast<std::size_t>(std::llround(validation_fraction * rows));
  Split s;
  s.test.assign(order.begin(), order.begin() + n_test);
  s.validation.assign(order.begin() + n_test, order.begin() + n_test + n_val);
  s.train.assign(order.begin() + n_test + n_val, order.end());
  for (auto* v : {&s.train, &s.validation, &s.test}) std::sort(v->begin(), v->end());
  return s;
}

std::vector<std::vector<Index>> label_histograms(const Partition& p, const std::vector<double>& labels,
                                                 std::vector<double>& classes) {
  classes = labels;
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  std::vector<std::vector<Index>> h(p.size(), std::vector<Index>(classes.size(), 0));
  for (std::size_t c = 0; c < p.size(); ++c)
    for (Index i : p[c]) {
      const auto k = std::lower_bound(classes.begin(), classes.end(), labels[i]) - classes.begin();
      ++h[c][static_cast<std::size_t>(k)];
    }
  return h;
}

}  // namespace fedbench::datasets
