// `fedbench select RESULTS --metric NAME --at rounds=R [--report-seeds ...] [-o FILE]`: the
// best configuration per solver by the median over tuning seeds, as a table and as a suite
// file that reruns the winners on separate report seeds.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "core/safe_name.hpp"
#include "checked_options.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "io/durable_rename.hpp"
#include "suite/grid.hpp"
#include "results/select.hpp"

namespace fedbench::cli {
namespace {

// "auc(dataset=a9a, clients=20)": the problem and the parameters that set it apart.
std::string problem_label(const suite::Configuration& c) {
  std::string params;
  for (const auto& [k, v] : c.problem_params)
    if (k == "dataset" || k == "clients" || k == "path" || k == "dim") params += (params.empty() ? "" : ",") + k + "=" + v;
  return c.problem + (params.empty() ? "" : "(" + params + ")");
}

// One configuration as a JSON object: what it is, its median and each seed's score.
Json configuration_json(const suite::Configuration& c) {
  return {{"problem", c.problem},
          {"problem_params", c.problem_params},
          {"participation", c.participation},
          {"solver", c.solver},
          {"solver_params", c.solver_params},
          {"median", c.median},
          {"seeds", c.seeds},
          {"scores", c.scores}};
}

// The winners, then every configuration scored ("all": what `fedbench report` ranks by), then
// the suite files written.
void print_selection_json(const suite::Selection& sel, const suite::SelectCriterion& criterion,
                          const std::vector<std::string>& paths) {
  Json winners = Json::array(), all = Json::array();
  for (const auto& c : sel.winners) winners.push_back(configuration_json(c));
  for (const auto& c : sel.all) all.push_back(configuration_json(c));
  const Json out = {{"criterion", criterion.describe()},
                    {"direction", direction_name(sel.direction)},
                    {"configurations", sel.all.size()},
                    {"winners", winners},
                    {"all", all},
                    {"winners_suites", paths}};
  std::printf("%s\n", json_text(out).c_str());
}

}  // namespace

std::function<int()> add_select(CLI::App& app) {
  auto* sub = app.add_subcommand("select", "pick the best configuration per solver from a results directory");
  struct Options {
    std::string results, metric, at, report_seeds = "range(1000, 1005)", output;
    bool maximize = false, minimize = false, json = false, no_suite = false, all = false;
  };
  auto o = std::make_shared<Options>();
  sub->add_option("results", o->results, "results directory of a suite")->required();
  sub->add_option("--metric", o->metric,
                  "metric to optimise (default: the runs' primary metric, rel_error or hypergrad_norm)");
  sub->add_flag("--maximize", o->maximize, "the largest median wins (default: the metric's recorded direction)");
  sub->add_flag("--minimize", o->minimize, "the smallest median wins (default: the metric's recorded direction)");
  sub->add_flag("--json", o->json, "print the selection as JSON instead of a table (every configuration's scores too)");
  sub->add_flag("--no-suite", o->no_suite, "print only: write no winners suite file");
  sub->add_flag("--all", o->all,
                "every run file of the directory, also those of older configurations that the suites last "
                "run there no longer have");
  sub->add_option("--at", o->at, "rounds=R | samples=S | bytes=B | auc")->required();
  sub->add_option("--report-seeds", o->report_seeds,
                  "seeds of the winners' suite (default range(1000, 1005)); list a,b,c or range(a, b)");
  sub->add_option("-o,--output", o->output, "winners suite file (default RESULTS/winners.yaml)");
  return [o] {
    if (o->maximize && o->minimize) throw UserError("give --maximize or --minimize, not both");
    auto criterion = suite::SelectCriterion::parse(
        o->metric.empty() ? suite::recorded_primary_metric(o->results, o->all) : o->metric, o->at);
    if (o->maximize || o->minimize) criterion.direction = o->maximize ? Direction::max : Direction::min;
    // "range(a, b)" / "logspace(..)" as one item; otherwise a comma-separated list.
    const bool call = o->report_seeds.find('(') != std::string::npos;
    std::vector<std::uint64_t> seeds;
    for (const auto& item : call ? std::vector<std::string>{o->report_seeds}
                                 : split(o->report_seeds, ','))
      for (const auto& v : suite::expand_text(item, "--report-seeds")) {
        long long seed = 0;
        if (!parse_whole_number(v, seed) || seed < 0)
          throw UserError(not_a_whole_number("--report-seeds", v, 0, kMaxSeed));
        seeds.push_back(static_cast<std::uint64_t>(seed));
      }
    const suite::Selection sel = suite::select_best(o->results, criterion, o->all);

    // The winners suite is named after the results directory, in the characters a suite's name
    // may have (its results directory is results/NAME).
    const std::string name = safe_name_from(std::filesystem::path(o->results).filename().string() + "-winners");
    const auto suites = suite::winners_suites(
        sel, seeds, name, "written by fedbench select: winners by " + criterion.describe() + ", rerun on report seeds");
    const bool several = suites.size() > 1;
    // One suite per problem configuration: winners-1.yaml, winners-2.yaml, ... beside the name.
    const std::filesystem::path out = o->output.empty() ? o->results + "/winners.yaml" : o->output;
    std::vector<std::string> paths;
    for (std::size_t k = 1; k <= suites.size() && !o->no_suite; ++k) {
      if (!several) {
        paths.push_back(out.string());
        continue;
      }
      const std::string ext = out.extension().empty() ? ".yaml" : out.extension().string();
      paths.push_back((out.parent_path() / (out.stem().string() + "-" + std::to_string(k) + ext)).string());
    }
    if (o->json) {
      print_selection_json(sel, criterion, paths);
    } else {
      std::printf("best per solver by the median over seeds of %s, %s wins (%zu configurations)\n",
                  criterion.describe().c_str(), sel.direction == Direction::max ? "largest" : "smallest",
                  sel.all.size());
      if (several) std::printf("%-24s ", "problem");
      std::printf("%-22s %14s %6s  %s\n", "solver", "median", "seeds", "parameters");
      for (const auto& w : sel.winners) {
        std::string params;
        for (const auto& [key, v] : w.solver_params) params += key + "=" + v + " ";
        if (several) std::printf("%-24s ", problem_label(w).c_str());
        std::printf("%-22s %14.6g %6zu  %s\n", w.solver.c_str(), w.median, w.seeds.size(),
                    params.c_str());
      }
    }
    for (std::size_t k = 0; k < paths.size(); ++k) {
      std::error_code ec;
      const bool replaced = std::filesystem::exists(paths[k], ec);
      io::write_text_file(paths[k], suites[k]);
      if (!o->json)
        std::printf("winners suite: %s%s\n", paths[k].c_str(),
                    replaced ? " (replaced the previous one; -o writes elsewhere)" : "");
    }
    return 0;
  };
}

}  // namespace fedbench::cli
