// A nonconvex-nonconcave game satisfying the two-sided PL condition, the example of
//   J. Yang, N. Kiyavash, N. He, "Global Convergence and Variance Reduction for a Class of
//   Nonconvex-Nonconcave Minimax Problems", NeurIPS 2020 (quoted from memory, not yet checked
//   against the paper's text: verify the function and its section before citing them):
//   f(x, y) = x^2 + 3 sin^2(x) sin^2(y) - 4 y^2 - 10 sin^2(y),   saddle point (0, 0).
// Federated version (ours, not in the papers): client i holds f shifted by heterogeneity terms
// h_i (x - y) with h_i ~ N(0, heterogeneity^2) drawn so that sum_i h_i = 0 (the global f and its saddle
// point are unchanged, the client optima are not). One sample per client.
#include <cmath>

#include "core/random.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::problems {

class TwoSidedPl : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x in R of max over y in R (unconstrained) of f = (1/M) sum_i f_i, one component per client, "
      "f_i(x, y) = x^2 + 3 sin^2(x) sin^2(y) - 4 y^2 - 10 sin^2(y) + h_i (x - y), h_i drawn N(0, heterogeneity^2) "
      "then centred so that sum_i h_i = 0: f = x^2 + 3 sin^2(x) sin^2(y) - 4 y^2 - 10 sin^2(y), saddle point (0, 0). "
      "The client shifts are ours.";
  struct Params {
    int clients;
    double heterogeneity, x0, y0;
    std::int64_t instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "4", {.ge = 1}, "M, clients")
        .real("heterogeneity", &Params::heterogeneity, "0", {.ge = 0}, "std of the client linear terms h_i")
        .real("x0", &Params::x0, "1", {}, "start x")
        .real("y0", &Params::y0, "1", {}, "start y")
        .integer("instance_seed", &Params::instance_seed, "0", {.ge = 0}, "seed of the shifts");
  }
  explicit TwoSidedPl(const Params& p) : start_(2) {
    start_ << p.x0, p.y0;
    Stream rng(static_cast<std::uint64_t>(p.instance_seed), "two-sided-pl");
    double mean = 0;
    for (int i = 0; i < p.clients; ++i) {
      h_.push_back(p.heterogeneity * rng.normal());
      mean += h_.back() / p.clients;
    }
    for (double& h : h_) h -= mean;  // the shifts cancel in the average
    set_shape(1, 1, std::vector<Index>(p.clients, 1));
  }
  std::string problem_class() const override { return "NC-NC, two-sided PL"; }
  Vec initial_point() const override { return start_; }
  std::optional<Vec> reference_solution() const override { return Vec::Zero(2); }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (x, y), two scalars; f_i(x, y) = x^2 + 3 sin^2(x) sin^2(y) - 4 y^2 - 10 sin^2(y) + h_i (x - y), "
             "f = mean_i f_i (the h_i sum to 0)", "");
    out.vector("h", Eigen::Map<const Vec>(h_.data(), static_cast<Index>(h_.size())),
               "h_i, the shift of client i (entry i)");
  }

 protected:
  void do_op(int client, std::span<const Index>, const Vec& z, Vec& out) const override {
    const double x = z(0), y = z(1), sy = std::sin(y), sx = std::sin(x);
    out(0) = 2 * x + 3 * std::sin(2 * x) * sy * sy + h_[client];
    out(1) = -(3 * sx * sx * std::sin(2 * y) - 8 * y - 10 * std::sin(2 * y) - h_[client]);
  }
  double do_value(int client, std::span<const Index>, const Vec& z) const override {
    const double x = z(0), y = z(1), sx = std::sin(x), sy = std::sin(y);
    return x * x + 3 * sx * sx * sy * sy - 4 * y * y - 10 * sy * sy + h_[client] * (x - y);
  }

 private:
  std::vector<double> h_;
  Vec start_;
};

FEDBENCH_REGISTER_PROBLEM(TwoSidedPl, "two-sided-pl",
                          "nonconvex-nonconcave game with the two-sided PL property, saddle (0, 0)",
                          "Yang, Kiyavash, He, NeurIPS 2020");

}  // namespace fedbench::problems
