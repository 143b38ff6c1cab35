// Federated WGAN on a 1-D Gaussian of
//   W. Shen, M. Huang, J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA), Section 4.1 and Figure 1,
//   after J. Yang, A. Orvieto, A. Lucchi, N. He, AISTATS 2022, and N. Loizou et al., ICML 2020
//   (the WGAN of M. Arjovsky, S. Chintala, L. Bottou, ICML 2017). The gradients and the closed
//   forms below (Phi, the saddle point) are our derivation, not in the paper.
//
//   f(mu, sigma, phi) = (1/n) sum_j [D_phi(x_j) - D_phi(G(z_j))] - lambda ||phi||^2,
//   G(z) = mu + sigma z (min player x = (mu, sigma)), D_phi(u) = phi1 u + phi2 u^2 (max player).
// Real data x_j = mu_real + sigma_real z_j with z_j ~ N(0, 1), split evenly over the clients:
// client i averages its n samples, f = (1/M) sum_i f_i, which is the pooled mean above.
// With A = mean(x) - mean(G), B = mean(x^2) - mean(G^2):
//   df/dphi1 = A - 2 lambda phi1,  df/dphi2 = B - 2 lambda phi2,
//   df/dmu = -phi1 - 2 phi2 mean(G),  df/dsigma = -phi1 mean(z') - 2 phi2 mean(G z'),
// where z' is the generator's noise. Resolved ambiguity: the formula of Section 4.1 feeds the
// generator the same z_j that produced x_j, where a WGAN would draw fresh noise. `paired =
// true` (default, the paper as written) feeds the same z_j to the generator, so (mu_real,
// sigma_real, 0, 0) is an exact saddle point of every client and minibatch; `paired = false`
// draws fresh z'.
// Metrics: param_error = (mu - mu_real)^2 + (sigma - sigma_real)^2 (the paper's y-axis) and
// Phi(mu, sigma) = (A^2 + B^2) / (4 lambda) on the full data. NC-SC: strongly concave in phi
// with modulus 2 lambda; no strong monotonicity, so no mu constant.
#include <cmath>

#include "core/random.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench::problems {

class WganGaussian : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x = (mu, sigma) of max over y = (phi1, phi2) (unconstrained) of "
      "f = (1/M) sum_i (1/n) sum_{j of client i} [ D(x_ij) - D(G(z'_ij)) ] - lambda (phi1^2 + phi2^2), "
      "D(u) = phi1 u + phi2 u^2, G(z) = mu + sigma z, real samples x_ij = mu_real + sigma_real z_ij with "
      "z_ij ~ N(0, 1), n per client; z'_ij = z_ij (paired=true, the paper as written) or fresh N(0, 1) "
      "(paired=false). The penalty is lambda ||phi||^2 with no 1/2 (strongly concave in phi with modulus 2 lambda). "
      "Every client holds n samples, so this mean of client means is the pooled mean (1/(M n)) sum of the paper "
      "(Shen et al., Section 4.1).";
  struct Params {
    int clients, samples;
    double lambda, mu_real, sigma_real, mu0, sigma0;
    bool paired;
    std::int64_t instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "10", {.ge = 1}, "M, clients (data split evenly)")
        .integer("samples", &Params::samples, "1000", {.ge = 1}, "samples per client")
        .real("lambda", &Params::lambda, "0.001", {.gt = 0}, "lambda, discriminator penalty")
        .real("mu_real", &Params::mu_real, "0", {}, "mean of the real data")
        .real("sigma_real", &Params::sigma_real, "0.1", {.gt = 0}, "std of the real data")
        .real("mu0", &Params::mu0, "1", {}, "initial mu")
        .real("sigma0", &Params::sigma0, "1", {}, "initial sigma")
        .boolean("paired", &Params::paired, "true",
                 "generator noise = the real data's z (paper as written); false: fresh noise")
        .integer("instance_seed", &Params::instance_seed, "0", {.ge = 0}, "seed of the data");
  }

  explicit WganGaussian(const Params& p)
      : lambda_(p.lambda), mu_real_(p.mu_real), sigma_real_(p.sigma_real), paired_(p.paired),
        start_(4) {
    const std::size_t n = static_cast<std::size_t>(p.clients) * p.samples;
    real_.resize(n);
    noise_.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      Stream rng(static_cast<std::uint64_t>(p.instance_seed), "wgan-gaussian", -1,
                 static_cast<std::int64_t>(j));
      const double z = rng.normal();
      real_[j] = p.mu_real + p.sigma_real * z;
      noise_[j] = p.paired ? z : rng.normal();
    }
    samples_ = p.samples;
    start_ << p.mu0, p.sigma0, 0, 0;
    set_shape(2, 2, std::vector<Index>(p.clients, p.samples));
  }

  std::string problem_class() const override { return "NC-SC"; }
  Vec initial_point() const override { return start_; }
  std::optional<Vec> reference_solution() const override {
    if (!paired_) return std::nullopt;
    Vec z(4);
    z << mu_real_, sigma_real_, 0, 0;
    return z;
  }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (mu, sigma, phi1, phi2): x = (mu, sigma), y = (phi1, phi2); G(z') = mu + sigma z', "
             "D(u) = phi1 u + phi2 u^2; f_i = mean_j [D(real[i, j]) - D(G(noise[i, j]))] - lambda (phi1^2 + phi2^2), "
             "f = mean_i f_i; param_error = (mu - mu_real)^2 + (sigma - sigma_real)^2, phi = (A^2 + B^2) / (4 lambda) "
             "with A = mean(real) - mean(G), B = mean(real^2) - mean(G^2) over all samples", "");
    const Index clients = num_clients();
    out.matrix("real", Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                           real_.data(), clients, samples_),
               "real[i, j] = mu_real + sigma_real z_j, sample j of client i");
    out.matrix("noise", Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                            noise_.data(), clients, samples_),
               paired_ ? "noise[i, j], the generator's noise z' of sample j of client i (paired: the z_j of real[i, j])"
                       : "noise[i, j], the generator's noise z' of sample j of client i (drawn apart from real)");
    out.scalar("lambda", lambda_, "lambda of -lambda ||phi||^2");
    out.scalar("mu_real", mu_real_, "mean of the real data");
    out.scalar("sigma_real", sigma_real_, "std of the real data");
  }

 protected:
  // Sample moments of one client's batch: the operator is linear in them.
  struct Moments {
    double r1 = 0, r2 = 0, g1 = 0, g2 = 0, z1 = 0, gz = 0;
  };
  Moments moments(int client, std::span<const Index> samples, const Vec& w) const {
    Moments m;
    auto add = [&](Index j) {
      const std::size_t k = static_cast<std::size_t>(client) * samples_ + j;
      const double g = w(0) + w(1) * noise_[k];
      m.r1 += real_[k];
      m.r2 += real_[k] * real_[k];
      m.g1 += g;
      m.g2 += g * g;
      m.z1 += noise_[k];
      m.gz += g * noise_[k];
    };
    Index count = 0;
    if (samples.empty()) {
      for (Index j = 0; j < samples_; ++j) add(j);
      count = samples_;
    } else {
      for (Index j : samples) add(j);
      count = static_cast<Index>(samples.size());
    }
    const double c = static_cast<double>(count);
    m.r1 /= c; m.r2 /= c; m.g1 /= c; m.g2 /= c; m.z1 /= c; m.gz /= c;
    return m;
  }

  void do_op(int client, std::span<const Index> samples, const Vec& w, Vec& out) const override {
    const Moments m = moments(client, samples, w);
    const double phi1 = w(2), phi2 = w(3);
    out(0) = -phi1 - 2 * phi2 * m.g1;                      // df/dmu
    out(1) = -phi1 * m.z1 - 2 * phi2 * m.gz;               // df/dsigma
    out(2) = -((m.r1 - m.g1) - 2 * lambda_ * phi1);        // -df/dphi1
    out(3) = -((m.r2 - m.g2) - 2 * lambda_ * phi2);        // -df/dphi2
  }

  double do_value(int client, std::span<const Index> samples, const Vec& w) const override {
    const Moments m = moments(client, samples, w);
    return w(2) * (m.r1 - m.g1) + w(3) * (m.r2 - m.g2) - lambda_ * (w(2) * w(2) + w(3) * w(3));
  }

  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::strong_concavity, 2 * lambda_, "2 lambda: modulus of strong concavity in phi");
    return k;
  }

  std::vector<std::string> extra_metric_names() const override { return {"param_error", "phi"}; }
  void extra_metrics(const Vec& w, std::span<double> out) const override {
    out[0] = (w(0) - mu_real_) * (w(0) - mu_real_) + (w(1) - sigma_real_) * (w(1) - sigma_real_);
    double a = 0, b = 0;
    for (int i = 0; i < num_clients(); ++i) {
      const Moments m = moments(i, {}, w);
      a += m.r1 - m.g1;
      b += m.r2 - m.g2;
    }
    a /= num_clients();
    b /= num_clients();
    out[1] = (a * a + b * b) / (4 * lambda_);
  }

 private:
  double lambda_, mu_real_, sigma_real_;
  bool paired_;
  Index samples_ = 0;
  std::vector<double> real_, noise_;
  Vec start_;
};

FEDBENCH_REGISTER_PROBLEM(WganGaussian, "wgan-gaussian",
                          "federated 1-D WGAN: linear generator vs quadratic discriminator (NC-SC)",
                          "Shen, Huang, Zhang, Shen, AISTATS 2024, Section 4.1");

}  // namespace fedbench::problems
