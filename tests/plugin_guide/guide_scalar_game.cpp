// Guide scalar game: the problem written by following docs/adding-a-problem.md literally (the
// test that does so copies this file to problems/minimax/guide_scalar_game.cpp of a temporary
// tree). A strongly monotone bilinear-quadratic game on R x R, one component per client, in the
// family of the quadratic games of S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024,
// Section 5 (eq. (10) with d = 1 and a fixed coupling):
//   f_i(x, y) = mu/2 (x - c_i)^2 + x y - mu/2 y^2,  c_i = i (the client's index),
//   F_i(z) = (mu (x - c_i) + y, x - mu y) negated in y: (mu x - mu c_i + y, -x + mu y).
// Saddle point of the mean: y = x / mu and mu x + x / mu = mu cbar, so
//   x* = mu^2 cbar / (mu^2 + 1), y* = x* / mu, cbar = (M - 1) / 2.
// Constants: F is affine with Jacobian J = [[mu, 1], [-1, mu]]: d'Jd = mu |d|^2 and
// |Jd|^2 = (mu^2 + 1) |d|^2, so F is mu-strongly monotone, sqrt(mu^2 + 1)-Lipschitz and
// (mu^2 + 1)/mu-cocoercive.
// Resolved: the paper's games are matrix valued; this one is scalar so that every number above
// is a closed form.
#include <cmath>

#include "problem/problem_registry.hpp"

namespace fedbench::problems {

class GuideScalarGame : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x in R of max over y in R (unconstrained) of f = (1/M) sum_i f_i, one component per client, "
      "f_i(x, y) = mu/2 (x - i)^2 + x y - mu/2 y^2; saddle point x* = mu^2 (M - 1) / (2 (mu^2 + 1)), "
      "y* = x* / mu, start (0, 0).";
  struct Params {
    int clients;
    double mu;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "4", {.ge = 1}, "M, clients")
        .real("mu", &Params::mu, "1", {.gt = 0}, "mu, strong convexity and concavity");
  }

  explicit GuideScalarGame(const Params& p) : mu_(p.mu), clients_(p.clients) {
    set_shape(1, 1, std::vector<Index>(p.clients, 1));
  }

  std::string problem_class() const override { return "SC-SC"; }
  std::optional<Vec> reference_solution() const override {
    const double c_bar = (clients_ - 1) / 2.0, x = mu_ * mu_ * c_bar / (mu_ * mu_ + 1);
    Vec z(2);
    z << x, x / mu_;
    return z;
  }

 protected:
  void do_op(int client, std::span<const Index> /*samples*/, const Vec& z, Vec& out) const override {
    out.resize(2);
    out << mu_ * (z(0) - client) + z(1), -z(0) + mu_ * z(1);
  }
  double do_value(int client, std::span<const Index> /*samples*/, const Vec& z) const override {
    const double dx = z(0) - client;
    return 0.5 * mu_ * dx * dx + z(0) * z(1) - 0.5 * mu_ * z(1) * z(1);
  }
  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::mu, mu_, "mu: d'Jd = mu |d|^2 for the Jacobian J");
    k.set(Constant::lipschitz, std::sqrt(mu_ * mu_ + 1), "sqrt(mu^2 + 1): |Jd| = sqrt(mu^2 + 1) |d|");
    k.set(Constant::cocoercivity, (mu_ * mu_ + 1) / mu_, "(mu^2 + 1)/mu: |Jd|^2 = (mu^2 + 1) |d|^2");
    return k;
  }

 private:
  double mu_;
  int clients_;
};

FEDBENCH_REGISTER_PROBLEM(GuideScalarGame, "guide-scalar-game",
                          "scalar strongly monotone game with a closed-form saddle (guide example)",
                          "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Section 5 (scalar case)");

}  // namespace fedbench::problems
