#include "python_runner.hpp"

#include <optional>

#include "engine/engine.hpp"
#include "python_errors.hpp"

namespace fedbench::python {

namespace {

// What a class's `resolve(p, setup)` sees of the SolverSetup.
struct SetupView {
  const SolverSetup* setup;
};

class PythonSolverRunner final : public SolverRunner {
 public:
  PythonSolverRunner(std::shared_ptr<const PythonSolverClass> cls, std::string as, ParamMap values)
      : cls_(std::move(cls)), as_(std::move(as)), values_(std::move(values)) {}

  void prepare(const Problem& problem, const RunConfig& config) override {
    if (problem.kind() != cls_->kind)
      throw UserError("solver " + as_ + " needs a " + kind_name(cls_->kind) + " problem, but " + config.problem +
                      " is " + kind_name(problem.kind()) + "; see the kinds in `fedbench list problems`");
    const SolverSetup setup{problem, config, "solver " + as_, &read_};
    if (cls_->has_resolve) resolve(setup);
    for (const auto& [key, value] : values_)
      if (value == kTheory)
        throw UserError("solver " + as_ + ": '" + key + "' is 'theory' and its resolve() left it unset; give -s " +
                        key + "=VALUE");
  }
  ParamMap resolved_params() const override { return values_; }
  const std::vector<Constant>& constants_read() const override { return read_; }

  RunSummary run(const Problem& problem, const RunConfig& config, int threads, TrajectorySink& sink,
                 const RunMeta& meta) override {
    PythonSolver solver;
    solver.p.cls = cls_;
    solver.p.values = values_;
    // Called from Python (fedbench.run): the engine's threads need the GIL this thread holds.
    std::optional<py::gil_scoped_release> release;
    if (Py_IsInitialized() && PyGILState_Check()) release.emplace();
    return run_rounds(solver, problem, config, threads, sink, meta);
  }

 private:
  void resolve(const SolverSetup& setup) {
    const py::gil_scoped_acquire gil;
    try {
      py::object p = cls_->params.namespace_of(values_);
      cls_->cls->attr("resolve")(p, SetupView{&setup});
      values_ = cls_->params.canonical_of("solver " + as_, p);
    } catch (py::error_already_set& e) {
      // A UserError raised by setup.constant / setup.reject keeps its own words.
      if (e.matches(py::module_::import("fedbench").attr("UserError"))) throw UserError(py::str(e.value()));
      throw UserError("solver " + as_ + ", resolve: " + one_line(e));
    }
  }

  std::shared_ptr<const PythonSolverClass> cls_;
  std::string as_;
  ParamMap values_;
  std::vector<Constant> read_;
};

}  // namespace

RegistryEntry<SolverRunner> solver_entry(std::shared_ptr<const PythonSolverClass> cls, const std::string& summary,
                                         const std::string& citation, int version) {
  RegistryEntry<SolverRunner> e;
  e.kind = "solver";
  e.name = cls->name;
  e.summary = summary;
  e.citation = citation;
  e.family = kind_name(cls->kind);
  e.params = cls->params.specs;
  e.source = "";
  e.version = version;
  e.plugin = loading_plugin();
  e.make = [cls](const std::string& as, const ParamMap& given, const ParamMap& defaults) {
    ParamMap values = cls->params.resolve("solver " + as, given, defaults);
    return std::unique_ptr<SolverRunner>(new PythonSolverRunner(cls, as, std::move(values)));
  };
  e.resolve = [cls](const std::string& as, const ParamMap& given, const ParamMap& defaults) {
    return cls->params.resolve("solver " + as, given, defaults);
  };
  return e;
}

void bind_setup(py::module_& m) {
  py::class_<SetupView>(m, "SolverSetup", "what a solver's resolve(p, setup) reads: the problem's constants")
      .def("constant", [](const SetupView& s, const std::string& name) {
             const auto c = constant_from_name(name);
             if (!c) throw UserError(s.setup->who + ": no problem constant is named '" + name + "'");
             return s.setup->constant(*c);
           }, py::arg("name"), "a problem constant by its name in `fedbench describe PROBLEM`")
      .def("reject", [](const SetupView& s, const std::string& why) { s.setup->reject(why); }, py::arg("why"))
      .def_property_readonly("problem", [](const SetupView& s) { return s.setup->config.problem; })
      .def_property_readonly("rounds", [](const SetupView& s) { return s.setup->config.budget.rounds; },
                             "the run's round budget")
      .def_property_readonly("num_clients", [](const SetupView& s) { return s.setup->problem.num_clients(); })
      .def_property_readonly("dim_x", [](const SetupView& s) { return s.setup->problem.dim_x(); })
      .def_property_readonly("dim_y", [](const SetupView& s) { return s.setup->problem.dim_y(); });
}

}  // namespace fedbench::python
