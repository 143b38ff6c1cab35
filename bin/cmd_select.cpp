// `fedbench select RESULTS --metric NAME --at rounds=R [--report-seeds ...] [-o FILE]`: the
// best configuration per solver by the median over tuning seeds, as a table and as a suite
// file that reruns the winners on separate report seeds.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/grid.hpp"
#include "suite/select.hpp"

namespace fedbench::cli {

std::function<int()> add_select(CLI::App& app) {
  auto* sub = app.add_subcommand("select", "pick the best configuration per solver from a results directory");
  struct Options {
    std::string results, metric, at, report_seeds = "range(1000, 1005)", output;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_option("--metric", o->metric,
                  "metric to minimise (default: the runs' primary metric, rel_error or hypergrad_norm)");
  sub->add_option("--at", o->at, "rounds=R | samples=S | bytes=B | auc")->required();
  sub->add_option("--report-seeds", o->report_seeds,
                  "seeds of the winners' suite (default range(1000, 1005)); list a,b,c or range(a, b)");
  sub->add_option("-o,--output", o->output, "winners suite file (default RESULTS/winners.yaml)");
  return [o] {
    const auto criterion = suite::SelectCriterion::parse(
        o->metric.empty() ? suite::recorded_primary_metric(o->results) : o->metric, o->at);
    // "range(a, b)" / "logspace(..)" as one item; otherwise a comma-separated list.
    const bool call = o->report_seeds.find('(') != std::string::npos;
    std::vector<std::uint64_t> seeds;
    for (const auto& item : call ? std::vector<std::string>{o->report_seeds}
                                 : split(o->report_seeds, ','))
      for (const auto& v : suite::expand_text(item, "--report-seeds")) {
        long long seed = 0;
        if (!parse_int(v, seed) || seed < 0)
          throw UserError("--report-seeds: '" + v + "' is not a whole number >= 0");
        seeds.push_back(static_cast<std::uint64_t>(seed));
      }
    const suite::Selection sel = suite::select_best(o->results, criterion);

    std::printf("best per solver by the median over seeds of %s (%zu configurations)\n",
                criterion.describe().c_str(), sel.all.size());
    std::printf("%-22s %14s %6s  %s\n", "solver", "median", "seeds", "parameters");
    std::map<std::string, std::vector<suite::Configuration>> by_problem;
    for (const auto& w : sel.winners) {
      std::string params;
      for (const auto& [k, v] : w.solver_params) params += k + "=" + v + " ";
      std::printf("%-22s %14.6g %6zu  %s\n", w.solver.c_str(), w.median, w.seeds.size(),
                  params.c_str());
      by_problem[w.problem_key].push_back(w);
    }
    const std::string out = o->output.empty() ? o->results + "/winners.yaml" : o->output;
    const std::string name = std::filesystem::path(o->results).filename().string() + "-winners";
    int k = 0;
    for (const auto& [key, winners] : by_problem) {
      std::string path = out;
      if (by_problem.size() > 1) {  // one suite per problem configuration
        const auto dot = out.rfind('.');
        path = out.substr(0, dot) + "-" + std::to_string(++k) + out.substr(dot);
      }
      std::ofstream f(path);
      if (!f) throw UserError("cannot write " + path + ": check the directory");
      f << suite::winners_suite(winners, seeds, name,
                                "written by fedbench select: winners by " + criterion.describe() +
                                    ", rerun on report seeds");
      std::printf("winners suite: %s\n", path.c_str());
    }
    return 0;
  };
}

}  // namespace fedbench::cli
