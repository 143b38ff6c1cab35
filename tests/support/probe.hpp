// Independent views of a problem for tests: the operator matrix of an affine oracle recovered
// by probing it at unit vectors (through the public, counted API), converted to Armadillo, and
// the location of the shared datasets.
#pragma once
#include <armadillo>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/registry.hpp"
#include "problem/minimax_problem.hpp"

namespace fedbench::testing {

//! J and b with oracle(z) = J z + b, for an affine oracle (client, samples) of p.
inline void probe_affine(const MinimaxProblem& p, int client, std::vector<Index> samples,
                         arma::mat& J, arma::vec& b) {
  OracleCounts scratch;
  const Index d = p.dim();
  Vec z = Vec::Zero(d), out(d);
  p.op(client, samples, z, out, scratch);
  b = arma::vec(out.data(), static_cast<arma::uword>(d));
  J.set_size(d, d);
  for (Index k = 0; k < d; ++k) {
    z.setZero();
    z(k) = 1.0;
    p.op(client, samples, z, out, scratch);
    for (Index r = 0; r < d; ++r) J(r, k) = out(r) - b(r);
  }
}

//! The global operator (1/M) sum_i F_i as J z + b.
inline void probe_global(const MinimaxProblem& p, arma::mat& J, arma::vec& b) {
  J.zeros(p.dim(), p.dim());
  b.zeros(p.dim());
  for (int i = 0; i < p.num_clients(); ++i) {
    arma::mat Ji;
    arma::vec bi;
    probe_affine(p, i, {}, Ji, bi);
    J += Ji / p.num_clients();
    b += bi / p.num_clients();
  }
}

//! Constants by Armadillo (LAPACK), written from the definitions, for cross-checks.
inline double arma_mu(const arma::mat& J) { return arma::eig_sym(0.5 * (J + J.t())).min(); }
inline double arma_lipschitz(const arma::mat& J) { return arma::norm(J, 2); }
inline double arma_cocoercivity_eig(const arma::mat& J) {
  const arma::cx_vec l = arma::eig_gen(J);
  double m = INFINITY;
  for (const auto& v : l)
    if (std::abs(v) > 1e-5) m = std::min(m, (1.0 / v).real());
  return 1.0 / m;
}

//! (grad_x f, -grad_y f) of client (and samples) by central differences of the value oracle.
inline Vec fd_operator(const MinimaxProblem& p, int client, std::vector<Index> samples,
                       const Vec& z, double h) {
  OracleCounts scratch;
  Vec g(p.dim());
  for (Index k = 0; k < p.dim(); ++k) {
    Vec a = z, b = z;
    a(k) += h;
    b(k) -= h;
    const double d =
        (p.value(client, samples, a, scratch) - p.value(client, samples, b, scratch)) / (2 * h);
    g(k) = k < p.dim_x() ? d : -d;
  }
  return g;
}

//! A data file by its path below a data directory: the first directory of the registry's
//! search path ($FEDBENCH_DATA, ./datasets/data, ../shared/datasets, ...) that holds it.
inline std::string dataset_path(const std::string& relative) {
  for (const auto& dir : datasets::data_search_path())
    if (std::filesystem::exists(dir + "/" + relative)) return dir + "/" + relative;
  return "../shared/datasets/" + relative;  // absent everywhere: the test's read names this path
}

inline Vec to_eigen(const arma::vec& v) {
  return Eigen::Map<const Vec>(v.memptr(), static_cast<Index>(v.n_elem));
}

}  // namespace fedbench::testing
