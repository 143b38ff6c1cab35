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
#include <cmath>

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
    X_ = data.train_X.dense();
    y_ = data.train_y;
    test_X_ = data.test_X.dense();
    test_y_ = data.test_y;
    if (p.pixels == Params::Pixels::signed_unit) {
      X_ = (2.0 * X_.array() - 1.0).matrix();
      test_X_ = (2.0 * test_X_.array() - 1.0).matrix();
    }
    d_ = X_.cols();
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
    eval_train_ = std::min<Index>(p.eval_rows, X_.rows());
    eval_test_ = std::min<Index>(p.eval_rows, test_X_.rows());
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
    write_rows(out, "train/X", X_, dense_, "training inputs a_j after the pixels mapping, as the run uses them");
    write_labels(out, "train/y", y_, "class id of every training row");
    write_client_rows(out, "rows", clients_, "the client's rows of train/X");
    write_rows(out, "test/X", test_X_, dense_, "test inputs after the same mapping");
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
    Scratch& s = scratch();
    const Index n = for_each_row(clients_[client], samples, [&](Index row) {
      s.input = X_.row(row).transpose() + z.tail(d_);
      forward(z, s);
      backward(z, static_cast<int>(y_[row]), s, &out);
      out.tail(d_) -= s.input_grad;  // -grad_y of the CE term
    });
    out /= static_cast<double>(n);
    out.tail(d_) += lambda_ * z.tail(d_);  // -grad_y of -(lambda/2)||y||^2
  }

  double do_value(int client, std::span<const Index> samples, const Vec& z) const override {
    Scratch& s = scratch();
    double total = 0;
    const Index n = for_each_row(clients_[client], samples, [&](Index row) {
      s.input = X_.row(row).transpose() + z.tail(d_);
      total += forward(z, s, static_cast<int>(y_[row]));
    });
    return total / static_cast<double>(n) - 0.5 * lambda_ * z.tail(d_).squaredNorm();
  }

  Constants compute_constants() const override {
    Constants k;
    k.set(Constant::weights, static_cast<double>(n_weights_), "dimension of x (classifier weights)");
    k.set(Constant::train_rows, static_cast<double>(X_.rows()), "training rows over all clients");
    k.set(Constant::test_rows, static_cast<double>(test_X_.rows()), "test rows");
    return k;
  }

  std::vector<std::string> extra_metric_names() const override {
    return {"test_accuracy", "robust_train_loss", "robust_test_loss", "robust_test_accuracy"};
  }

  void extra_metrics(const Vec& z, std::span<double> out) const override {
    Vec clean = z;
    clean.tail(d_).setZero();
    out[0] = accuracy(test_X_, test_y_, test_X_.rows(), clean);
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

  struct Scratch {
    Vec input, input_grad;
    std::vector<Vec> act, delta;  // per layer: activations (post-ReLU), back-propagated errors
  };
  Scratch& scratch() const {
    thread_local Scratch s;
    s.act.resize(widths_.size());
    s.delta.resize(widths_.size());
    return s;
  }
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
  weight(const Vec& z, std::size_t l) const {
    return {z.data() + offsets_[l], widths_[l + 1], widths_[l]};
  }
  auto bias(const Vec& z, std::size_t l) const {
    return z.segment(offsets_[l] + widths_[l + 1] * widths_[l], widths_[l + 1]);
  }

  //! Forward pass on s.input; leaves softmax probabilities in s.act.back(); returns the CE
  //! at `label` (if >= 0).
  double forward(const Vec& z, Scratch& s, int label = -1) const {
    const std::size_t L = widths_.size() - 1;
    s.act[0] = s.input;
    for (std::size_t l = 0; l < L; ++l) {
      s.act[l + 1].noalias() = weight(z, l) * s.act[l];
      s.act[l + 1] += bias(z, l);
      if (l + 1 < L) s.act[l + 1] = s.act[l + 1].cwiseMax(0.0);
    }
    Vec& logits = s.act[L];
    const double top = logits.maxCoeff();
    const double logit_label = label >= 0 ? logits(label) : 0.0;
    logits = (logits.array() - top).exp();
    const double norm = logits.sum();
    logits /= norm;
    return label >= 0 ? top + std::log(norm) - logit_label : 0.0;
  }

  //! Back-propagates CE at `label`; adds weight gradients to grad (if given) and leaves the
  //! input gradient in s.input_grad.
  void backward(const Vec& z, int label, Scratch& s, Vec* grad) const {
    const std::size_t L = widths_.size() - 1;
    s.delta[L] = s.act[L];
    s.delta[L](label) -= 1.0;
    for (std::size_t l = L; l-- > 0;) {
      if (grad) {
        Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> gW(
            grad->data() + offsets_[l], widths_[l + 1], widths_[l]);
        gW.noalias() += s.delta[l + 1] * s.act[l].transpose();
        grad->segment(offsets_[l] + widths_[l + 1] * widths_[l], widths_[l + 1]) += s.delta[l + 1];
      }
      s.delta[l].noalias() = weight(z, l).transpose() * s.delta[l + 1];
      if (l > 0) s.delta[l] = (s.act[l].array() > 0).select(s.delta[l], 0.0);
    }
    s.input_grad = s.delta[0];
  }

  // The metrics below visit rows on the run's evaluation threads, each row's part computed on
  // its own and added in row order: the bits of the plain loop over rows at any thread count.
  // Rows of one set cost the same, so a scope of their own decides whether to share them.

  double accuracy(const Mat& X, const std::vector<double>& labels, Index rows, const Vec& z) const {
    const EvaluationThreads row_threads(EvaluationThreads::current());
    const double right = sum_clients_in_order(static_cast<int>(rows), 0.0, [&](int r, double& hit) {
      Scratch& s = scratch();
      s.input = X.row(r).transpose() + z.tail(d_);
      forward(z, s);
      Index best = 0;
      s.act.back().maxCoeff(&best);
      hit = best == static_cast<Index>(labels[r]);
    });
    return right / static_cast<double>(std::max<Index>(rows, 1));
  }

  //! max_y of the penalised loss by gradient ascent (the procedure of Xie et al.'s code).
  double robust_loss(const Mat& X, const std::vector<double>& labels, Index rows, const Vec& z,
                     double* accuracy_out) const {
    const EvaluationThreads row_threads(EvaluationThreads::current());
    Vec w = z;
    if (w.tail(d_).squaredNorm() > 10) w.tail(d_).setZero();
    Vec ascent(d_);
    struct RowPart {
      double loss = 0;
      Vec input_grad;
    };
    auto loss_and_gradient = [&](bool with_gradient) {
      double loss = 0;
      ascent.setZero();
      fold_clients_in_order(
          static_cast<int>(rows), RowPart{},
          [&](int r, RowPart& part) {
            Scratch& s = scratch();
            s.input = X.row(r).transpose() + w.tail(d_);
            part.loss = forward(w, s, static_cast<int>(labels[r]));
            if (with_gradient) {
              backward(w, static_cast<int>(labels[r]), s, nullptr);
              part.input_grad = s.input_grad;
            }
          },
          [&](int, const RowPart& part) {
            loss += part.loss;
            if (with_gradient) ascent += part.input_grad;
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
    if (accuracy_out) *accuracy_out = accuracy(X, labels, rows, w);
    return loss;
  }

  double lambda_;
  int ascent_steps_;
  double ascent_step_;
  bool dense_;  // signed pixels or image data: inputs written dense by write_instance
  int C_ = 0;
  Index d_ = 0, n_weights_ = 0, eval_train_ = 0, eval_test_ = 0;
  std::vector<Index> widths_, offsets_;
  Mat X_, test_X_;
  std::vector<double> y_, test_y_;
  datasets::Partition clients_;
  Vec start_;
};

FEDBENCH_REGISTER_PROBLEM(RobustTraining, "robust-training",
                          "classifier vs one universal input perturbation (softmax or ReLU MLP)",
                          "Xie et al., arXiv 2021, Section 5.2; Deng & Mahdavi, AISTATS 2021");

}  // namespace fedbench::problems
