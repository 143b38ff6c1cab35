// The Policemen-Burglar matrix game of
//   S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Appendix H.5 (Fig. 8), after
//   A. Nemirovski, "Mini-Course on Convex Programming Algorithms", lecture notes, 2013.
//
//   min_{x in simplex} max_{y in simplex} (1/M) sum_i x^T A_i y,
//   A_i(r, s) = w_r (1 - exp(-0.8 |r - s|)),  w_r = |N(0, 1)|,
//   F_i(z) = (A_i y, -A_i^T x),  monotone (not strongly): outside the theory.
// Resolved: the paper and the authors' code differ. `weights = row` with `identical_clients =
// true` is the paper (one weight per row, the same matrix for every client); `weights = entry`,
// `identical_clients = false` is the authors' code (a fresh |N(0,1)| per entry and per client).
// The server projects both blocks onto their simplices after aggregation, as the authors' code
// does (the paper gives no algorithm for the constrained case; the engine calls project()).
// Start: the simplex centres (the paper does not say; the authors' code's unprojected Gaussian
// start is projected by the first communication anyway).
// Metric: the duality gap max_j (Abar^T x)_j - min_i (Abar y)_i at the current server iterate
// (>= 0 on the simplices, 0 exactly at a Nash equilibrium). A gap at the running average of
// the iterates would need iterate averaging in the engine: not yet.
#include <cmath>

#include "core/random.hpp"
#include "linalg/projections.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::problems {

class MatrixGame : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x in the probability simplex of R^d (the min player) of max over y in the probability simplex of "
      "R^d of f(x, y) = (1/M) sum_i x^T A_i y, one component per client, both blocks projected onto their "
      "simplices; A_i(r, s) = w_r (1 - exp(-0.8 |r - s|)) with w_r = |N(0, 1)| one weight per row and the same "
      "matrix on every client (weights=row, identical_clients=true: the paper), or a fresh |N(0, 1)| per entry "
      "(weights=entry) and per client (identical_clients=false: the authors' code). No 1/2 factor; bilinear, "
      "monotone, not strongly.";
  struct Params {
    int clients, dim;
    enum class Weights { row, entry };
    Weights weights;
    bool identical_clients;
    std::int64_t instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "20", {.ge = 1}, "M, clients")
        .integer("dim", &Params::dim, "5", {.ge = 1}, "d, pure strategies per player")
        .choice("weights", &Params::weights, "row", {{"row", Params::Weights::row}, {"entry", Params::Weights::entry}},
                "|N(0,1)| weight per row (paper) or per entry (authors' code)")
        .boolean("identical_clients", &Params::identical_clients, "true",
                 "one matrix for all clients (paper) or one per client (authors' code)")
        .integer("instance_seed", &Params::instance_seed, "0", {.ge = 0}, "seed of the matrices");
  }

  explicit MatrixGame(const Params& p) : d_(p.dim) {
    for (int i = 0; i < p.clients; ++i) {
      const int draw = p.identical_clients ? 0 : i;
      Stream rng(static_cast<std::uint64_t>(p.instance_seed), "matrix-game", draw);
      Mat A(d_, d_);
      for (Index r = 0; r < d_; ++r) {
        const double row_weight = std::fabs(rng.normal());
        for (Index s = 0; s < d_; ++s) {
          const double w = p.weights == Params::Weights::row ? row_weight : std::fabs(rng.normal());
          A(r, s) = w * (1.0 - std::exp(-0.8 * std::fabs(static_cast<double>(r - s))));
        }
      }
      A_.push_back(std::move(A));
    }
    mean_ = Mat::Zero(d_, d_);
    for (const auto& A : A_) mean_ += A;
    mean_ /= static_cast<double>(p.clients);
    set_shape(d_, d_, std::vector<Index>(p.clients, 1));
  }

  std::string problem_class() const override { return "monotone bilinear (simplex constraints)"; }
  Vec initial_point() const override { return Vec::Constant(2 * d_, 1.0 / static_cast<double>(d_)); }
  void project(Vec& z) const override {
    thread_local Vec scratch;
    linalg::project_simplex(z.head(d_), scratch);
    linalg::project_simplex(z.tail(d_), scratch);
  }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (x, y), x in R^d (min player) and y in R^d (max player) each on the probability simplex; "
             "f(x, y) = mean_i x^T A_i y, F_i(z) = (A_i y, -A_i^T x); "
             "duality_gap = max_j (Abar^T x)_j - min_r (Abar y)_r with Abar = mean_i A_i", "");
    for (std::size_t i = 0; i < A_.size(); ++i)
      out.matrix("clients/" + std::to_string(i) + "/A", A_[i], "A_i, the client's payoff matrix (d x d)");
    out.matrix("global/A", mean_, "Abar = mean over clients of A_i");
  }

 protected:
  void do_op(int client, std::span<const Index>, const Vec& z, Vec& out) const override {
    out.head(d_).noalias() = A_[client] * z.tail(d_);
    out.tail(d_).noalias() = -A_[client].transpose() * z.head(d_);
  }
  double do_value(int client, std::span<const Index>, const Vec& z) const override {
    return z.head(d_).dot(A_[client] * z.tail(d_));
  }
  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::lipschitz, Eigen::JacobiSVD<Mat>(mean_).singularValues()(0), "||Abar||_2");
    return k;
  }
  std::vector<std::string> extra_metric_names() const override { return {"duality_gap"}; }
  std::string preferred_metric() const override { return "duality_gap"; }
  void extra_metrics(const Vec& z, std::span<double> out) const override {
    out[0] = (mean_.transpose() * z.head(d_)).maxCoeff() - (mean_ * z.tail(d_)).minCoeff();
  }

 private:
  Index d_;
  std::vector<Mat> A_;
  Mat mean_;
};

FEDBENCH_REGISTER_PROBLEM(MatrixGame, "matrix-game",
                          "Policemen-Burglar matrix game on two simplices (Appendix H.5)",
                          "Zhang, Choudhury, Stich, Loizou, ICLR 2024, Appendix H.5; Nemirovski 2013");

}  // namespace fedbench::problems
