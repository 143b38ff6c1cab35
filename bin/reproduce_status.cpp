#include "reproduce_status.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/error.hpp"
#include "experiment/verdict_file.hpp"
#include "markdown.hpp"

namespace fedbench::cli {
namespace {

namespace fs = std::filesystem;

struct Recorded {
  const suite::Experiment* experiment = nullptr;
  std::optional<Json> document;  //!< empty: none recorded
  std::string error;             //!< a file that is there but does not read
};

std::vector<Recorded> recorded(const std::vector<suite::ListedExperiment>& experiments, const std::string& dir) {
  std::vector<Recorded> out;
  for (const auto& item : experiments) {
    if (!item.experiment || !item.experiment->out_of_scope.empty()) continue;
    Recorded r;
    r.experiment = &*item.experiment;
    const std::string path = dir + "/" + item.experiment->name + ".json";
    std::error_code ec;
    if (fs::exists(path, ec)) {
      try {
        r.document = suite::read_verdict_document(path);
      } catch (const UserError& error) {
        r.error = error.what();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string tally_text(const Json& t, const char* undecided = "inconclusive") {
  return std::to_string(t.at("holds").get<int>()) + " hold, " + std::to_string(t.at("contradicted").get<int>()) +
         " contradicted, " + std::to_string(t.at("inconclusive").get<int>()) + " " + undecided;
}

int claims_in(const Json& t) {
  return t.at("holds").get<int>() + t.at("contradicted").get<int>() + t.at("inconclusive").get<int>();
}

std::string seeds_text(const Json& seeds) {
  std::string out;
  for (const auto& s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s.get<std::uint64_t>());
  return "[" + out + "]";
}

// The time the recorded reproduce took (files from before timing was recorded have none).
struct Timing {
  double wall = 0, cpu = 0;
  int cores = 0;
  long long runs = 0, found = 0;
};
std::optional<Timing> timing_of(const Json& d) {
  if (!d.contains("timing") || !d.at("timing").is_object()) return std::nullopt;
  const Json& t = d.at("timing");
  return Timing{t.at("wall_seconds").get<double>(), t.at("cpu_seconds").get<double>(), t.at("cores").get<int>(),
                t.at("runs").get<long long>(), t.at("runs_found_finished").get<long long>()};
}

// The times of the recorded runs and their sums: what `make reproduce` costs, measured. CPU
// time over the cores is what an experiment takes alone on that machine, whatever else ran
// beside it; a file re-recorded from finished runs shows the (short) time of that re-recording.
void print_time_table(const std::vector<Recorded>& all) {
  std::printf("\n## Time taken\n\nAs recorded by the reproduce that wrote each file: wall clock, CPU time of "
              "all its threads, and CPU time over the machine's cores (what the experiment takes alone there, "
              "whatever else shared the cores). Runs found finished were not run again.\n\n"
              "| experiment | wall | CPU | CPU / cores | runs (found finished) |\n|---|---|---|---|---|\n");
  double wall = 0, cpu = 0, alone = 0;
  int missing = 0;
  for (const auto& r : all) {
    const auto t = r.document ? timing_of(*r.document) : std::nullopt;
    if (!t) {
      ++missing;
      continue;
    }
    const double per_core = t->cpu / std::max(t->cores, 1);
    wall += t->wall;
    cpu += t->cpu;
    alone += per_core;
    std::printf("| `%s` | %s | %s | %s | %lld (%lld) |\n", r.experiment->name.c_str(), duration_text(t->wall).c_str(),
                duration_text(t->cpu).c_str(), duration_text(per_core).c_str(), t->runs, t->found);
  }
  if (missing < static_cast<int>(all.size()))
    std::printf("| all | %s | %s | %s | |\n", duration_text(wall).c_str(), duration_text(cpu).c_str(),
                duration_text(alone).c_str());
  if (missing > 0) std::printf("\n%d experiments have no recorded time (recorded before times were).\n", missing);
}

// "zhang2024" of "zhang2024-fig1a": the paper an experiment belongs to.
std::string paper_of(const std::string& name) { return name.substr(0, name.find('-')); }

}  // namespace

std::string duration_text(double seconds) {
  char buf[32];
  if (seconds < 120) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else if (seconds < 7200) std::snprintf(buf, sizeof buf, "%.1f min", seconds / 60);
  else std::snprintf(buf, sizeof buf, "%.2f h", seconds / 3600);
  return buf;
}

int print_verdict_status(const std::vector<suite::ListedExperiment>& experiments, const std::string& dir) {
  for (const auto& r : recorded(experiments, dir)) {
    const std::string& name = r.experiment->name;
    if (!r.error.empty()) {
      std::printf("%s: unreadable: %s\n", name.c_str(), r.error.c_str());
      continue;
    }
    if (!r.document) {
      std::printf("%s: no verdicts recorded (fedbench reproduce %s --record %s)\n", name.c_str(), name.c_str(),
                  dir.c_str());
      continue;
    }
    const Json& d = *r.document;
    const std::string why = suite::verdict_staleness(d, *r.experiment);
    const auto t = timing_of(d);
    const std::string took = t ? " (took " + duration_text(t->wall) + ", " + duration_text(t->cpu) + " CPU)" : "";
    std::printf("%s: paper's claims %s; fedbench's %s; recorded %s%s; %s\n", name.c_str(),
                tally_text(d.at("paper_claims")).c_str(), tally_text(d.at("extra_claims")).c_str(),
                d.at("made_by").at("date").get<std::string>().c_str(), took.c_str(),
                why.empty() ? "current" : ("stale (" + why + ")").c_str());
  }
  return 0;
}

int print_verdict_markdown(const std::vector<suite::ListedExperiment>& experiments, const std::string& dir) {
  const auto all = recorded(experiments, dir);
  std::printf("# Verdicts\n\nGenerated by `fedbench reproduce --status --markdown` (`make catalogs`) from the "
              "verdict files of results/verdicts/, which `make reproduce` writes; a test fails when this file or "
              "the README's table is stale. Each claim is judged seed by seed: the verdict, its interval and n are "
              "explained in [../experiments.md](../experiments.md#verdicts). `fedbench reproduce --status` says whether "
              "each file is current for the code you run.\n\n");
  std::printf("<!-- verdicts-summary -->\n| paper | experiment | paper's claims: hold / contradicted / "
              "inconclusive | fedbench's own claims | report seeds |\n|---|---|---|---|---|\n");
  for (const auto& r : all) {
    const std::string& name = r.experiment->name;
    if (!r.document) {
      std::printf("| %s | `%s` | not recorded | | |\n", paper_of(name).c_str(), name.c_str());
      continue;
    }
    const Json& d = *r.document;
    const auto cell = [](const Json& t) {
      return claims_in(t) == 0 ? std::string("none")
                               : std::to_string(t.at("holds").get<int>()) + " / " +
                                     std::to_string(t.at("contradicted").get<int>()) + " / " +
                                     std::to_string(t.at("inconclusive").get<int>());
    };
    // A file the code has moved past still shows its numbers, marked: they are not this code's.
    const std::string why = suite::verdict_staleness(d, *r.experiment);
    const std::string stale = why.empty() ? "" : " (stale: " + markdown_cell(why) + ")";
    std::printf("| %s | [`%s`](#%s) | %s%s | %s | %zu |\n", paper_of(name).c_str(), name.c_str(),
                name.c_str(), cell(d.at("paper_claims")).c_str(), stale.c_str(), cell(d.at("extra_claims")).c_str(),
                d.at("seeds").at("report").size());
  }
  std::printf("<!-- /verdicts-summary -->\n");
  print_time_table(all);
  for (const auto& r : all) {
    if (!r.document) continue;
    const Json& d = *r.document;
    const Json& made = d.at("made_by");
    const Json& tuning = d.at("seeds").at("tuning");
    const std::string tuned = tuning.empty() ? "Nothing tuned (no selection)" : "Tuning seeds " + seeds_text(tuning);
    std::printf("\n## %s\n\n%s\n\n%s, report seeds %s. Recorded %s by fedbench %s on %s (%d cores).\n\n",
                r.experiment->name.c_str(), markdown_cell(d.at("title").get<std::string>()).c_str(), tuned.c_str(),
                seeds_text(d.at("seeds").at("report")).c_str(),
                made.at("date").get<std::string>().c_str(), made.at("fedbench").get<std::string>().c_str(),
                markdown_cell(made.at("machine").at("cpu").get<std::string>()).c_str(),
                made.at("machine").at("cores").get<int>());
    if (const std::string why = suite::verdict_staleness(d, *r.experiment); !why.empty())
      std::printf("**Stale**: %s; rerun with `make reproduce ONLY=%s`.\n\n", markdown_cell(why).c_str(),
                  r.experiment->name.c_str());
    std::printf("| verdict | origin | claim and evidence |\n|---|---|---|\n");
    for (const auto& c : d.at("claims"))
      std::printf("| %s | %s | %s |\n", c.at("verdict").get<std::string>().c_str(),
                  c.at("origin").get<std::string>().c_str(), markdown_cell(c.at("line").get<std::string>()).c_str());
    for (const auto& v : d.at("variants")) {
      std::printf("\nVariant `%s`, explaining \"%s\":\n\n| verdict | claim and evidence |\n|---|---|\n",
                  v.at("name").get<std::string>().c_str(), markdown_cell(v.at("explains").get<std::string>()).c_str());
      for (const auto& c : v.at("claims"))
        std::printf("| %s | %s |\n", c.at("verdict").get<std::string>().c_str(),
                    markdown_cell(c.at("line").get<std::string>()).c_str());
    }
  }
  return 0;
}

}  // namespace fedbench::cli
