// Row blocks of the exact bilevel metrics (bilevel_problem.hpp): a client's block sums are added
// in block order, normalised by its rows, given its terms without rows, and the clients' parts
// added in client order: the plain nested loop's bits at any thread count. hyper-logreg's blocked
// metrics agree with the plain per-client loop over its full-batch oracles (the computation
// before blocks); problems that do not opt in still give that loop's bits exactly.
#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include "problem/evaluation_threads.hpp"
#include "support/instance_arrays.hpp"
#include "support/run_helpers.hpp"

using namespace fedbench;

namespace {

// Values of full mantissas and magnitudes 1e-4 to 1e4: their floating-point sum depends on the
// order of addition.
double spread(int k) { return std::sin(1.0 + k) * std::pow(10.0, (k * 7) % 9 - 4); }

Vec vec2(double a, double b) {
  Vec v(2);
  v << a, b;
  return v;
}

//! Three clients of 1, 3 and 6 upper-level blocks and 4, 1 and 7 lower-level ones, whose parts
//! are fixed order-sensitive numbers (x in R, y in R^2; the Hessian of g is 2 I).
class Blocked : public BilevelProblem {
 public:
  static constexpr int kClients = 3;
  Blocked() { set_bilevel_shape(1, 2, {9, 5, 13}, {4, 6, 11}); }
  std::string problem_class() const override { return "test"; }
  int upper_row_blocks(int i) const override { return std::array{1, 3, 6}[static_cast<std::size_t>(i)]; }
  int lower_row_blocks(int i) const override { return std::array{4, 1, 7}[static_cast<std::size_t>(i)]; }

  // Every part by client and block; a client of one block is computed whole, as block -1.
  static double upper(int i, int b, const Vec& z) { return spread(10 * i + b + 7) * z(1); }
  static double lower(int i, int b, const Vec& z) { return spread(20 * i + b + 7) * z(2); }
  static double terms(int i) { return spread(50 + i); }
  static Vec upper_grad(int i, int b) { return vec2(spread(30 * i + b + 1), spread(40 * i + b + 2)); }
  static double upper_grad_x(int i) { return spread(60 + i); }
  static double jvp_weight(int i) { return spread(70 + i); }

 protected:
  void do_upper_grad_x(int i, std::span<const Index>, const Vec&, Vec& out) const override {
    out(0) = upper_grad_x(i);
  }
  void do_upper_grad_y(int i, std::span<const Index>, const Vec&, Vec& out) const override {
    out = upper_grad(i, -1);
  }
  void do_lower_grad_x(int, std::span<const Index>, const Vec&, Vec& out) const override { out.setZero(); }
  void do_lower_grad_y(int, std::span<const Index>, const Vec& z, Vec& out) const override {
    out = 2 * z.tail(2);
  }
  void do_lower_hvp(int, std::span<const Index>, const Vec&, const Vec& v, Vec& out) const override {
    out = 2 * v;
  }
  void do_lower_jvp(int i, std::span<const Index>, const Vec&, const Vec& v, Vec& out) const override {
    out(0) = jvp_weight(i) * v(0) + v(1);
  }
  double do_upper_value(int i, std::span<const Index>, const Vec& z) const override {
    return upper(i, -1, z);
  }
  double do_lower_value(int i, std::span<const Index>, const Vec& z) const override {
    return lower(i, -1, z);
  }
  bool lower_hessian(const Vec&, Mat& hessian) const override {
    hessian = 2 * Mat::Identity(2, 2);
    return true;
  }
  double do_upper_block_value(int i, int b, const Vec& z) const override { return upper(i, b, z); }
  void do_upper_block_grad_y(int i, int b, const Vec&, Vec& out) const override { out = upper_grad(i, b); }
  double do_lower_block_value(int i, int b, const Vec& z) const override { return lower(i, b, z); }
  void do_lower_block_grad_y(int, int, const Vec& z, Vec& out) const override { out = z.tail(2); }
  void do_lower_block_hvp(int, int, const Vec&, const Vec& v, Vec& out) const override { out = v; }
  double lower_client_terms(int i, const Vec&) const override { return terms(i); }
};

//! Orders of addition: the plain nested loop's, and two others (whose bits must differ).
enum class Order { plain, blocks_reversed, clients_reversed };

//! The nested loop: (1/M) sum over clients of the whole part, or of (1/n_i) (block sums in
//! order) + terms.
template <class Slot, class Whole, class Block, class Terms>
Slot nested_mean(const BilevelProblem& p, const Slot& zero, bool upper, Whole&& whole, Block&& block,
                 Terms&& terms, Order order = Order::plain) {
  Slot total = zero;
  const int clients = p.num_clients();
  for (int k = 0; k < clients; ++k) {
    const int i = order == Order::clients_reversed ? clients - 1 - k : k;
    const int blocks = upper ? p.upper_row_blocks(i) : p.lower_row_blocks(i);
    if (blocks == 1) {
      total += whole(i);
      continue;
    }
    Slot sum = zero;
    for (int j = 0; j < blocks; ++j) sum += block(i, order == Order::blocks_reversed ? blocks - 1 - j : j);
    sum /= static_cast<double>(upper ? p.num_upper_samples(i) : p.num_samples(i));
    total += terms(i, sum);
  }
  total /= static_cast<double>(clients);
  return total;
}

}  // namespace

TEST_CASE("row blocks: client by client, block by block, the plain nested loop's bits at any thread count") {
  const Blocked p;
  Vec z(3);
  z << 0.5, 1.25, -0.75;
  const auto upper_value = [&](Order order) {
    return nested_mean(
        p, 0.0, true, [&](int i) { return Blocked::upper(i, -1, z); },
        [&](int i, int b) { return Blocked::upper(i, b, z); }, [](int, double sum) { return sum; }, order);
  };
  const auto lower_value = [&](Order order) {
    return nested_mean(
        p, 0.0, false, [&](int i) { return Blocked::lower(i, -1, z); },
        [&](int i, int b) { return Blocked::lower(i, b, z); },
        [](int i, double sum) { return sum + Blocked::terms(i); }, order);
  };
  // grad F = grad_x f - grad^2_xy g [grad^2_yy g]^-1 grad_y f, grad_x f and the jvp per client.
  const Vec fy = nested_mean(
      p, Vec(Vec::Zero(2)), true, [](int i) { return Blocked::upper_grad(i, -1); },
      [](int i, int b) { return Blocked::upper_grad(i, b); }, [](int, const Vec& sum) { return sum; });
  double fx = 0, jv = 0;
  const Vec v = Eigen::LLT<Mat>(2 * Mat::Identity(2, 2)).solve(fy);
  for (int i = 0; i < Blocked::kClients; ++i) {
    fx += Blocked::upper_grad_x(i);
    jv += Blocked::jvp_weight(i) * v(0) + v(1);
  }
  fx /= Blocked::kClients;
  const double hypergradient = fx - jv / Blocked::kClients;
  // Blocks or clients added in another order give other bits: the checks below can fail.
  for (Order other : {Order::blocks_reversed, Order::clients_reversed}) {
    REQUIRE(upper_value(other) != upper_value(Order::plain));
    REQUIRE(lower_value(other) != lower_value(Order::plain));
  }
  for (int threads : {0, 1, 2, 3, 5}) {
    CAPTURE(threads);
    std::optional<ThreadPool> pool;
    if (threads > 0) pool.emplace(threads);
    const EvaluationThreads scope(pool ? &*pool : nullptr, 0.0);  // share every fold
    CHECK(p.global_upper_value(z) == upper_value(Order::plain));
    CHECK(p.global_lower_value(z) == lower_value(Order::plain));
    CHECK(p.hypergradient(z.head(1), z.tail(2))(0) == hypergradient);
  }
}

TEST_CASE("row blocks: the threads take blocks block-major, the folds stay client by client") {
  // Clients of 3, 1 and 2 blocks. With one thread the parts run in the order they are taken.
  const std::vector<int> blocks{3, 1, 2};
  ThreadPool pool(1);
  const EvaluationThreads scope(&pool, 0.0);
  using Item = std::pair<int, int>;
  std::vector<Item> computed, folded;
  fold_blocks_in_order(
      3, [&](int i) { return blocks[static_cast<std::size_t>(i)]; }, 0,
      [&](int i, int b, int&) { computed.emplace_back(i, b); }, [&](int i, int b, int&) { folded.emplace_back(i, b); });
  // The first part runs alone (its time decides whether the scope shares), then every client's
  // first block, every second one, ...: short last blocks are taken last.
  CHECK(computed == std::vector<Item>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}});
  CHECK(folded == std::vector<Item>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {2, 0}, {2, 1}});
}

namespace {

//! The exact metrics' quantities as computed before row blocks: per client over the full-batch
//! counted oracles, the clients' parts added in client order.
struct PerClient {
  const BilevelProblem& p;
  mutable OracleCounts counts;

  template <class Slot, class Part>
  Slot mean(Slot total, Part&& part) const {
    for (int i = 0; i < p.num_clients(); ++i) total += part(i);
    total /= static_cast<double>(p.num_clients());
    return total;
  }
  double upper_value(const Vec& z) const {
    return mean(0.0, [&](int i) { return p.upper_value(i, {}, z, counts); });
  }
  double lower_value(const Vec& z) const {
    return mean(0.0, [&](int i) { return p.lower_value(i, {}, z, counts); });
  }
  //! The mean of a vector oracle's full batches, e.g. &BilevelProblem::upper_grad_y; `args`:
  //! its vector argument, if any.
  template <class Oracle, class... Args>
  Vec mean(Index size, Oracle oracle, const Vec& z, const Args&... args) const {
    return mean(Vec(Vec::Zero(size)), [&](int i) {
      Vec out;
      (p.*oracle)(i, {}, z, args..., out, counts);
      return out;
    });
  }
  Vec lower_grad_y(const Vec& z) const { return mean(p.dim_y(), &BilevelProblem::lower_grad_y, z); }
  //! grad^2_yy g column by column from Hessian-vector products.
  Mat lower_hessian(const Vec& z) const {
    Mat h(p.dim_y(), p.dim_y());
    for (Index k = 0; k < p.dim_y(); ++k)
      h.col(k) = mean(p.dim_y(), &BilevelProblem::lower_hvp, z, Vec(Vec::Unit(p.dim_y(), k)));
    return h;
  }
  //! The implicit-function hypergradient, its linear system solved by `solve`.
  template <class Solve>
  Vec hypergradient(const Vec& z, Solve&& solve) const {
    const Vec v = solve(mean(p.dim_y(), &BilevelProblem::upper_grad_y, z));
    return mean(p.dim_x(), &BilevelProblem::upper_grad_x, z) - mean(p.dim_x(), &BilevelProblem::lower_jvp, z, v);
  }
};

Vec moved_start(const BilevelProblem& p) {
  Vec z = p.initial_point();
  for (Index k = 0; k < z.size(); ++k) z(k) += 0.05 * std::sin(1.0 + static_cast<double>(k));
  return z;
}

double relative(double a, double b) { return std::abs(a - b) / std::abs(b); }

//! Test accuracy and mean cross-entropy of hyper-logreg's y over its test rows, from the
//! instance's dense rows (logits a^T y on the model's columns, the others 0).
std::pair<double, double> test_accuracy_and_loss(const BilevelProblem& p, const Vec& y) {
  testing::InstanceArrays inst;
  p.write_instance(inst);
  const Mat& X = inst.X.at("X");
  const Vec& labels = inst.vectors.at("labels");
  const auto classes = static_cast<Index>(inst.scalars.at("classes"));
  const auto columns = static_cast<Index>(inst.scalars.at("columns"));
  const Mat Y = Eigen::Map<const Mat>(y.data(), columns, X.cols()).transpose();  // feature-major
  double right = 0, loss = 0;
  const auto& rows = inst.lists.at("test_rows");
  for (Index row : rows) {
    Vec logits = Vec::Zero(classes);
    logits.tail(columns) = Y.transpose() * X.row(row).transpose();
    Index best = 0;
    const double top = logits.maxCoeff(&best);
    const auto label = static_cast<Index>(labels(row));
    loss += top + std::log((logits.array() - top).exp().sum()) - logits(label);
    right += best == label;
  }
  return {right / static_cast<double>(rows.size()), loss / static_cast<double>(rows.size())};
}

}  // namespace

TEST_CASE("row blocks: hyper-logreg's blocked metrics agree with its per-client full batches") {
  // Instances whose every client has several row blocks at both levels: two softmax columns
  // (the binary Hessian assembly; a test set of two blocks; on w8a, whose Hessian is larger,
  // Hessian parts of five blocks), the logistic model (the general assembly, c = 1) and six
  // classes (no dense Hessian: conjugate gradients on the blocks' Hessian-vector products).
  const std::vector<ParamMap> cases{
      {{"dataset", "a9a"}, {"rows", "12000"}, {"clients", "2"}},
      {{"dataset", "w8a"}, {"rows", "20000"}, {"clients", "2"}},
      {{"dataset", "a9a"}, {"rows", "12000"}, {"clients", "2"}, {"model", "logistic"}},
      {{"dataset", "satimage"}, {"clients", "1"}}};
  for (const auto& params : cases) {
    CAPTURE(params.at("dataset"));
    const auto p = testing::bilevel_problem("hyper-logreg", params);
    for (int i = 0; i < p->num_clients(); ++i)
      REQUIRE((p->lower_row_blocks(i) > 1 && p->upper_row_blocks(i) > 1));
    const PerClient plain{*p, {}};
    const Vec z = moved_start(*p);
    const Vec y_star = p->lower_solution(z.head(p->dim_x()), z.tail(p->dim_y()));
    Vec z_star = z;
    z_star.tail(p->dim_y()) = y_star;
    // The blocked Newton solve's y* solves the per-client problem to the same floor.
    CHECK(plain.lower_grad_y(z_star).norm() <= 1e-14 * (1 + plain.lower_grad_y(z).norm()));

    const auto names = p->metric_names();
    std::vector<double> m(names.size());
    p->metrics(z, m);  // y* as above: the problem keeps its last solve
    std::map<std::string, double> at;
    for (std::size_t k = 0; k < names.size(); ++k) at[names[k]] = m[k];
    CHECK(relative(at["upper_value"], plain.upper_value(z)) <= 1e-13);
    CHECK(relative(at["hyper_objective"], plain.upper_value(z_star)) <= 1e-13);
    // The problem solves with its own factor (two softmax columns: the sums and differences of
    // each feature's pair; the logistic model: a Cholesky factor of its blocked assembly) or,
    // for six classes, by conjugate gradients; here a Cholesky factor of the Hessian's columns
    // of per-client products.
    const Mat hessian = plain.lower_hessian(z_star);
    Vec b(p->dim_y());
    for (Index k = 0; k < b.size(); ++k) b(k) = std::sin(3.0 + static_cast<double>(k));
    CHECK((hessian * p->solve_lower_hessian(z_star, b) - b).norm() <= 1e-12 * b.norm());
    const Vec hypergradient =
        plain.hypergradient(z_star, [&](const Vec& rhs) { return Vec(hessian.llt().solve(rhs)); });
    CHECK(relative(at["hypergrad_norm"], hypergradient.norm()) <= 1e-13);
    const double g = plain.lower_value(z);
    CHECK(std::abs(at["lower_gap"] - (g - plain.lower_value(z_star))) <= 1e-13 * g);
    const auto [accuracy, loss] = test_accuracy_and_loss(*p, y_star);
    CHECK(at["test_accuracy"] == accuracy);
    CHECK(relative(at["test_loss"], loss) <= 1e-13);
    CHECK(at["model_test_accuracy"] == test_accuracy_and_loss(*p, z.tail(p->dim_y())).first);
  }
}

TEST_CASE("row blocks: problems that keep whole clients give the per-client loop's bits") {
  const std::vector<std::pair<std::string, ParamMap>> cases{
      {"bilevel-quadratic", {{"clients", "3"}, {"samples", "4"}, {"dim_x", "3"}, {"dim_y", "4"}}},
      {"data-hypercleaning", {{"dataset", "heart"}, {"rows", "100"}, {"clients", "3"}}},
      {"hyper-representation", {{"dataset", "heart"}, {"hidden", "4"}, {"clients", "3"}}}};
  for (const auto& entry : cases) {
    const std::string& name = entry.first;  // a plain name: clang 14 lambdas cannot capture bindings
    CAPTURE(name);
    const auto p = testing::bilevel_problem(name, entry.second);
    for (int i = 0; i < p->num_clients(); ++i)
      REQUIRE((p->lower_row_blocks(i) == 1 && p->upper_row_blocks(i) == 1));
    const PerClient plain{*p, {}};
    const Vec z = moved_start(*p);
    for (int threads : {0, 2}) {
      CAPTURE(threads);
      std::optional<ThreadPool> pool;
      if (threads > 0) pool.emplace(threads);
      const EvaluationThreads scope(pool ? &*pool : nullptr, 0.0);
      CHECK(p->global_upper_value(z) == plain.upper_value(z));
      CHECK(p->global_lower_value(z) == plain.lower_value(z));
      const Vec hypergradient =
          plain.hypergradient(z, [&](const Vec& rhs) { return p->solve_lower_hessian(z, rhs); });
      CHECK(
          (p->hypergradient(z.head(p->dim_x()), z.tail(p->dim_y())).array() == hypergradient.array()).all());
    }
  }
}
