// Every constant a problem can publish, by name. Problems set constants and theory presets
// read them only through these names, so a misspelled key is a compile error rather than a
// failure the first time a user asks for `theory`. Each entry has the text written to run
// files and shown by `fedbench describe PROBLEM` and a one-line meaning. Which presets read a
// constant is observed, not listed here (engine/theory_reads.hpp).
//
// Adding a constant: one enumerator and one table row, in the same order.
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace fedbench {

enum class Constant {
  // strong monotonicity / convexity
  mu, mu_global, mu_code, mu_y, mu_g, mu_g_client_min, strong_concavity, phi_mu, hyper_mu,
  // smoothness
  lipschitz, lipschitz_client_max, lipschitz_g_client_max, cross_lipschitz_g, phi_smoothness,
  hyper_smoothness,
  // cocoercivity (Loizou et al. 2021, star-cocoercivity of the operator)
  cocoercivity, cocoercivity_exact, cocoercivity_client_max, cocoercivity_client_max_exact,
  cocoercivity_sample_max, cocoercivity_sample_max_exact,
  // noise and heterogeneity at the solution
  sigma_star_sq, heterogeneity,
  // sizes and settings of the instance (information)
  coupling, tau, classes, hidden, weights, rows_used, train_rows, validation_rows,
  corrupted_rows, test_rows,
};

struct ConstantInfo {
  Constant id;
  std::string_view name;     //!< the key in run files and `describe`
  std::string_view meaning;  //!< one line
};

inline constexpr std::array kConstantTable{
    ConstantInfo{Constant::mu, "mu", "strong monotonicity modulus of every client's operator "
                 "(of the global one where some client is only monotone)"},
    ConstantInfo{Constant::mu_global, "mu_global",
                 "lambda_min of the symmetric part of the global operator's Jacobian"},
    ConstantInfo{Constant::mu_code, "mu_code",
                 "the modulus as the published code computes it (half of mu)"},
    ConstantInfo{Constant::mu_y, "mu_y", "strong concavity in y"},
    ConstantInfo{Constant::mu_g, "mu_g", "strong convexity of the lower level g in y"},
    ConstantInfo{Constant::mu_g_client_min, "mu_g_client_min",
                 "min over clients of the strong convexity of g_i in y"},
    ConstantInfo{Constant::strong_concavity, "strong_concavity",
                 "strong concavity modulus in the max player"},
    ConstantInfo{Constant::phi_mu, "phi_mu",
                 "strong convexity of Phi(x) = max_y f(x, y) (< 0: nonconvex)"},
    ConstantInfo{Constant::hyper_mu, "hyper_mu",
                 "lambda_min of the Hessian of the hyper-objective F"},
    ConstantInfo{Constant::lipschitz, "lipschitz", "Lipschitz constant of the global operator"},
    ConstantInfo{Constant::lipschitz_client_max, "lipschitz_client_max",
                 "max over clients of the Lipschitz constant of F_i"},
    ConstantInfo{Constant::lipschitz_g_client_max, "lipschitz_g_client_max",
                 "max over clients of the smoothness of g_i in y (a bound)"},
    ConstantInfo{Constant::cross_lipschitz_g, "cross_lipschitz_g",
                 "max over clients of ||grad^2_xy g_i||"},
    ConstantInfo{Constant::phi_smoothness, "phi_smoothness", "smoothness of Phi(x) = max_y f(x, y)"},
    ConstantInfo{Constant::hyper_smoothness, "hyper_smoothness",
                 "lambda_max of the Hessian of the hyper-objective F"},
    ConstantInfo{Constant::cocoercivity, "cocoercivity",
                 "ell of the global operator (star-cocoercivity, eigenvalue formula)"},
    ConstantInfo{Constant::cocoercivity_exact, "cocoercivity_exact",
                 "exact ell of the global operator"},
    ConstantInfo{Constant::cocoercivity_client_max, "cocoercivity_client_max",
                 "max over clients of ell_i (eigenvalue formula)"},
    ConstantInfo{Constant::cocoercivity_client_max_exact, "cocoercivity_client_max_exact",
                 "max over clients of the exact ell_i"},
    ConstantInfo{Constant::cocoercivity_sample_max, "cocoercivity_sample_max",
                 "max over samples of ell_ij (eigenvalue formula)"},
    ConstantInfo{Constant::cocoercivity_sample_max_exact, "cocoercivity_sample_max_exact",
                 "max over samples of the exact ell_ij"},
    ConstantInfo{Constant::sigma_star_sq, "sigma_star_sq",
                 "(1/n) sum_i ||F_i(z*)||^2: client operator spread at the solution"},
    ConstantInfo{Constant::heterogeneity, "heterogeneity",
                 "max_i ||F_i(z*) - F(z*)||^2: client drift at the solution"},
    ConstantInfo{Constant::coupling, "coupling", "scale of the x-y coupling block actually used"},
    ConstantInfo{Constant::tau, "tau", "fraction of positive labels used in the loss"},
    ConstantInfo{Constant::classes, "classes", "number of classes"},
    ConstantInfo{Constant::hidden, "hidden", "width of the hidden layer"},
    ConstantInfo{Constant::weights, "weights", "dimension of the classifier weights x"},
    ConstantInfo{Constant::rows_used, "rows_used", "data rows kept in the instance"},
    ConstantInfo{Constant::train_rows, "train_rows", "lower-level (training) rows over all clients"},
    ConstantInfo{Constant::validation_rows, "validation_rows",
                 "upper-level (validation) rows over all clients"},
    ConstantInfo{Constant::corrupted_rows, "corrupted_rows",
                 "training rows whose label was corrupted"},
    ConstantInfo{Constant::test_rows, "test_rows", "held-out test rows"},
};

constexpr const ConstantInfo& constant_info(Constant c) {
  return kConstantTable[static_cast<std::size_t>(c)];
}
constexpr std::string_view constant_name(Constant c) { return constant_info(c).name; }
//! The constant a run-file key names, if any.
std::optional<Constant> constant_from_name(std::string_view name);

// The table is indexed by the enumerator: keep both in one order.
consteval bool constant_table_in_order() {
  for (std::size_t i = 0; i < kConstantTable.size(); ++i)
    if (static_cast<std::size_t>(kConstantTable[i].id) != i) return false;
  return kConstantTable.size() == static_cast<std::size_t>(Constant::test_rows) + 1;
}
static_assert(constant_table_in_order(), "kConstantTable must list every Constant in enum order");

}  // namespace fedbench
