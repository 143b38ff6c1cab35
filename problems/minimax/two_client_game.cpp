// The two-client heterogeneity construction of
//   S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Appendix H.4 (Fig. 7).
//
//   F(x) = 1/2 F_1(x) + 1/2 F_2(x),  F_i(x) = x - x_i*,  x_1* = (delta, 0),  x_2* = (0, delta),
//   so x* = (delta/2, delta/2) and max_i ||F_i(x*) - F(x*)||^2 = delta^2 / 2.
// Each client holds one sample; x is the first coordinate (min player), y the second (max
// player), and the saddle function is 1/2 x^2 - 1/2 y^2 - delta_i^x x + delta_i^y y (its VIP
// operator is exactly F_i). Start point x0 = (1, 1), as in the authors' notebook
// (github.com/isayantan/ProxSkipVIP; the paper does not give it).
#include "problem/problem_registry.hpp"
#include "problems/minimax/affine_game.hpp"

namespace fedbench::problems {

class TwoClientGame : public AffineGame {
 public:
  static constexpr const char* kObjective =
      "min over x in R of max over y in R (unconstrained) of f = 1/2 f_1 + 1/2 f_2, one component per client, "
      "f_1(x, y) = 1/2 x^2 - 1/2 y^2 - delta x, f_2(x, y) = 1/2 x^2 - 1/2 y^2 + delta y, whose operators are the "
      "paper's F_i(z) = z - z_i*, z_1* = (delta, 0), z_2* = (0, delta) (the paper gives operators only; the saddle "
      "functions are ours); saddle point (delta/2, delta/2), start (1, 1).";
  struct Params {
    double delta;
  };
  static void declare(Schema<Params>& s) {
    s.real("delta", &Params::delta, "0", {.ge = 0},
           "distance of each client's solution from the axis origin (heterogeneity)");
  }

  explicit TwoClientGame(const Params& p) {
    std::vector<std::vector<Component>> clients(2);
    const Vec solutions[2] = {Vec::Unit(2, 0) * p.delta, Vec::Unit(2, 1) * p.delta};
    for (int i = 0; i < 2; ++i)
      clients[i].push_back(Component{Mat::Identity(2, 2), -solutions[i]});
    set_components(1, 1, std::move(clients), Vec::Ones(2));
  }

  std::string problem_class() const override { return "strongly monotone (identity) game"; }
};

FEDBENCH_REGISTER_PROBLEM(TwoClientGame, "two-client-game",
                          "two clients with solutions delta apart (Appendix H.4)",
                          "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Appendix H.4");

}  // namespace fedbench::problems
