// Must not compile: extra_metrics is written with a std::vector instead of the family's
// std::span, so it would hide the virtual hook and never be called.
#include "problem/problem_registry.hpp"

namespace fedbench::contract_test {

class BadHookProblem : public MinimaxProblem {
 public:
  struct Params {
    int clients;
  };
  static void declare(Schema<Params>& s) {
    s.integer("clients", &Params::clients, "2", {.ge = 1}, "M");
  }
  explicit BadHookProblem(const Params& p) { set_shape(1, 1, std::vector<Index>(p.clients, 1)); }
  std::string problem_class() const override { return "SC-SC"; }

 protected:
  void do_op(int, std::span<const Index>, const Vec& z, Vec& out) const override { out = z; }
  double do_value(int, std::span<const Index>, const Vec& z) const override { return z.squaredNorm(); }
  std::vector<std::string> extra_metric_names() const override { return {"norm"}; }
  void extra_metrics(const Vec& z, std::vector<double>& out) const { out[0] = z.norm(); }  // wrong
};

FEDBENCH_REGISTER_PROBLEM(BadHookProblem, "contract-bad-problem", "mis-typed hook", "none");

}  // namespace fedbench::contract_test
