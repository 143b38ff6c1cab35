// Server (global) learning rates of the federated SGDA family (FSGDA, FESS-GDA, SAGDA):
// x <- (1 - eta_xg) x + eta_xg xbar, y <- (1 - eta_yg) y + eta_yg ybar. Written as convex
// combinations so that rates 1 give the plain average bit for bit (0 * x + xbar == xbar).
#pragma once
#include "core/types.hpp"

namespace fedbench::solvers {

inline void apply_server_rates(Vec& model, const Vec& mean, Index dim_x, double eta_xg,
                               double eta_yg) {
  const Index dy = model.size() - dim_x;
  model.head(dim_x) = (1.0 - eta_xg) * model.head(dim_x) + eta_xg * mean.head(dim_x);
  model.tail(dy) = (1.0 - eta_yg) * model.tail(dy) + eta_yg * mean.tail(dy);
}

}  // namespace fedbench::solvers
