// fedbench.run(...): one run from Python, through the same prepare_run / execute as
// `fedbench run`, returning its trajectory as arrays (and writing a run file when asked).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "engine/runner.hpp"
#include "io/run_sinks.hpp"
#include "python_params.hpp"

namespace fedbench::python {

namespace {

py::dict columns_of(const MemoryTrajectory& t) {
  py::dict out;
  for (const auto& column : counter_columns()) {
    std::vector<std::int64_t> values;
    for (const auto& row : t.rows) values.push_back(column.value(row));
    out[column.name] = py::array(py::cast(values));
  }
  std::vector<double> wall, eval;
  for (const auto& row : t.rows) {
    wall.push_back(row.wall_time);
    eval.push_back(row.eval_time);
  }
  out["wall_time"] = py::array(py::cast(wall));
  out["eval_time"] = py::array(py::cast(eval));
  for (const auto& name : t.header.metric_names) out[py::str(name)] = py::array(py::cast(t.metric(name)));
  return out;
}

py::dict run(const std::string& problem, const std::string& solver, py::handle problem_params,
             py::handle solver_params, std::int64_t rounds, std::uint64_t seed, const std::string& participation,
             std::int64_t eval_every, int threads, const std::string& output) {
  RunRequest request;
  request.problem = problem;
  request.solver = solver;
  request.problem_params = param_texts(problem_params);
  request.solver_params = param_texts(solver_params);
  request.participation = Participation::parse(participation);
  request.seed = seed;
  request.budget.rounds = rounds;
  request.eval = default_eval_schedule(problem);
  if (eval_every > 0) request.eval = EvalSchedule{eval_every, 0};
  if (threads < 1 || threads > kMaxThreads) throw UserError("threads must be from 1 to " + std::to_string(kMaxThreads));
  MemoryTrajectory memory;
  std::vector<TrajectorySink*> sinks{&memory};
  std::unique_ptr<TrajectorySink> file;
  if (!output.empty()) {
    file = io::make_file_sink(io::output_format_of(output), output);
    sinks.push_back(file.get());
  }
  TeeSink tee(sinks);
  {
    const py::gil_scoped_release release;  // a Python solver's hooks take it back
    PreparedRun prepared = prepare_run(request);
    execute(prepared, threads, tee, "fedbench.run (Python)");
  }
  return py::dict(py::arg("status") = memory.summary.status(), py::arg("stop_reason") = to_string(memory.summary.reason),
                  py::arg("message") = memory.summary.message, py::arg("rounds") = memory.summary.rounds,
                  py::arg("solver_params") = memory.header.solver_params, py::arg("columns") = columns_of(memory));
}

}  // namespace

void bind_run(py::module_& m) {
  m.def("run", &run, py::arg("problem"), py::arg("solver"), py::arg("problem_params") = py::none(),
        py::arg("solver_params") = py::none(), py::kw_only(), py::arg("rounds") = 100, py::arg("seed") = 0,
        py::arg("participation") = "full", py::arg("eval_every") = 0, py::arg("threads") = 1,
        py::arg("output") = "",
        "one run, as `fedbench run` makes it: returns status, stop_reason, message, rounds, the resolved "
        "solver_params and the trajectory's columns; output=PATH also writes the run file (.h5, .csv, .json)");
}

}  // namespace fedbench::python
