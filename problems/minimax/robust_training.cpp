// Robust training against one universal input perturbation, of
//   J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, arXiv 2105.14216, 2021 (CD-MAGE), Section 5.2
//   (Figs. 2 and 5), following the setting of Y. Deng, M. Mahdavi, AISTATS 2021.
//
//   f_i(x, y) = (1/n_i) sum_j CE(h_x(a_ij + y), b_ij) - (lambda/2) ||y||^2,   f = (1/M) sum_i f_i,
// x the classifier's weights (min), y in R^d a perturbation shared by every sample and client
// (max, communicated like x). h_x is softmax regression (`hidden` empty) or a fully connected
// ReLU network with the given hidden widths (the paper: 200,200), written by hand: forward,
// backward and the input gradient W_1^T delta_1 that y needs.
// Resolved: -(lambda/2)||y||^2 with lambda = 0.001 (Section 5.2; the authors' code's 0.001
// ||y||^2 is lambda = 0.002); y0 = 0; the MLP starts as PyTorch's nn.Linear does (the paper
// states PyTorch's default initialisation): W_l and b_l uniform on +-1/sqrt(fan_in)
// (`init = he`: W_l ~ N(0, 2/fan_in), b_l = 0); the linear model starts at 0; pixels mapped to [-1, 1] (`pixels = signed`, Section 5.2). Softmax
// regression is our CPU substitute for the paper's MLP (`hidden = 200,200` gives the MLP).
// Concavity in y is not guaranteed for small lambda, as in the paper.
// Metrics: clean test accuracy, and the robust loss and accuracy by `ascent_steps` full-batch
// gradient-ascent steps of size `ascent_step` on a copy of y (warm start at the current y, at 0
// when ||y||^2 > 10: the authors' code's rule), on the first `eval_rows` training and test rows.
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/text.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"
#include "datasets/train_test.hpp"
#include "problem/evaluation_threads.hpp"
#include "problem/problem_registry.hpp"
#include "problems/common/client_rows.hpp"
#include "problems/common/client_split.hpp"
#include "problems/common/instance_rows.hpp"

namespace fedbench::problems {

class RobustTraining : public MinimaxProblem {
 public:
  static constexpr const char* kObjective =
      "min over x (the classifier's weights) of max over y in R^d (one perturbation added to every input of every "
      "client; unconstrained) of f = (1/M) sum_i (1/n_i) sum_{j in rows of client i} CE(h_x(a_j + y), b_j) "
      "- (lambda/2) ||y||^2, CE(l, b) = log sum_k exp(l_k) - l_b, h_x = softmax regression W a + b (hidden empty) "
      "or a ReLU MLP with the given hidden widths (no ReLU on the logits); a_j = 2 v_j - 1 of the raw features v_j "
      "(pixels=signed). As Xie et al. (Section 5.2) write it: the penalty has the 1/2 (the authors' code's "
      "0.001 ||y||^2 is lambda = 0.002) and replaces the constraint ||y|| <= 1; softmax regression is our "
      "substitute for the paper's MLP (hidden=200,200).";
  // The robust metrics run ascent_steps full passes over eval_rows rows per evaluation.
  static constexpr bool kExpensiveMetrics = true;
  struct Params {
    enum class Pixels { signed_unit, raw };
    enum class Init { pytorch, he };
    std::string dataset, partition, hidden;
    Pixels pixels;
    Init init;
    int clients, eval_rows, ascent_steps;
    std::int64_t rows;
    double lambda, test_fraction, ascent_step;
    std::int64_t partition_seed, instance_seed;
  };
  static void declare(Schema<Params>& s) {
    s.text("dataset", &Params::dataset, "mnist-t10k", "registered dataset (images or LIBSVM)")
        .integer("clients", &Params::clients, "10", {.ge = 1}, "M, clients")
        .text("partition", &Params::partition, "iid", "iid | shards:S | dirichlet:A | quantity:A")
        .integer("partition_seed", &Params::partition_seed, "0", {.ge = 0}, "seed of partition and split")
        .integer("rows", &Params::rows, "0", {.ge = 0},
                 "use this many seeded random training rows (0: all; the test set is kept whole)")
        .text("hidden", &Params::hidden, "", "hidden ReLU widths, e.g. 200,200 (empty: softmax regression)")
        .real("lambda", &Params::lambda, "0.001", {.ge = 0}, "lambda of -(lambda/2)||y||^2")
        .choice("pixels", &Params::pixels, "signed", {{"signed", Params::Pixels::signed_unit}, {"raw", Params::Pixels::raw}}, "map features v to 2v-1 (signed) or keep")
        .real("test_fraction", &Params::test_fraction, "0.2", {.ge = 0, .lt = 1},
              "held-out rows when the dataset has no test file")
        .integer("eval_rows", &Params::eval_rows, "1000", {.ge = 1}, "rows of each set for the robust metrics")
        .integer("ascent_steps", &Params::ascent_steps, "20", {.ge = 0}, "ascent steps of the robust loss")
        .real("ascent_step", &Params::ascent_step, "1", {.gt = 0}, "step of those ascent steps")
        .choice("init", &Params::init, "pytorch", {{"pytorch", Params::Init::pytorch}, {"he", Params::Init::he}},
                "MLP start: PyTorch's nn.Linear default (W, b uniform on +-1/sqrt(fan_in)) or He (W normal, b 0)")
        .integer("instance_seed", &Params::instance_seed, "0", {.ge = 0}, "seed of the initial weights");
  }

  explicit RobustTraining(const Params& p) : lambda_(p.lambda), ascent_steps_(p.ascent_steps),
                                              ascent_step_(p.ascent_step),
                                              dense_(p.pixels == Params::Pixels::signed_unit || dense_rows(p.dataset)) {
    const auto& info = datasets::dataset_info(p.dataset);
    if (info.classes < 2) throw UserError("problem robust-training: " + p.dataset + " is not labelled");
    C_ = info.classes;
    auto data = datasets::load_train_test(p.dataset, p.test_fraction, static_cast<std::uint64_t>(p.partition_seed));
    keep_random_rows(data.train_X, data.train_y, p.rows, static_cast<std::uint64_t>(p.partition_seed),
                     "robust-training", p.dataset + " (besides its test set)");
    // Stored one sample per column: a block of rows is a block of contiguous columns.
    X_ = data.train_X.dense().transpose();
    y_ = data.train_y;
    test_X_ = data.test_X.dense().transpose();
    test_y_ = data.test_y;
    if (p.pixels == Params::Pixels::signed_unit) {
      X_ = (2.0 * X_.array() - 1.0).matrix();
      test_X_ = (2.0 * test_X_.array() - 1.0).matrix();
    }
    d_ = X_.rows();
    widths_.push_back(d_);
    for (const auto& w : split(p.hidden, ','))
      if (!w.empty()) {
        long long v = 0;
        if (!parse_int(w, v) || v < 1)
          throw UserError("problem robust-training: hidden = '" + p.hidden +
                          "' is not a list of positive widths, e.g. 200,200");
        widths_.push_back(v);
      }
    widths_.push_back(C_);
    for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
      offsets_.push_back(n_weights_);
      n_weights_ += widths_[l + 1] * (widths_[l] + 1);
    }
    start_ = Vec::Zero(n_weights_ + d_);
    if (widths_.size() > 2) initialise_mlp(p.init, static_cast<std::uint64_t>(p.instance_seed));
    clients_ = datasets::partition_rows(y_, p.clients, datasets::PartitionScheme::parse(p.partition),
                                   static_cast<std::uint64_t>(p.partition_seed));
    std::vector<Index> sizes;
    for (const auto& c : clients_) sizes.push_back(static_cast<Index>(c.size()));
    eval_train_ = std::min<Index>(p.eval_rows, X_.cols());
    eval_test_ = std::min<Index>(p.eval_rows, test_X_.cols());
    set_shape(n_weights_, d_, sizes);
  }

  std::string problem_class() const override { return "NC-NC (concave in y only for large lambda)"; }
  Vec initial_point() const override { return start_; }
  std::optional<ClientLabels> client_labels() const override {
    return client_label_histograms(clients_, y_);
  }
  void write_instance(InstanceWriter& out) const override {
    out.text("layout",
             "z = (x, y): x = for each layer l = 0..L-1, at layer_offsets[l], W_l row-major (widths[l+1] x widths[l]) "
             "then b_l (widths[l+1]); y in R^d, the perturbation added to every input; "
             "h_0 = a + y, h_{l+1} = relu(W_l h_l + b_l) (no relu on the last layer: the logits); "
             "f_i = mean over the client's rows of CE(logits, label) - (lambda/2) ||y||^2, f = mean_i f_i; "
             "test_accuracy: argmax of the logits at y = 0 on every test row; the robust metrics run ascent_steps "
             "steps y += ascent_step * grad_y on a copy of y (reset to 0 when ||y||^2 > 10) over the first "
             "eval_train_rows training or eval_test_rows test rows", "");
    out.scalar("lambda", lambda_, "lambda of -(lambda/2) ||y||^2");
    out.indices("widths", widths_, "layer widths: d, the hidden widths, C");
    out.indices("layer_offsets", offsets_, "start of layer l's W_l in x");
    out.scalar("ascent_steps", ascent_steps_, "gradient-ascent steps of the robust metrics");
    out.scalar("ascent_step", ascent_step_, "their step size");
    out.scalar("eval_train_rows", static_cast<double>(eval_train_), "training rows (the first ones) of robust_train_loss");
    out.scalar("eval_test_rows", static_cast<double>(eval_test_), "test rows (the first ones) of the robust test metrics");
    write_rows(out, "train/X", Mat(X_.transpose()), dense_, "training inputs a_j after the pixels mapping, as the run uses them");
    write_labels(out, "train/y", y_, "class id of every training row");
    write_client_rows(out, "rows", clients_, "the client's rows of train/X");
    write_rows(out, "test/X", Mat(test_X_.transpose()), dense_, "test inputs after the same mapping");
    write_labels(out, "test/y", test_y_, "class id of every test row");
    for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
      const std::string layer = "init/" + std::to_string(l) + "/";
      out.matrix(layer + "W", weight(start_, l), "W_l at the start (0 for softmax regression)");
      out.vector(layer + "b", start_.segment(offsets_[l] + widths_[l + 1] * widths_[l], widths_[l + 1]),
                 "b_l at the start");
    }
  }

 protected:
  void do_op(int client, std::span<const Index> samples, const Vec& z, Vec& out) const override {
    out.setZero();
    Block& b = block();
    const Index n = for_each_block(clients_[client], samples, [&](std::span<const Index> rows) {
      load(X_, rows, z, b);
      forward(z, b);
      backward(z, y_, rows, b, &out);
      for (std::size_t k = 0; k < rows.size(); ++k) out.tail(d_) -= b.delta[0].col(static_cast<Index>(k));  // -grad_y of CE
    });
    out /= static_cast<double>(n);
    out.tail(d_) += lambda_ * z.tail(d_);  // -grad_y of -(lambda/2)||y||^2
  }

  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    Block& b = block();
    double total = 0;
    const Index n = for_each_block(clients_[client], samples, [&](std::span<const Index> rows) {
      load(X_, rows, z, b);
      forward(z, b, &y_, rows);
      for (std::size_t k = 0; k < rows.size(); ++k) total += b.loss[k];
    });
    return total / static_cast<double>(n) - 0.5 * lambda_ * z.tail(d_).squaredNorm();
  }

  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::weights, static_cast<double>(n_weights_), "dimension of x (classifier weights)");
    k.set(Constant::train_rows, static_cast<double>(X_.cols()), "training rows over all clients");
    k.set(Constant::test_rows, static_cast<double>(test_X_.cols()), "test rows");
    return k;
  }

  std::vector<std::string> extra_metric_names() const override {
    return {"test_accuracy", "robust_train_loss", "robust_test_loss", "robust_test_accuracy"};
  }

  void extra_metrics(const Vec& z, std::span<double> out) const override {
    Vec clean = z;
    clean.tail(d_).setZero();
    out[0] = accuracy(test_X_, test_y_, test_X_.cols(), clean);
    double accuracy_after = 0;
    out[1] = robust_loss(X_, y_, eval_train_, z, nullptr);
    out[2] = robust_loss(test_X_, test_y_, eval_test_, z, &accuracy_after);
    out[3] = accuracy_after;
  }

 private:
  //! Layer by layer, W_l (row-major) then b_l, from one seeded stream.
  void initialise_mlp(Params::Init init, std::uint64_t seed) {
    Stream rng(seed, "robust-training-init");
    for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
      const double fan_in = static_cast<double>(widths_[l]);
      const Index weights = widths_[l + 1] * widths_[l];
      auto layer = start_.segment(offsets_[l], weights + widths_[l + 1]);
      if (init == Params::Init::he) {
        for (Index k = 0; k < weights; ++k) layer(k) = std::sqrt(2.0 / fan_in) * rng.normal();
      } else {
        const double bound = 1.0 / std::sqrt(fan_in);
        for (Index k = 0; k < layer.size(); ++k) layer(k) = rng.uniform(-bound, bound);
      }
    }
  }

  // The network runs on blocks of rows at once, rows as the columns of act[l]: each weight row
  // is read once per block, not once per row (per row, W_1 of a 784-200-200-10 MLP, 1.25 MB,
  // came from memory three times: memory bandwidth, not arithmetic, bounded the rounds and the
  // evaluations on many cores). Every value is computed in a fixed order that does not depend
  // on how rows are grouped into blocks: activations are dot products of a weight row with one
  // input column, weight gradients add the rows' terms one row after another, and W_l^T delta
  // adds the weight rows' terms in row order.
  static constexpr Index kBlockRows = 16;
  //! Outputs of the backward pass held in registers at once (four SSE2 registers).
  static constexpr Index kLanes = 8;
  //! A nonzero term of a sum: its index (the source it scales) and its coefficient.
  struct Term {
    Index index;
    double coef;
  };
  //! out[0..n) (+)= sum over `terms`, in order, of coef source(index)[0..n), from zero when
  //! `from_zero`. Each output keeps its sum in a register over the terms and is stored once: the
  //! same additions in the same order as `out += coef * source(index)` term after term, which
  //! went through memory on every term and was bound by its stores. Zero coefficients (a ReLU
  //! that is off) are left out of `terms` beforehand: no branch per term here.
  template <class Source>
  static void add_terms_in_order(Index n, std::span<const Term> terms, Source&& source, double* out,
                                 bool from_zero) {
    if (n == kLanes) {
      using Lanes = Eigen::Matrix<double, kLanes, 1>;
      Lanes sum = from_zero ? Lanes::Zero() : Lanes(Eigen::Map<const Lanes>(out));
      for (const Term& t : terms) sum += t.coef * Eigen::Map<const Lanes>(source(t.index));
      Eigen::Map<Lanes> target(out);
      target = sum;
      return;
    }
    for (Index j = 0; j < n; ++j) {
      double sum = from_zero ? 0.0 : out[j];
      for (const Term& t : terms) sum += t.coef * source(t.index)[j];
      out[j] = sum;
    }
  }
  //! The nonzero entries of `values` in order, as terms, into `terms` (cleared first).
  template <class Values>
  static std::span<const Term> nonzero_terms(const Values& values, std::vector<Term>& terms) {
    terms.clear();
    for (Index t = 0; t < values.size(); ++t)
      if (const double v = values(t); v != 0.0) terms.push_back({t, v});
    return terms;
  }

  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
  weight(const Vec& z, std::size_t l) const {
    return {z.data() + offsets_[l], widths_[l + 1], widths_[l]};
  }
  auto bias(const Vec& z, std::size_t l) const {
    return z.segment(offsets_[l] + widths_[l + 1] * widths_[l], widths_[l + 1]);
  }
  struct Block {
    std::vector<Mat> act, delta;  // per layer, width x rows: activations (post-ReLU), back-propagated errors
    Vec loss;                     // per row: CE at its label
    std::vector<std::vector<Term>> terms;  // backward: each row's nonzero errors at a layer's units
    std::vector<Term> row_terms;           // backward: one unit's nonzero errors over the rows
  };
  Block& block() const {
    thread_local Block b;
    b.act.resize(widths_.size());
    b.delta.resize(widths_.size());
    return b;
  }

  //! Calls fn(rows) for the batch's rows in blocks of at most kBlockRows, in batch order;
  //! returns the batch size.
  template <class Fn>
  static Index for_each_block(const std::vector<Index>& client_rows, std::span<const Index> samples, Fn&& fn) {
    std::array<Index, kBlockRows> rows{};
    std::size_t filled = 0;
    const Index n = for_each_row(client_rows, samples, [&](Index row) {
      rows[filled++] = row;
      if (filled == rows.size()) {
        fn(std::span<const Index>(rows.data(), filled));
        filled = 0;
      }
    });
    if (filled > 0) fn(std::span<const Index>(rows.data(), filled));
    return n;
  }

  //! act[0] = the rows' inputs (columns of XT) plus the perturbation y of z.
  void load(const Mat& XT, std::span<const Index> rows, const Vec& z, Block& b) const {
    b.act[0].resize(d_, static_cast<Index>(rows.size()));
    for (std::size_t k = 0; k < rows.size(); ++k) b.act[0].col(static_cast<Index>(k)) = XT.col(rows[k]) + z.tail(d_);
  }

  //! Forward pass of act[0]; leaves softmax probabilities in act.back(), and with labels the CE
  //! of each row at its label in b.loss.
  void forward(const Vec& z, Block& b, const std::vector<double>* labels = nullptr,
               std::span<const Index> rows = {}) const {
    const std::size_t L = widths_.size() - 1;
    const Index count = b.act[0].cols();
    for (std::size_t l = 0; l < L; ++l) {
      const auto W = weight(z, l);
      const auto bl = bias(z, l);
      Mat& out = b.act[l + 1];
      out.resize(widths_[l + 1], count);
      for (Index i = 0; i < W.rows(); ++i)
        for (Index k = 0; k < count; ++k) out(i, k) = W.row(i).dot(b.act[l].col(k)) + bl(i);
      if (l + 1 < L) out = out.cwiseMax(0.0);
    }
    b.loss.resize(count);
    for (Index k = 0; k < count; ++k) {
      auto logits = b.act[L].col(k);
      const double top = logits.maxCoeff();
      const double logit_label = labels ? logits(static_cast<Index>((*labels)[rows[k]])) : 0.0;
      logits = (logits.array() - top).exp();
      const double norm = logits.sum();
      logits /= norm;
      b.loss(k) = labels ? top + std::log(norm) - logit_label : 0.0;
    }
  }

  //! Back-propagates each row's CE at its label; adds weight gradients to grad (if given) and
  //! leaves the input gradients in delta[0]. A zero error (a ReLU that is off) adds nothing and
  //! is skipped.
  void backward(const Vec& z, const std::vector<double>& labels, std::span<const Index> rows, Block& b,
                Vec* grad) const {
    const std::size_t L = widths_.size() - 1;
    const Index count = b.act[0].cols();
    b.delta[L] = b.act[L];
    for (Index k = 0; k < count; ++k) b.delta[L](static_cast<Index>(labels[rows[k]]), k) -= 1.0;
    for (std::size_t l = L; l-- > 0;) {
      const auto W = weight(z, l);
      const Mat& upper = b.delta[l + 1];
      const Index inputs = widths_[l], outputs = widths_[l + 1];
      // lower(:, k) = sum over weight rows i, in row order, of upper(i, k) W(i, :).
      Mat& lower = b.delta[l];
      lower.resize(inputs, count);
      auto& by_row = b.terms;  // by_row[k]: row k's nonzero errors (column k of upper)
      by_row.resize(static_cast<std::size_t>(count));
      for (Index k = 0; k < count; ++k) nonzero_terms(upper.col(k), by_row[static_cast<std::size_t>(k)]);
      for (Index first = 0; first < inputs; first += kLanes)  // a W column chunk stays in L1 over k
        for (Index k = 0; k < count; ++k)
          add_terms_in_order(
              std::min(kLanes, inputs - first), by_row[static_cast<std::size_t>(k)],
              [&](Index i) { return W.data() + i * inputs + first; }, &lower(first, k), true);
      if (grad) {
        // gW(i, :) += sum over the block's rows k, in order, of upper(i, k) act(:, k).
        Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> gW(
            grad->data() + offsets_[l], outputs, inputs);
        auto gb = grad->segment(offsets_[l] + outputs * inputs, outputs);
        std::vector<Term>& by_block_row = b.row_terms;
        for (Index i = 0; i < outputs; ++i) {
          for (Index k = 0; k < count; ++k) gb(i) += upper(i, k);
          const auto terms = nonzero_terms(upper.row(i), by_block_row);
          for (Index first = 0; first < inputs; first += kLanes)
            add_terms_in_order(
                std::min(kLanes, inputs - first), terms, [&](Index k) { return b.act[l].data() + k * inputs + first; },
                &gW(i, first), false);
        }
      }
      if (l > 0) lower = (b.act[l].array() > 0).select(lower, 0.0);
    }
  }

  // The metrics below visit blocks of rows on the run's evaluation threads, each block's rows
  // computed on their own and added in row order: the plain loop's bits at any thread count.
  // Blocks of one set cost the same, so a scope of their own decides whether to share them.
  // Since no value depends on how rows are grouped, the blocks may follow the threads (below).
  struct RowsPart {
    Vec value;       // per row: its loss, or 1 if it is classified right
    Mat input_grad;  // d x rows
  };
  //! For each block of the first `rows` rows (columns of XT): loads the block's inputs at z,
  //! then part(row ids, loaded block, slot); then fold(slot, count) in block order. Parts run on
  //! the evaluation threads.
  template <class Part, class Fold>
  void over_row_blocks(const Mat& XT, Index rows, const Vec& z, Part&& part, Fold&& fold) const {
    const EvaluationThreads row_threads(EvaluationThreads::current(), EvaluationThreads::current_share_above());
    const Index threads = EvaluationThreads::current() ? EvaluationThreads::current()->threads() : 1;
    // Blocks shrink towards the end (each a 2 x threads-th of the rows left, at most
    // kBlockRows): large ones while many are left, small ones last, so that the threads finish
    // a pass together (equal blocks left one thread with a last block of up to 16 rows while
    // the others waited). One thread takes whole blocks.
    std::vector<Index> starts{0};
    while (starts.back() < rows) {
      const Index left = rows - starts.back();
      const Index size = threads == 1 ? kBlockRows : (left + 2 * threads - 1) / (2 * threads);
      starts.push_back(starts.back() + std::clamp<Index>(size, 1, std::min(kBlockRows, left)));
    }
    const int blocks = static_cast<int>(starts.size()) - 1;
    auto first = [&](int block) { return starts[static_cast<std::size_t>(block)]; };
    auto count = [&](int block) { return first(block + 1) - first(block); };
    fold_clients_in_order(
        blocks, RowsPart{},
        [&](int block, RowsPart& slot) {
          thread_local std::array<Index, kBlockRows> ids;
          for (Index k = 0; k < count(block); ++k) ids[static_cast<std::size_t>(k)] = first(block) + k;
          const std::span<const Index> rows_of_block(ids.data(), static_cast<std::size_t>(count(block)));
          Block& b = this->block();
          load(XT, rows_of_block, z, b);
          part(rows_of_block, b, slot);
        },
        [&](int block, RowsPart& slot) { fold(slot, count(block)); }, blocks);
  }

  double accuracy(const Mat& XT, const std::vector<double>& labels, Index rows, const Vec& z) const {
    double right = 0;
    over_row_blocks(
        XT, rows, z,
        [&](std::span<const Index> ids, Block& b, RowsPart& slot) {
          forward(z, b);
          slot.value.resize(b.act[0].cols());
          for (Index k = 0; k < slot.value.size(); ++k) {
            Index best = 0;
            b.act.back().col(k).maxCoeff(&best);
            slot.value(k) = best == static_cast<Index>(labels[ids[k]]);
          }
        },
        [&](const RowsPart& slot, Index count) {
          for (Index k = 0; k < count; ++k) right += slot.value(k);
        });
    return right / static_cast<double>(std::max<Index>(rows, 1));
  }

  //! max_y of the penalised loss by gradient ascent (the procedure of Xie et al.'s code).
  double robust_loss(const Mat& XT, const std::vector<double>& labels, Index rows, const Vec& z,
                     double* accuracy_out) const {
    Vec w = z;
    if (w.tail(d_).squaredNorm() > 10) w.tail(d_).setZero();
    Vec ascent(d_);
    auto loss_and_gradient = [&](bool with_gradient) {
      double loss = 0;
      ascent.setZero();
      over_row_blocks(
          XT, rows, w,
          [&](std::span<const Index> ids, Block& b, RowsPart& slot) {
            forward(w, b, &labels, ids);
            slot.value = b.loss;
            if (with_gradient) {
              backward(w, labels, ids, b, nullptr);
              slot.input_grad = b.delta[0];
            }
          },
          [&](const RowsPart& slot, Index count) {
            for (Index k = 0; k < count; ++k) {
              loss += slot.value(k);
              if (with_gradient) ascent += slot.input_grad.col(k);
            }
          });
      const double n = static_cast<double>(rows);
      ascent = ascent / n - lambda_ * w.tail(d_);
      return loss / n - 0.5 * lambda_ * w.tail(d_).squaredNorm();
    };
    for (int k = 0; k < ascent_steps_; ++k) {
      loss_and_gradient(true);
      w.tail(d_) += ascent_step_ * ascent;
    }
    const double loss = loss_and_gradient(false);
    if (accuracy_out) *accuracy_out = accuracy(XT, labels, rows, w);
    return loss;
  }

  double lambda_;
  int ascent_steps_;
  double ascent_step_;
  bool dense_;  // signed pixels or image data: inputs written dense by write_instance
  int C_ = 0;
  Index d_ = 0, n_weights_ = 0, eval_train_ = 0, eval_test_ = 0;
  std::vector<Index> widths_, offsets_;
  Mat X_, test_X_;  // d x rows: one sample per column
  std::vector<double> y_, test_y_;
  datasets::Partition clients_;
  Vec start_;
};

FEDBENCH_REGISTER_PROBLEM(RobustTraining, "robust-training",
                          "classifier vs one universal input perturbation (softmax or ReLU MLP)",
                          "Xie et al., arXiv 2021, Section 5.2; Deng & Mahdavi, AISTATS 2021");

}  // namespace fedbench::problems
