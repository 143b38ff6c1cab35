// The target of both run-file harnesses: any bytes as RESULTS/runs/ID.h5, read back, then
// what the tools do with a file that reads: `show` (the summary and --json), `export` (CSV and
// JSON), `check` (a run against itself, exactly and within a band), and one of `select` (at
// the last round, or by area) and the results manifest, which read the file again (picked by
// the input's size, to keep executions fast).
#pragma once
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "io/run_sinks.hpp"
#include "io/trajectory_file.hpp"
#include "results/check.hpp"
#include "results/check_report.hpp"
#include "results/results_store.hpp"
#include "results/select.hpp"

namespace fedbench::fuzz {

inline void use_the_run(const io::StoredRun& run, const std::string& results, std::size_t pick) {
  std::ostringstream out;
  out << io::summarize_trajectory(run);
  io::JsonSink json(out, true);
  replay(run.record, json);
  json.close();
  io::CsvLayout layout;
  layout.add(run.record.header);
  io::CsvSink csv(out, layout);
  replay(run.record, csv);
  suite::CheckReport report;
  report.runs = {suite::compare_runs(run, run, {}), suite::compare_runs(run, run, {{"*", 0.1}})};
  suite::print_check_report(report, out);
  out << suite::check_report_json(report).dump();
  const auto primary = run.text.find("primary_metric");
  const std::string metric = primary == run.text.end() ? "rel_error" : primary->second;
  const double last = run.num_rows() ? run.column("round").back() : 0;
  if (pick % 3 == 0)
    (void)suite::select_best(results, suite::SelectCriterion::parse(metric, "rounds=" + format_real(last)));
  if (pick % 3 == 1) (void)suite::select_best(results, suite::SelectCriterion::parse(metric, "auc"));
  if (pick % 3 == 2) suite::ResultsStore(results).write_manifest();
}

inline int read_run_file(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch().write("results/runs/0123456789abcdef.h5", data, size);
  return expect_user_errors([&] {
    const io::StoredRun run = io::read_trajectory(path);
    use_the_run(run, scratch().path() + "/results", size);
  });
}

}  // namespace fedbench::fuzz
