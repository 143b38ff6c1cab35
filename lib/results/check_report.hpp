// What `fedbench check` prints: one line per failing run or curve and a summary, or the whole
// comparison as JSON (every curve's verdict, its largest deviation and band, the references
// with no run and the runs with no reference).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>

#include "results/check.hpp"

namespace fedbench::suite {

//! "FAIL ID (solver, seed S) ..." per failure, notes, then "N passed, N failed".
void print_check_report(const CheckReport& report, std::ostream& out);

//! The report as one JSON object (non-finite numbers are null).
nlohmann::json check_report_json(const CheckReport& report);

}  // namespace fedbench::suite
