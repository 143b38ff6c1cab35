#include "plugin_template.hpp"

namespace fedbench::cli {

namespace {

const char* const kCMakeLists = R"tmpl(# A fedbench plug-in: one shared library with the solver of @TARGET@.cpp.
#   cmake -S . -B build -DCMAKE_PREFIX_PATH=<fedbench's install prefix>
#   cmake --build build && ctest --test-dir build
cmake_minimum_required(VERSION 3.20)
project(@TARGET@ LANGUAGES CXX)
if(NOT CMAKE_BUILD_TYPE)  # optimized unless asked otherwise: unoptimized Eigen is 10-20x slower
  set(CMAKE_BUILD_TYPE Release CACHE STRING "build type" FORCE)
endif()

find_package(fedbench REQUIRED)  # target fedbench::fedbench, fedbench_add_plugin, FEDBENCH_EXECUTABLE
fedbench_add_plugin(@TARGET@ @TARGET@.cpp)

enable_testing()
# The checks every fedbench solver passes: documented, progress, honest counts, the same bits
# at any thread count and participation.
add_test(NAME conform COMMAND ${FEDBENCH_EXECUTABLE} --plugin $<TARGET_FILE:@TARGET@> conform @NAME@)
)tmpl";

const char* const kSolver = R"tmpl(// @NAME@: K local gradient descent-ascent steps from the server model, then a server step
// of size eta_g along the clients' average change (eta_g = 1: the model is the average).
// Replace this with your method. Its doc comment cites the paper (authors, title, venue, year,
// algorithm number), maps its symbols to the parameters below, and has one `Resolved:` line per
// ambiguity you settled and one `Deviation:` line per difference from the paper.
//
// Theory (the default step): gamma = mu / (2 K L_max^2), with mu the strong monotonicity and
// L_max the largest client Lipschitz constant the problem publishes.
#include <span>
#include <tuple>

#include "engine/solver.hpp"
#include "plugin/plugin.hpp"

namespace @TARGET@ {

using namespace fedbench;

struct @TYPE@ {
  struct Params {
    int local_steps;
    int batch_size;
    double step_size;
    double server_step;
  };
  static void declare(Schema<Params>& s) {
    s.integer("local_steps", &Params::local_steps, "10", {.ge = 1}, "K, local steps per round")
        .integer("batch_size", &Params::batch_size, "0", {.ge = 0},
                 "samples per oracle call, with replacement; 0 = the full local batch")
        .real("step_size", &Params::step_size, kTheory, {.gt = 0},
              "gamma, the local step; theory mu / (2 K L_max^2)", true)
        .real("server_step", &Params::server_step, "1", {.gt = 0},
              "eta_g, the server step along the average change (1: plain averaging)");
  }
  // Theory values, only for parameters not given: explicit values run on any problem.
  static void resolve(Params& p, const SolverSetup& s) {
    if (!is_unset(p.step_size)) return;
    const double lipschitz = s.constant(Constant::lipschitz_client_max);
    p.step_size = s.constant(Constant::mu) / (2.0 * p.local_steps * lipschitz * lipschitz);
  }

  Params p;
  struct Down {
    Vec model;
    auto fields() const { return std::tie(model); }  // what is sent, and counted
  };
  struct Up {
    Vec change;
    auto fields() const { return std::tie(change); }
  };
  struct Client {
    Vec x, g;
  };
  static constexpr bool kScratchClient = true;  // both fields are rewritten every turn

  void server_begin(ServerCtx& s, Down& d) const { d.model = s.model(); }

  void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {
    st.x = d.model;
    for (int k = 0; k < p.local_steps; ++k) {
      c.oracle().op(st.x, st.g, p.batch_size);  // (grad_x f_i, -grad_y f_i), counted
      st.x -= p.step_size * st.g;
    }
    up.change = st.x - d.model;
  }

  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::change, mean_change_);  // in client-id order: the same bits always
    s.model() += p.server_step * mean_change_;
  }

 private:
  Vec mean_change_;
};

FEDBENCH_REGISTER_SOLVER(@TYPE@, "@NAME@", "K local GDA steps, then a server step along the average change",
                         "your paper: authors, venue, year, algorithm number");

}  // namespace @TARGET@

FEDBENCH_PLUGIN("@NAME@", "0.1.0");
)tmpl";

// The suite of both kinds of project; @ENTRY@ is how it names the new solver, @LOAD@ what a
// command needs to load it.
const char* const kSuite = R"tmpl(# @NAME@ beside the papers' baselines on the strongly monotone quadratic game of Zhang,
# Choudhury, Stich, Loizou (ICLR 2024), eq. (5): every method with its theory step sizes,
# then each with a step-size grid under the same budget (the same tuning effort for all).
#   fedbench @LOAD@run suite.yaml
#   fedbench --plugin @PLUGIN@ report results/@NAME@-vs-baselines
name: @NAME@-vs-baselines
seeds: [1, 2]
rounds: 200
eval: {every: 5}
problems:
  - name: quadratic-game
    params: {clients: 10, samples: 50, dim: 10}
solvers:
  - @ENTRY@
  - @ENTRY@
    params:
      step_size: logspace(-3, -1, 3)
  - name: local-gda
  - name: local-gda
    params:
      schedule: constant
      step_size: logspace(-3, -1, 3)
  - name: proxskip-gda-fl
  - name: fedgda-gt
)tmpl";

const char* const kReadme = R"tmpl(# @NAME@: a fedbench plug-in

Build against an installed fedbench (`make install PREFIX=...` in fedbench's tree), check the
solver, compare it with the papers' methods:

    cmake -S . -B build -DCMAKE_PREFIX_PATH=<prefix> && cmake --build build && ctest --test-dir build
    fedbench --plugin build/lib@TARGET@.so run suite.yaml
    fedbench --plugin build/lib@TARGET@.so report results/@NAME@-vs-baselines

`@TARGET@.cpp` is the solver; its contract (hooks, messages, oracles, streams) is fedbench's
docs/adding-a-solver.md, installed under share/doc/fedbench. `fedbench describe @NAME@` lists
its parameters; runs record this library's fingerprint, so that cached runs are redone when it
changes.
)tmpl";

const char* const kPythonSolver = R"tmpl("""@NAME@: K local gradient descent-ascent steps from the server model, then a server step of
size eta_g along the clients' average change (eta_g = 1: the model is the average).

Replace this with your method, and cite its paper here (authors, title, venue, year, algorithm
number), with one `Resolved:` line per ambiguity you settled. fedbench's engine runs the hooks:
it samples the clients, counts every oracle call and every float of `down` and `up`, draws the
randomness (client.stream, server.stream) and evaluates the metrics. Theory (the default step):
gamma = mu / (2 K L_max^2) from the problem's constants.
"""


class @TYPE@:
    name = "@NAME@"
    summary = "K local GDA steps, then a server step along the average change"
    citation = "your paper: authors, venue, year, algorithm number"
    family = "minimax"
    params = {
        "local_steps": {"default": 10, "ge": 1, "doc": "K, local steps per round"},
        "batch_size": {"default": 0, "ge": 0, "doc": "samples per oracle call; 0 = the full local batch"},
        "step_size": {"default": "theory", "type": "real", "gt": 0,
                      "doc": "gamma, the local step; theory mu / (2 K L_max^2)"},
        "server_step": {"default": 1.0, "gt": 0, "doc": "eta_g, the server step along the average change"},
    }
    down = ("model",)
    up = ("change",)

    @staticmethod
    def resolve(p, setup):
        if p.step_size is None:
            lipschitz = setup.constant("lipschitz_client_max")
            p.step_size = setup.constant("mu") / (2.0 * p.local_steps * lipschitz * lipschitz)

    def server_begin(self, server, down):
        down["model"] = server.model

    def client_round(self, client, state, down, up):
        x = down["model"].copy()
        for _ in range(self.p.local_steps):
            x -= self.p.step_size * client.oracle.op(x, self.p.batch_size)  # counted
        up["change"] = x - down["model"]

    def server_end(self, server, uploads):
        mean = uploads[0]["change"].copy()  # in client-id order: the same bits always
        for u in uploads[1:]:
            mean += u["change"]
        mean /= len(uploads)
        server.model[:] += self.p.server_step * mean


fedbench_plugin = {"name": "@NAME@", "version": "0.1.0", "solvers": [@TYPE@]}
)tmpl";
const char* const kPythonReadme = R"tmpl(# @NAME@: a solver for fedbench, in Python

Check the solver, compare it with the papers' methods, look at the report:

    fedbench --plugin @TARGET@.py conform @NAME@
    fedbench run suite.yaml
    fedbench --plugin @TARGET@.py report results/@NAME@-vs-baselines

`@TARGET@.py` is the solver; the hooks, messages, oracles and streams it may use are in
fedbench's docs/python.md, installed under share/doc/fedbench. Runs record this file's
fingerprint, so that cached runs are redone when it changes (modules it imports are not
fingerprinted).
)tmpl";

// The suite for a C++ plug-in (loaded by --plugin) or a Python file (named by the suite).
std::string fill_suite(bool python) {
  return replace_placeholders(kSuite, {{"@ENTRY@", python ? "python: @TARGET@.py" : "name: @NAME@"},
                                       {"@LOAD@", python ? "" : "--plugin build/lib@TARGET@.so "},
                                       {"@PLUGIN@", python ? "@TARGET@.py" : "build/lib@TARGET@.so"}});
}

}  // namespace

std::string replace_placeholders(std::string text, const std::vector<std::pair<std::string, std::string>>& fields) {
  for (const auto& [key, value] : fields)
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

const std::vector<std::pair<std::string, std::string>>& plugin_template_files(bool python) {
  static const std::vector<std::pair<std::string, std::string>> cpp{
      {"CMakeLists.txt", kCMakeLists},
      {"@TARGET@.cpp", kSolver},
      {"suite.yaml", fill_suite(false)},
      {"README.md", kReadme}};
  static const std::vector<std::pair<std::string, std::string>> py{
      {"@TARGET@.py", kPythonSolver},
      {"suite.yaml", fill_suite(true)},
      {"README.md", kPythonReadme}};
  return python ? py : cpp;
}

}  // namespace fedbench::cli
