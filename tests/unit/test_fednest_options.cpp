// FedNest's options that follow its released code (github.com/ucr-optml/FedNest): the
// released code's FedIHGP sum (`series = released-code`) and LFedNest's local hypergradient
// recomputed at every local step. One round on bilevel-quadratic with full batches and one
// local step is deterministic; its x_1 is computed here from the counted oracles by a
// transcription of the code's recurrences (core/ClientManage.py fedIHGP, core/Client.py
// hvp_iter), independent of the solver file.
#include <doctest/doctest.h>

#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

const ParamMap kQuad{{"clients", "3"}, {"samples", "4"}, {"dim_x", "3"}, {"dim_y", "4"}};
constexpr double kTheta = 0.1, kGammaIn = 0.05, kGammaOut = 0.2;

Vec with(const BilevelProblem& p, const Vec& x, const Vec& y) {
  Vec z(p.dim());
  z << x, y;
  return z;
}

//! x_1 of one FedNest round (T_in = 1, tau = 1, full batches) with the mixed product applied to
//! `v_of(z at y_1)`.
template <class V>
Vec one_round(const BilevelProblem& p, V&& v_of) {
  OracleCounts c;
  const double m = p.num_clients();
  const Vec z0 = p.initial_point();
  Vec q = Vec::Zero(p.dim_y()), part;
  for (int i = 0; i < p.num_clients(); ++i) {
    p.lower_grad_y(i, {}, z0, part, c);
    q += part / m;
  }
  // One SVRG step at the anchor is the anchor's step: y_1 = y_0 - gamma_in q.
  const Vec z1 = with(p, z0.head(p.dim_x()), z0.tail(p.dim_y()) - kGammaIn * q);
  const Vec v = v_of(z1);
  Vec h = Vec::Zero(p.dim_x());
  for (int i = 0; i < p.num_clients(); ++i) {
    p.upper_grad_x(i, {}, z1, part, c);
    h += part / m;
    p.lower_jvp(i, {}, z1, v, part, c);
    h -= part / m;
  }
  return z0.head(p.dim_x()) - kGammaOut * h;
}

//! The released code's p after `exchanges` hvp_iter calls per client.
Vec released_code_p(const BilevelProblem& p, const Vec& z, int exchanges) {
  OracleCounts c;
  const int m = p.num_clients();
  Vec p0 = Vec::Zero(p.dim_y()), part;
  for (int i = 0; i < m; ++i) {
    p.upper_grad_y(i, {}, z, part, c);
    p0 += part / m;
  }
  std::vector<Vec> counters(static_cast<std::size_t>(m), p0);
  std::vector<Vec> list;  // p_locals: never cleared between exchanges
  Vec current = p0;
  for (int k = 0; k < exchanges; ++k) {
    for (int i = 0; i < m; ++i) {
      Vec& counter = counters[static_cast<std::size_t>(i)];
      p.lower_hvp(i, {}, z, counter, part, c);
      counter -= kTheta * part;
      list.push_back(current + counter);
    }
    Vec mean = Vec::Zero(p.dim_y());
    for (const Vec& entry : list) mean += entry;
    current = mean / static_cast<double>(list.size());
  }
  return current;  // no factor theta: hyper_grad takes p as it is
}

//! The paper's global series: v = theta sum_{j<Q} p_j, p_j = mean (I - theta H_i) p_{j-1}.
Vec global_series_v(const BilevelProblem& p, const Vec& z, int terms) {
  OracleCounts c;
  const double m = p.num_clients();
  Vec pj = Vec::Zero(p.dim_y()), part;
  for (int i = 0; i < p.num_clients(); ++i) {
    p.upper_grad_y(i, {}, z, part, c);
    pj += part / m;
  }
  Vec sum = pj;
  for (int j = 1; j < terms; ++j) {
    Vec next = Vec::Zero(p.dim_y());
    for (int i = 0; i < p.num_clients(); ++i) {
      p.lower_hvp(i, {}, z, pj, part, c);
      next += (pj - kTheta * part) / m;
    }
    pj = next;
    sum += pj;
  }
  return kTheta * sum;
}

testing::RunSpec fednest_round(const std::string& series, int terms) {
  testing::RunSpec spec;
  spec.solver = "fednest";
  spec.rounds = 1;
  spec.solver_params = {{"series", series},           {"neumann_terms", std::to_string(terms)},
                        {"theta", "0.1"},             {"gamma_in", "0.05"},
                        {"gamma_out", "0.2"},         {"local_steps", "1"},
                        {"batch_size", "0"},          {"inner_batch", "0"}};
  return spec;
}

}  // namespace

TEST_CASE("fednest series=released-code computes the released code's FedIHGP sum") {
  const auto p = testing::bilevel_problem("bilevel-quadratic", kQuad);
  for (int terms : {2, 4, 6}) {
    CAPTURE(terms);
    const auto run = testing::run(p, "bilevel-quadratic", kQuad, fednest_round("released-code", terms));
    const Vec expected = one_round(*p, [&](const Vec& z) { return released_code_p(*p, z, terms - 1); });
    CHECK((run.summary.final_x - expected).norm() <= 1e-12 * (1 + expected.norm()));
    // The paper's series gives another x: the option is not a relabelling.
    const auto global = testing::run(p, "bilevel-quadratic", kQuad, fednest_round("global", terms));
    const Vec paper = one_round(*p, [&](const Vec& z) { return global_series_v(*p, z, terms); });
    CHECK((global.summary.final_x - paper).norm() <= 1e-12 * (1 + paper.norm()));
    CHECK((global.summary.final_x - run.summary.final_x).norm() > 1e-6);
  }
}

TEST_CASE("lfednest local_hypergradient=every-step equals frozen at one local step, differs at several") {
  const auto p = testing::bilevel_problem("bilevel-quadratic", kQuad);
  testing::RunSpec spec;
  spec.solver = "lfednest";
  spec.rounds = 3;
  spec.solver_params = {{"local_steps", "1"}, {"neumann_terms", "4"}, {"theta", "0.1"}};
  const auto frozen = testing::run(p, "bilevel-quadratic", kQuad, spec);
  spec.solver_params["local_hypergradient"] = "every-step";
  const auto every = testing::run(p, "bilevel-quadratic", kQuad, spec);
  CHECK(every.summary.final_x == frozen.summary.final_x);  // the same arithmetic: the same bits
  spec.solver_params["local_steps"] = "4";
  const auto every4 = testing::run(p, "bilevel-quadratic", kQuad, spec);
  spec.solver_params["local_hypergradient"] = "frozen";
  const auto frozen4 = testing::run(p, "bilevel-quadratic", kQuad, spec);
  CHECK((every4.summary.final_x - frozen4.summary.final_x).norm() > 1e-8);
}
