// fedbench's problems in Python: fedbench.problem(name, params) builds an instance through the
// registry; its oracles are the counted ones solvers use (one OracleCounts per client), its
// constants and metrics the ones run files record.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>

#include "arrays.hpp"
#include "bindings.hpp"
#include "problem/problem_registry.hpp"
#include "python_params.hpp"

namespace fedbench::python {

namespace {

class PyProblem {
 public:
  PyProblem(std::string name, const ParamMap& given)
      : name_(std::move(name)), params_(resolve_problem_params(name_, given)), problem_(make_problem(name_, given)),
        counts_(problem_->num_clients()) {}

  const std::string& name() const { return name_; }
  const ParamMap& params() const { return params_; }
  const Problem& get() const { return *problem_; }
  const MinimaxProblem& minimax() const {
    if (auto* p = dynamic_cast<const MinimaxProblem*>(problem_.get())) return *p;
    throw py::type_error("problem " + name_ + " is bilevel; use its upper_* / lower_* oracles");
  }
  const BilevelProblem& bilevel() const {
    if (auto* p = dynamic_cast<const BilevelProblem*>(problem_.get())) return *p;
    throw py::type_error("problem " + name_ + " is minimax; use op, grad_x, grad_y, value");
  }
  OracleCounts& counts(int client) { return counts_.client(check(client)); }
  const OracleLedger& ledger() const { return counts_; }
  int check(int client) const {
    if (client < 0 || client >= problem_->num_clients())
      throw py::index_error("client " + std::to_string(client) + " of " + std::to_string(problem_->num_clients()));
    return client;
  }
  Vec z, v, out;
  std::vector<Index> samples;

 private:
  std::string name_;
  ParamMap params_;
  std::shared_ptr<const Problem> problem_;
  OracleLedger counts_;
};

py::dict counts_dict(const OracleCounts& c) {
  py::dict out;
  for (int k = 0; k < kOracleKinds; ++k) out[py::str(std::string(kOracleKindNames[k]))] = c.calls[k];
  out["samples"] = c.samples;
  return out;
}

// A counted oracle of client i returning a vector: f(problem, i, samples, z, out, counts).
template <class Call>
py::array_t<double> vector_oracle(PyProblem& p, int i, py::handle z, py::handle samples, Call call) {
  OracleCounts& counts = p.counts(i);
  to_indices(samples, p.samples);
  to_vec(z, p.z, "z");
  call(std::span<const Index>(p.samples), p.z, p.out, counts);
  return copy_of(p.out);
}

template <class Call>
double value_oracle(PyProblem& p, int i, py::handle z, py::handle samples, Call call) {
  OracleCounts& counts = p.counts(i);
  to_indices(samples, p.samples);
  to_vec(z, p.z, "z");
  return call(std::span<const Index>(p.samples), p.z, counts);
}

void bind_minimax_oracles(py::class_<PyProblem>& c) {
  using MP = MinimaxProblem;
  using Grad = void (MP::*)(int, std::span<const Index>, const Vec&, Vec&, OracleCounts&) const;
  const std::pair<const char*, Grad> grads[] = {{"op", &MP::op}, {"grad_x", &MP::grad_x}, {"grad_y", &MP::grad_y}};
  for (const auto& [name, method] : grads)
    c.def(name, [method](PyProblem& p, int i, py::handle z, py::handle samples) {
          const MP& mp = p.minimax();
          return vector_oracle(p, i, z, samples, [&](auto s, const Vec& x, Vec& out, OracleCounts& n) { (mp.*method)(i, s, x, out, n); });
        }, py::arg("client"), py::arg("z"), py::arg("samples") = py::none());
  c.def("value", [](PyProblem& p, int i, py::handle z, py::handle samples) {
        const MP& mp = p.minimax();
        return value_oracle(p, i, z, samples, [&](auto s, const Vec& x, OracleCounts& n) { return mp.value(i, s, x, n); });
      }, py::arg("client"), py::arg("z"), py::arg("samples") = py::none());
  c.def("global_op", [](PyProblem& p, py::handle z) {
        to_vec(z, p.z, "z");
        p.minimax().global_op(p.z, p.out);
        return copy_of(p.out);
      }, py::arg("z"), "F(z) averaged over clients, uncounted");
  c.def("global_value", [](PyProblem& p, py::handle z) {
        to_vec(z, p.z, "z");
        return p.minimax().global_value(p.z);
      }, py::arg("z"), "f(z) averaged over clients, uncounted");
}

void bind_bilevel_oracles(py::class_<PyProblem>& c) {
  using BP = BilevelProblem;
  using Grad = void (BP::*)(int, std::span<const Index>, const Vec&, Vec&, OracleCounts&) const;
  using Product = void (BP::*)(int, std::span<const Index>, const Vec&, const Vec&, Vec&, OracleCounts&) const;
  using Value = double (BP::*)(int, std::span<const Index>, const Vec&, OracleCounts&) const;
  const std::pair<const char*, Grad> grads[] = {{"upper_grad_x", &BP::upper_grad_x}, {"upper_grad_y", &BP::upper_grad_y},
                                               {"lower_grad_x", &BP::lower_grad_x}, {"lower_grad_y", &BP::lower_grad_y}};
  for (const auto& [name, method] : grads)
    c.def(name, [method](PyProblem& p, int i, py::handle z, py::handle samples) {
          const BP& bp = p.bilevel();
          return vector_oracle(p, i, z, samples, [&](auto s, const Vec& x, Vec& out, OracleCounts& n) { (bp.*method)(i, s, x, out, n); });
        }, py::arg("client"), py::arg("z"), py::arg("samples") = py::none());
  const std::pair<const char*, Product> products[] = {{"lower_hvp", &BP::lower_hvp}, {"lower_jvp", &BP::lower_jvp}};
  for (const auto& [name, method] : products)
    c.def(name, [method](PyProblem& p, int i, py::handle z, py::handle v, py::handle samples) {
          const BP& bp = p.bilevel();
          to_vec(v, p.v, "v");
          return vector_oracle(p, i, z, samples, [&](auto s, const Vec& x, Vec& out, OracleCounts& n) { (bp.*method)(i, s, x, p.v, out, n); });
        }, py::arg("client"), py::arg("z"), py::arg("v"), py::arg("samples") = py::none());
  const std::pair<const char*, Value> values[] = {{"upper_value", &BP::upper_value}, {"lower_value", &BP::lower_value}};
  for (const auto& [name, method] : values)
    c.def(name, [method](PyProblem& p, int i, py::handle z, py::handle samples) {
          const BP& bp = p.bilevel();
          return value_oracle(p, i, z, samples, [&](auto s, const Vec& x, OracleCounts& n) { return (bp.*method)(i, s, x, n); });
        }, py::arg("client"), py::arg("z"), py::arg("samples") = py::none());
  c.def("num_upper_samples", [](PyProblem& p, int i) { return p.bilevel().num_upper_samples(p.check(i)); }, py::arg("client"));
}

}  // namespace

void bind_problems(py::module_& m) {
  py::class_<PyProblem> c(m, "Problem", "a problem instance built by fedbench.problem(name, params)");
  c.def_property_readonly("name", &PyProblem::name)
      .def_property_readonly("params", &PyProblem::params, "canonical resolved parameters (text)")
      .def_property_readonly("family", [](const PyProblem& p) { return std::string(kind_name(p.get().kind())); })
      .def_property_readonly("problem_class", [](const PyProblem& p) { return p.get().problem_class(); })
      .def_property_readonly("num_clients", [](const PyProblem& p) { return p.get().num_clients(); })
      .def_property_readonly("dim", [](const PyProblem& p) { return p.get().dim(); })
      .def_property_readonly("dim_x", [](const PyProblem& p) { return p.get().dim_x(); })
      .def_property_readonly("dim_y", [](const PyProblem& p) { return p.get().dim_y(); })
      .def("num_samples", [](const PyProblem& p, int i) { return p.get().num_samples(p.check(i)); }, py::arg("client"))
      .def("constants", [](const PyProblem& p) { return p.get().constants().values(); },
           "every published constant (as `fedbench describe` / instance files show them)")
      .def("initial_point", [](const PyProblem& p) { return copy_of(p.get().initial_point()); })
      .def("reference_solution", [](const PyProblem& p) -> py::object {
             const auto z = p.get().reference_solution();
             return z ? py::object(copy_of(*z)) : py::object(py::none());
           })
      .def("project", [](PyProblem& p, py::handle z) {
             Vec x;
             to_vec(z, x, "z");
             p.get().project(x);
             return copy_of(x);
           }, py::arg("z"))
      .def("metric_names", [](const PyProblem& p) { return p.get().metric_names(); })
      .def("metrics", [](PyProblem& p, py::handle z) {
             to_vec(z, p.z, "z");
             const auto names = p.get().metric_names();
             std::vector<double> values(names.size());
             {
               const py::gil_scoped_release release;  // exact solves may take a while
               p.get().metrics(p.z, values);
             }
             py::dict out;
             for (std::size_t k = 0; k < names.size(); ++k) out[py::str(names[k])] = values[k];
             return out;
           }, py::arg("z"), "the run file's metrics at z (uncounted)")
      .def("counts", [](PyProblem& p, py::object client) {
             return client.is_none() ? counts_dict(p.ledger().total()) : counts_dict(p.counts(client.cast<int>()));
           }, py::arg("client") = py::none(), "oracle calls so far: of one client, or of all");
  bind_minimax_oracles(c);
  bind_bilevel_oracles(c);
  m.def("problem", [](const std::string& name, py::object params) {
          return std::make_unique<PyProblem>(name, param_texts(params));
        }, py::arg("name"), py::arg("params") = py::none(), "a problem instance by registry name and parameters");
}

}  // namespace fedbench::python
