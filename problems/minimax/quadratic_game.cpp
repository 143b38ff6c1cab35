// The strongly monotone heterogeneous quadratic game of
//   S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, "Communication-Efficient Gradient Descent-
//   Ascent Methods for Distributed Variational Inequalities: Unified Analysis and Local Updates",
//   ICLR 2024, Section 5, eq. (5) (Fig. 1; Figs. 4-5 in Appendices H.1-H.2); the generator is
//   the recipe of the authors' code (github.com/isayantan/ProxSkipVIP), which the paper does not
//   spell out.
//
//   min_{x in R^d} max_{y in R^d} (1/M) sum_i (1/n) sum_j phi_ij(x, y),
//   phi_ij = 1/2 x^T A_ij x + x^T B_ij y - 1/2 y^T C_ij y + a_ij^T x - c_ij^T y,
//   F_ij(z) = M_ij z + zeta_ij,  M_ij = [[A, B], [-B, C]],  zeta_ij = (a, c).
//
// Each of A, C, B is Q diag(lambda) Q^T with Q the eigenvectors of W^T W, W ~ N(0,1)^{dxd},
// lambda_k ~ U(mu_min, mu_max) for A and C and ~ U(0, b_max) for B; a, c ~ N(0, I). Draws per
// sample in the authors' code's order A, C, B, a, c, from the stream (instance_seed, "quadratic-game",
// client, sample), so an instance does not depend on how many clients are built in parallel.
// Resolved ambiguities: eq. (5)'s "-1/2 x1^T C x1" is read as x2 (a typo in the paper: C acts
// on the max player); d = 20 per player (the authors' stochastic script and notebooks; their
// deterministic script used 10). `heterogeneity` is our optional knob, not in the paper:
// client i adds s_i ~ N(0, heterogeneity^2 I) to every zeta_ij; 0 reproduces the paper. The
// start (x0, y0) is our knob too: the paper's runs start at 0 (the defaults); a nonzero start
// lets tests tell an algorithm's initial state from a zero vector.
#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "core/thread_pool.hpp"
#include "problem/problem_registry.hpp"
#include "problems/minimax/affine_game.hpp"
#include "problems/common/memory_check.hpp"
#include "problems/common/random_spectrum.hpp"

namespace fedbench::problems {

class QuadraticGame : public AffineGame {
 public:
  static constexpr const char* kObjective =
      "min over x in R^d of max over y in R^d (unconstrained) of f = (1/M) sum_i (1/n) sum_j phi_ij, "
      "phi_ij(x, y) = 1/2 x^T A_ij x + x^T B_ij y - 1/2 y^T C_ij y + a_ij^T x - c_ij^T y (n components per client, "
      "all clients equally weighted); A_ij, C_ij symmetric with eigenvalues U(mu_min, mu_max), B_ij symmetric with "
      "eigenvalues U(0, b_max), (a_ij, c_ij) ~ N(0, I), plus a client shift N(0, heterogeneity^2 I) of (a_ij, c_ij) "
      "(ours; 0 = the paper). The paper's eq. (5) prints the third term as -1/2 x^T C x; here it is -1/2 y^T C y "
      "(C acts on the max player, as in the authors' code).";
  struct Params {
    int clients;
    int samples;
    int dim;
    double mu_min, mu_max, b_max, heterogeneity;
    std::int64_t instance_seed;
    double x0, y0;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "20", {.ge = 1}, "M, number of clients")
        .integer("samples", &Params::samples, "100", {.ge = 1}, "n, samples per client")
        .integer("dim", &Params::dim, "20", {.ge = 1},
                 "d, dimension of x and of y")
        .real("mu_min", &Params::mu_min, "0.01", {.gt = 0}, "lower end of the A, C spectra")
        .real("mu_max", &Params::mu_max, "1", {.gt = 0}, "upper end of the A, C spectra")
        .real("b_max", &Params::b_max, "1", {.ge = 0}, "upper end of the B spectrum (from 0)")
        .real("heterogeneity", &Params::heterogeneity, "0", {.ge = 0},
              "std of a per-client shift of zeta (heterogeneity knob; 0 = paper)")
        .integer("instance_seed", &Params::instance_seed, "1024", {.ge = 0},
                 "seed of the instance (not of the run)")
        .real("x0", &Params::x0, "0", {}, "starting value of every entry of x (0 = the paper)")
        .real("y0", &Params::y0, "0", {}, "starting value of every entry of y (0 = the paper)");
  }

  explicit QuadraticGame(const Params& p) {
    if (p.mu_min >= p.mu_max)
      throw UserError("problem quadratic-game: mu_min = " + format_real(p.mu_min) +
                      " must be below mu_max = " + format_real(p.mu_max));
    const Index d = p.dim;
    // Per component a 2d x 2d matrix and a 2d vector (and per client their means).
    check_fits("problem quadratic-game", "clients x samples x (4 dim^2 + 2 dim) = " + std::to_string(p.clients) +
                   " x " + std::to_string(p.samples) + " x " + std::to_string(4 * d * d + 2 * d) + " numbers",
               static_cast<double>(p.clients) * (static_cast<double>(p.samples) + 1) * static_cast<double>(4 * d * d + 2 * d));
    std::vector<std::vector<Component>> clients(p.clients);
    // Every client on every core: each component draws from its own stream, so the instance
    // does not depend on the thread count.
    auto build_client = [&](int i) {
      Stream shift_stream(static_cast<std::uint64_t>(p.instance_seed), "quadratic-game-shift", i);
      Vec shift(2 * d);
      for (Index k = 0; k < 2 * d; ++k) shift(k) = p.heterogeneity * shift_stream.normal();
      clients[i].reserve(p.samples);
      for (int j = 0; j < p.samples; ++j) {
        Stream rng(static_cast<std::uint64_t>(p.instance_seed), "quadratic-game", i, j);
        const Mat A = random_spectrum_matrix(rng, d, p.mu_min, p.mu_max);
        const Mat C = random_spectrum_matrix(rng, d, p.mu_min, p.mu_max);
        const Mat B = random_spectrum_matrix(rng, d, 0.0, p.b_max);
        Component c{Mat(2 * d, 2 * d), Vec(2 * d)};
        c.M << A, B, -B.transpose(), C;
        for (Index k = 0; k < 2 * d; ++k) c.zeta(k) = rng.normal();
        if (p.heterogeneity > 0) c.zeta += shift;
        clients[i].push_back(std::move(c));
      }
    };
    ThreadPool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))).parallel_for(p.clients, build_client);
    Vec z0(2 * d);
    z0 << Vec::Constant(d, p.x0), Vec::Constant(d, p.y0);
    set_components(d, d, std::move(clients), std::move(z0));
  }

  std::string problem_class() const override { return "SC-SC quadratic game"; }

};

FEDBENCH_REGISTER_PROBLEM(QuadraticGame, "quadratic-game",
                          "strongly monotone heterogeneous quadratic game (paper eq. 5)",
                          "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Eq. (5), Section 5");

}  // namespace fedbench::problems
