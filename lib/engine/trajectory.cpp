#include "engine/trajectory.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace fedbench {

namespace {
constexpr std::pair<StopReason, const char*> kReasonNames[] = {
    {StopReason::max_rounds, "max_rounds"},         {StopReason::oracle_budget, "oracle_budget"},
    {StopReason::comm_budget, "comm_budget"},       {StopReason::target_reached, "target_reached"},
    {StopReason::time_limit, "time_limit"},         {StopReason::diverged, "diverged"},
    {StopReason::error, "error"}};
}  // namespace

std::string to_string(StopReason r) {
  for (const auto& [reason, name] : kReasonNames)
    if (reason == r) return name;
  return "unknown";
}

StopReason stop_reason_from_string(const std::string& s) {
  for (const auto& [reason, name] : kReasonNames)
    if (s == name) return reason;
  throw UserError("unknown stop reason '" + s + "'");
}

std::string status_of(StopReason r) {
  if (r == StopReason::diverged) return "diverged";
  if (r == StopReason::error) return "error";
  return "ok";
}

std::vector<double> MemoryTrajectory::metric(const std::string& name) const {
  const auto& names = header.metric_names;
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw UserError("trajectory has no metric '" + name + "'");
  const auto k = static_cast<std::size_t>(it - names.begin());
  std::vector<double> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.metrics[k]);
  return out;
}

void replay(const RunRecord& record, TrajectorySink& sink) {
  sink.begin(record.header);
  for (const auto& row : record.rows) sink.row(row);
  sink.end(record.summary);
}

}  // namespace fedbench
