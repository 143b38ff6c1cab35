// A heterogeneous federated bilevel quadratic with a closed-form hypergradient, for exact tests
// of the bilevel solvers: fedbench's own test problem, in neither Y. Zhang et al., IJCAI 2025,
// nor F. Huang, arXiv 2211.01122, 2022 (it has the form of their problem (1)).
//
// Client i holds n samples j for each level:
//   lower  g_ij(x, y) = 1/2 y^T A_i y - y^T (B_i x + c_ij),           A_i SPD in [mu_g, L_g]
//   upper  f_ij(x, y) = 1/2 x^T P_i x + r_i^T x + 1/2 (y - e_ij)^T Q_i (y - e_ij)
// with c_ij = c_i + noise xi, e_ij = e_i + noise xi' (client means c_i, e_i drawn with spread
// `heterogeneity`); f_i, g_i are the means over the client's n samples and f = (1/M) sum_i f_i.
// The lower level is global (g = (1/M) sum_i g_i), so
//   y*(x) = Abar^-1 (Bbar x + cbar),  S = Abar^-1 Bbar,
//   grad F(x) = Pbar x + rbar + S^T (Qbar y*(x) - qbar),   qbar = mean_i Q_i e_i,
// and F is a strongly convex quadratic with Hessian Pbar + S^T Qbar S: x* solves one linear
// system and z* = (x*, y*(x*)) is the reference solution. The sample noise makes minibatch
// oracles unbiased and noisy in the linear terms only (every sample's A_i, Q_i is SPD).
// `sample_spread` s > 0 (off by default) also scales the matrices per sample: upper sample j of
// client i has p_ij P_i, lower sample j has a_ij A_i and b_ij B_i, each weight 1 + s u with
// u ~ U(-1/2, 1/2), so that the minibatch Hessians and cross-Jacobians differ from row to row
// (a test of which rows a method's second-order terms use); the bars above then carry the
// client means of the weights. The weights come from their own stream, after every other draw:
// s = 0 leaves the instance and every oracle's bits as they were.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "core/error.hpp"
#include "core/random.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/random_spectrum.hpp"

namespace fedbench::problems {

class BilevelQuadratic : public BilevelProblem {
 public:
  static constexpr const char* kObjective =
      "min over x in R^dim_x of F(x) = f(x, y*(x)), y*(x) = argmin over y in R^dim_y of g(x, y) (unconstrained); "
      "upper f = (1/M) sum_i (1/n) sum_j f_ij, f_ij(x, y) = 1/2 x^T P_i x + r_i^T x + 1/2 (y - e_ij)^T Q_i (y - e_ij); "
      "lower g = (1/M) sum_i (1/n) sum_j g_ij, g_ij(x, y) = 1/2 y^T A_i y - y^T (B_i x + c_ij), so "
      "g_i = 1/2 y^T A_i y - y^T (B_i x + cbar_i) with cbar_i = (1/n) sum_j c_ij; A_i, P_i, Q_i symmetric with "
      "eigenvalues U(mu_g, lipschitz_g), U(0.1, 1), U(0.5, 2); B_i, r_i, c_ij, e_ij Gaussian around common parts "
      "(spread heterogeneity, noise); n samples per client and level, clients equally weighted. Closed form: "
      "y*(x) = Abar^-1 (Bbar x + cbar) (bars: means over clients) and F is a strongly convex quadratic. fedbench's "
      "own test problem (no paper equation). sample_spread s > 0 scales P_i in upper sample j by p_ij and A_i, B_i in "
      "lower sample j by a_ij, b_ij (weights 1 + s U(-1/2, 1/2)); the bars then carry the clients' mean weights.";
  struct Params {
    int clients, samples, dim_x, dim_y;
    double mu_g, lipschitz_g, heterogeneity, noise;
    std::int64_t instance_seed;
    double x0, y0, sample_spread;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "5", {.ge = 1}, "M, clients")
        .integer("samples", &Params::samples, "20", {.ge = 1}, "n, samples per client and level")
        .integer("dim_x", &Params::dim_x, "5", {.ge = 1}, "dimension of the upper variable x")
        .integer("dim_y", &Params::dim_y, "5", {.ge = 1}, "dimension of the lower variable y")
        .real("mu_g", &Params::mu_g, "1", {.gt = 0}, "smallest eigenvalue of every A_i")
        .real("lipschitz_g", &Params::lipschitz_g, "4", {.gt = 0}, "largest eigenvalue of every A_i")
        .real("heterogeneity", &Params::heterogeneity, "1", {.ge = 0},
              "spread of the client terms B_i, c_i, e_i, r_i around their common part")
        .real("noise", &Params::noise, "0.5", {.ge = 0}, "spread of c_ij, e_ij around the client means")
        .integer("instance_seed", &Params::instance_seed, "0", {.ge = 0}, "seed of the instance")
        .real("x0", &Params::x0, "0", {}, "starting value of every entry of x")
        .real("y0", &Params::y0, "0", {}, "starting value of every entry of y")
        .real("sample_spread", &Params::sample_spread, "0", {.ge = 0, .lt = 2},
              "per-sample weights 1 + s U(-1/2, 1/2) of P_i (upper), A_i and B_i (lower); 0 = one matrix per client");
  }

  explicit BilevelQuadratic(const Params& p) : x0_(p.x0), y0_(p.y0) {
    if (p.lipschitz_g < p.mu_g)
      throw UserError("problem bilevel-quadratic: lipschitz_g (" + std::to_string(p.lipschitz_g) +
                      ") must be >= mu_g (" + std::to_string(p.mu_g) + "); raise lipschitz_g");
    const Index dx = p.dim_x, dy = p.dim_y;
    Stream rng(static_cast<std::uint64_t>(p.instance_seed), "bilevel-quadratic");
    const auto gaussian = [&](Index r, Index c, double scale) {
      Mat m(r, c);
      for (Index a = 0; a < r; ++a)
        for (Index b = 0; b < c; ++b) m(a, b) = scale * rng.normal();
      return m;
    };
    const Mat B0 = gaussian(dy, dx, 1.0 / std::sqrt(static_cast<double>(dx)));
    const Vec c0 = gaussian(dy, 1, 1.0), e0 = gaussian(dy, 1, 1.0), r0 = gaussian(dx, 1, 1.0);
    const double h = p.heterogeneity;
    for (int i = 0; i < p.clients; ++i) {
      Client c;
      c.A = random_spectrum_matrix(rng, dy, p.mu_g, p.lipschitz_g);
      c.P = random_spectrum_matrix(rng, dx, 0.1, 1.0);
      c.Q = random_spectrum_matrix(rng, dy, 0.5, 2.0);
      c.B = B0 + gaussian(dy, dx, h / std::sqrt(static_cast<double>(dx)));
      c.r = r0 + gaussian(dx, 1, h);
      const Vec ci = c0 + gaussian(dy, 1, h), ei = e0 + gaussian(dy, 1, h);
      c.c = ci.replicate(1, p.samples) + gaussian(dy, p.samples, p.noise);
      c.e = ei.replicate(1, p.samples) + gaussian(dy, p.samples, p.noise);
      c.c_mean = c.c.rowwise().mean();
      c.e_mean = c.e.rowwise().mean();
      clients_.push_back(std::move(c));
    }
    Stream weights(static_cast<std::uint64_t>(p.instance_seed), "bilevel-quadratic-sample-weights");
    for (Client& c : clients_) {
      for (Vec* w : {&c.p, &c.a, &c.b}) {
        w->setOnes(p.samples);
        if (p.sample_spread > 0)
          for (Index j = 0; j < p.samples; ++j) (*w)(j) += p.sample_spread * (weights.uniform() - 0.5);
      }
      c.p_mean = c.p.mean();
      c.a_mean = c.a.mean();
      c.b_mean = c.b.mean();
    }
    set_bilevel_shape(dx, dy, std::vector<Index>(p.clients, p.samples),
                      std::vector<Index>(p.clients, p.samples));
    solve_closed_form();
  }

  std::string problem_class() const override { return "SC-SC quadratic bilevel"; }
  //! Every entry of x starts at x0 (the hyperparameters' starting value), every entry of y at y0.
  Vec initial_point() const override {
    Vec z = Vec::Zero(dim());
    z.head(dim_x()).setConstant(x0_);
    z.tail(dim_y()).setConstant(y0_);
    return z;
  }
  std::optional<Vec> reference_solution() const override { return z_star_; }
  void write_instance(InstanceWriter& out) const override {
    for (std::size_t i = 0; i < clients_.size(); ++i) {
      const Client& c = clients_[i];
      const std::string p = "clients/" + std::to_string(i) + "/";
      out.matrix(p + "A", c.A, "A_i of g_ij = 1/2 y^T A_i y - y^T (B_i x + c_ij)");
      out.matrix(p + "B", c.B, "B_i");
      out.matrix(p + "c", c.c, "c_ij = c[:, j]");
      out.matrix(p + "P", c.P, "P_i of f_ij = 1/2 x^T P_i x + r_i^T x + 1/2 (y - e_ij)^T Q_i (y - e_ij)");
      out.vector(p + "r", c.r, "r_i");
      out.matrix(p + "Q", c.Q, "Q_i");
      out.matrix(p + "e", c.e, "e_ij = e[:, j]");
      out.vector(p + "p", c.p, "p_ij: upper sample j has p_ij P_i");
      out.vector(p + "a", c.a, "a_ij: lower sample j has a_ij A_i");
      out.vector(p + "b", c.b, "b_ij: lower sample j has b_ij B_i");
    }
  }

 protected:
  void do_upper_grad_x(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    const Client& c = clients_[i];
    out.noalias() = c.P * z.head(dim_x());
    scale(out, weight(c.p, c.p_mean, s));
    out += c.r;
  }
  void do_upper_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    const Client& c = clients_[i];
    out.noalias() = c.Q * (z.tail(dim_y()) - mean_column(c.e, c.e_mean, s));
  }
  void do_lower_grad_x(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    const Client& c = clients_[i];
    out.noalias() = -c.B.transpose() * z.tail(dim_y());
    scale(out, weight(c.b, c.b_mean, s));
  }
  void do_lower_grad_y(int i, std::span<const Index> s, const Vec& z, Vec& out) const override {
    const Client& c = clients_[i];
    const double a = weight(c.a, c.a_mean, s), b = weight(c.b, c.b_mean, s);
    if (a == 1 && b == 1) {  // one matrix per client: the original arithmetic, bit for bit
      out.noalias() = c.A * z.tail(dim_y());
      out.noalias() -= c.B * z.head(dim_x());
    } else {
      out.noalias() = a * (c.A * z.tail(dim_y()));
      out.noalias() -= b * (c.B * z.head(dim_x()));
    }
    out -= mean_column(c.c, c.c_mean, s);
  }
  void do_lower_hvp(int i, std::span<const Index> s, const Vec&, const Vec& v, Vec& out) const override {
    const Client& c = clients_[i];
    out.noalias() = c.A * v;
    scale(out, weight(c.a, c.a_mean, s));
  }
  void do_lower_jvp(int i, std::span<const Index> s, const Vec&, const Vec& v, Vec& out) const override {
    const Client& c = clients_[i];
    out.noalias() = -c.B.transpose() * v;
    scale(out, weight(c.b, c.b_mean, s));
  }
  double do_upper_value(int i, std::span<const Index> s, const Vec& z) const override {
    const Client& c = clients_[i];
    const Vec x = z.head(dim_x()), y = z.tail(dim_y());
    double quad = 0;
    for_each_sample(s, c.e.cols(), [&](Index j) {
      const Vec d = y - c.e.col(j);
      quad += 0.5 * d.dot(c.Q * d);
    });
    return 0.5 * weight(c.p, c.p_mean, s) * x.dot(c.P * x) + c.r.dot(x) + quad / batch(s, c.e.cols());
  }
  double do_lower_value(int i, std::span<const Index> s, const Vec& z) const override {
    const Client& c = clients_[i];
    const Vec x = z.head(dim_x()), y = z.tail(dim_y());
    const double a = weight(c.a, c.a_mean, s), b = weight(c.b, c.b_mean, s);
    if (a == 1 && b == 1) return 0.5 * y.dot(c.A * y) - y.dot(c.B * x + mean_column(c.c, c.c_mean, s));
    return 0.5 * a * y.dot(c.A * y) - y.dot(b * (c.B * x) + mean_column(c.c, c.c_mean, s));
  }

  Constants compute_constants() const override {
    Constants k;
    double mu_min = INFINITY, lip_max = 0, cross_max = 0;
    for (const Client& c : clients_) {  // g_i's Hessian a_i A_i and cross-Jacobian b_i B_i (weights' means)
      const Vec eig = Eigen::SelfAdjointEigenSolver<Mat>(c.A).eigenvalues();
      mu_min = std::min(mu_min, c.a_mean * eig.minCoeff());
      lip_max = std::max(lip_max, c.a_mean * eig.maxCoeff());
      cross_max = std::max(cross_max, c.b_mean * Eigen::JacobiSVD<Mat>(c.B).singularValues()(0));
    }
    k.set(Constant::mu_g, Eigen::SelfAdjointEigenSolver<Mat>(A_bar_).eigenvalues().minCoeff(),
          "lambda_min(Abar): strong convexity of the global lower level in y");
    k.set(Constant::mu_g_client_min, mu_min, "min_i lambda_min(a_i A_i), a_i the mean lower-sample weight (1 without sample_spread)");
    k.set(Constant::lipschitz_g_client_max, lip_max, "max_i lambda_max(a_i A_i): smoothness of g_i in y");
    k.set(Constant::cross_lipschitz_g, cross_max, "max_i b_i ||B_i||_2: Lipschitz constant of grad^2_xy g_i");
    k.set(Constant::hyper_mu, Eigen::SelfAdjointEigenSolver<Mat>(hessian_F_).eigenvalues().minCoeff(),
          "lambda_min(Pbar + S^T Qbar S): strong convexity of F");
    k.set(Constant::hyper_smoothness, Eigen::SelfAdjointEigenSolver<Mat>(hessian_F_).eigenvalues().maxCoeff(),
          "lambda_max(Pbar + S^T Qbar S): smoothness of F");
    return k;
  }

 private:
  struct Client {
    Mat A, B, P, Q;
    Vec r, c_mean, e_mean;
    Mat c, e;  // dim_y x n: per-sample linear terms
    Vec p, a, b;  // per-sample weights of P_i (upper samples), A_i and B_i (lower samples)
    double p_mean, a_mean, b_mean;
  };

  //! The mean weight of the sampled rows (the client's mean for the whole local batch).
  static double weight(const Vec& w, double full_mean, std::span<const Index> s) {
    if (s.empty()) return full_mean;
    double sum = 0;
    for (Index j : s) sum += w(j);
    return sum / static_cast<double>(s.size());
  }
  //! v *= w, skipped at w = 1 (exact either way; it keeps the weightless instance's operations).
  static void scale(Vec& v, double w) {
    if (w != 1) v *= w;
  }

  static double batch(std::span<const Index> s, Index n) {
    return static_cast<double>(s.empty() ? n : static_cast<Index>(s.size()));
  }
  template <class F>
  static void for_each_sample(std::span<const Index> s, Index n, F&& f) {
    if (s.empty())
      for (Index j = 0; j < n; ++j) f(j);
    else
      for (Index j : s) f(j);
  }
  //! Mean of the sampled columns (the precomputed full mean when s is empty).
  static Vec mean_column(const Mat& cols, const Vec& full_mean, std::span<const Index> s) {
    if (s.empty()) return full_mean;
    Vec m = Vec::Zero(cols.rows());
    for (Index j : s) m += cols.col(j);
    return m / static_cast<double>(s.size());
  }

  void solve_closed_form() {
    const Index dx = dim_x(), dy = dim_y();
    A_bar_ = Mat::Zero(dy, dy);
    B_bar_ = Mat::Zero(dy, dx);
    P_bar_ = Mat::Zero(dx, dx);
    Q_bar_ = Mat::Zero(dy, dy);
    c_bar_ = Vec::Zero(dy);
    q_bar_ = Vec::Zero(dy);
    r_bar_ = Vec::Zero(dx);
    const double m = static_cast<double>(clients_.size());
    for (const Client& c : clients_) {
      A_bar_ += (c.a_mean == 1 ? c.A : Mat(c.a_mean * c.A)) / m;
      B_bar_ += (c.b_mean == 1 ? c.B : Mat(c.b_mean * c.B)) / m;
      P_bar_ += (c.p_mean == 1 ? c.P : Mat(c.p_mean * c.P)) / m;
      Q_bar_ += c.Q / m;
      c_bar_ += c.c_mean / m;
      q_bar_ += c.Q * c.e_mean / m;
      r_bar_ += c.r / m;
    }
    S_ = A_bar_.ldlt().solve(B_bar_);
    hessian_F_ = P_bar_ + S_.transpose() * Q_bar_ * S_;
    const Vec y0 = A_bar_.ldlt().solve(c_bar_);  // y*(0)
    const Vec x_star = hessian_F_.ldlt().solve(-(r_bar_ + S_.transpose() * (Q_bar_ * y0 - q_bar_)));
    z_star_ = Vec(dx + dy);
    z_star_.head(dx) = x_star;
    z_star_.tail(dy) = A_bar_.ldlt().solve(B_bar_ * x_star + c_bar_);
  }

  std::vector<Client> clients_;
  double x0_, y0_;
  Mat A_bar_, B_bar_, P_bar_, Q_bar_, S_, hessian_F_;
  Vec c_bar_, q_bar_, r_bar_, z_star_;
};

FEDBENCH_REGISTER_PROBLEM(BilevelQuadratic, "bilevel-quadratic",
                          "heterogeneous quadratic bilevel problem with a closed-form hypergradient",
                          "fedbench test problem (not in the papers)");

}  // namespace fedbench::problems
