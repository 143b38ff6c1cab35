#include "problem/problem.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace fedbench {

const char* kind_name(ProblemKind kind) {
  return kind == ProblemKind::minimax ? "minimax" : "bilevel";
}

struct Constants::Deferred {
  std::vector<std::string> names;
  std::function<void(Constants&)> fill;
  bool done = false;
};

Constants::Constants() : mutex_(std::make_unique<std::mutex>()) {}
Constants::Constants(Constants&&) noexcept = default;
Constants& Constants::operator=(Constants&&) noexcept = default;
Constants::~Constants() = default;

void Constants::set(Constant c, double value, std::string how) {
  const std::string name(constant_name(c));
  values_[name] = value;
  docs_[name] = std::move(how);
  eager_.insert(name);
}

void Constants::later(std::vector<Constant> names, std::function<void(Constants&)> fill) {
  Deferred group;
  for (Constant c : names) group.names.emplace_back(constant_name(c));
  group.fill = std::move(fill);
  deferred_.push_back(std::move(group));
}

void Constants::compute(Deferred& group) const {
  if (group.done) return;
  Constants computed;
  group.fill(computed);
  group.done = true;
  for (const auto& [key, value] : computed.values_) {
    values_[key] = value;
    docs_[key] = computed.docs_.at(key);
  }
}

void Constants::compute_group_of(const std::string& name) const {
  for (auto& group : deferred_)
    if (std::find(group.names.begin(), group.names.end(), name) != group.names.end()) compute(group);
}

void Constants::compute_all() const {
  std::lock_guard lock(*mutex_);
  for (auto& group : deferred_) compute(group);
}

bool Constants::has(Constant c) const {
  const std::string name(constant_name(c));
  std::lock_guard lock(*mutex_);
  if (!values_.count(name)) compute_group_of(name);
  return values_.count(name) > 0;
}

double Constants::get(Constant c, const std::string& who) const {
  if (!has(c))
    throw UserError(who + " needs the problem constant '" + std::string(constant_name(c)) +
                    "', which this problem does not declare; set the parameter explicitly");
  std::lock_guard lock(*mutex_);
  return values_.at(std::string(constant_name(c)));
}

std::string Constants::doc(Constant c) const {
  std::lock_guard lock(*mutex_);
  auto it = docs_.find(std::string(constant_name(c)));
  return it == docs_.end() ? std::string() : it->second;
}

const std::map<std::string, double>& Constants::values() const {
  compute_all();
  return values_;
}

const std::map<std::string, std::string>& Constants::docs() const {
  compute_all();
  return docs_;
}

std::map<std::string, double> Constants::eager_values() const {
  std::lock_guard lock(*mutex_);
  std::map<std::string, double> out;
  for (const auto& name : eager_) out[name] = values_.at(name);
  return out;
}

std::map<std::string, std::string> Constants::eager_docs() const {
  std::lock_guard lock(*mutex_);
  std::map<std::string, std::string> out;
  for (const auto& name : eager_) out[name] = docs_.at(name);
  return out;
}

std::optional<Constant> constant_from_name(std::string_view name) {
  for (const auto& info : kConstantTable)
    if (info.name == name) return info.id;
  return std::nullopt;
}

void Problem::set_shape(Index dim_x, Index dim_y, std::vector<Index> samples_per_client) {
  FEDBENCH_CHECK(dim_x >= 0 && dim_y >= 0 && dim_x + dim_y > 0, "problem dimension must be > 0");
  FEDBENCH_CHECK(!samples_per_client.empty(), "a problem needs at least one client");
  for (Index m : samples_per_client) FEDBENCH_CHECK(m > 0, "every client needs a sample");
  dim_x_ = dim_x;
  dim_y_ = dim_y;
  samples_per_client_ = std::move(samples_per_client);
}

const Constants& Problem::constants() const {
  std::call_once(constants_once_, [this] { constants_ = compute_constants(); });
  return constants_;
}

void Problem::check_call(int client, std::span<const Index> samples, Index num_samples,
                         const Vec& z, const char* what) const {
  FEDBENCH_CHECK(client >= 0 && client < num_clients(), std::string(what) + ": bad client id");
  FEDBENCH_CHECK(z.size() == dim(), std::string(what) + ": z has the wrong dimension");
  for (Index j : samples)
    FEDBENCH_CHECK(j >= 0 && j < num_samples, std::string(what) + ": sample index out of range");
}

const Vec& Problem::reference_cached() const {
  std::call_once(reference_once_, [this] {
    reference_ = reference_solution();
    z0_ = initial_point();
  });
  static const Vec empty;
  return reference_ ? *reference_ : empty;
}

void Problem::warm_up() const {
  reference_cached();
  constants().eager_values();
}

std::vector<std::string> Problem::metric_names() const {
  std::vector<std::string> names;
  reference_cached();
  if (reference_) names.push_back("rel_error");
  for (auto& n : core_metric_names()) names.push_back(std::move(n));
  for (auto& n : extra_metric_names()) names.push_back(std::move(n));
  return names;
}

std::string Problem::primary_metric() const {
  if (auto preferred = preferred_metric(); !preferred.empty()) return preferred;
  reference_cached();
  return reference_ ? "rel_error" : core_metric_names().front();
}

void Problem::metrics(const Vec& z, std::span<double> out, MetricState* state) const {
  const Vec& ref = reference_cached();
  std::size_t k = 0;
  if (reference_) {
    const double denom = (z0_ - ref).squaredNorm();
    out[k++] = (z - ref).squaredNorm() / (denom > 0 ? denom : 1.0);
  }
  const std::size_t core = core_metric_names().size();
  core_metrics(z, out.subspan(k, core), state);
  extra_metrics(z, out.subspan(k + core));
}

}  // namespace fedbench
