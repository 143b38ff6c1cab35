// What `fedbench check` prints: one line per failing run or curve (where the curves part
// first, how far apart at the worst row, in band widths for a banded column, the final values)
// and a summary, or the whole comparison as JSON (every curve's verdict, its largest deviation
// and band, the references with no run and the runs with no reference), or JUnit XML.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "results/check.hpp"

namespace fedbench::suite {

//! "FAIL ID (solver, seed S) ..." per failure, notes, then "N passed, N failed".
void print_check_report(const CheckReport& report, std::ostream& out);

//! The report as one JSON object (non-finite numbers are null).
nlohmann::json check_report_json(const CheckReport& report);

//! The report as JUnit XML: one testsuite (the suite), one testcase per run (classname
//! SUITE.SOLVER, name "ID seed S"), a failure per failing run with its lines, notes in
//! system-out.
std::string check_report_junit(const CheckReport& report, const std::string& suite_name);

}  // namespace fedbench::suite
