#include "engine/trajectory.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace fedbench {

namespace {
constexpr std::pair<StopReason, const char*> kReasonNames[] = {
    {StopReason::max_rounds, "max_rounds"},         {StopReason::oracle_budget, "oracle_budget"},
    {StopReason::comm_budget, "comm_budget"},       {StopReason::target_reached, "target_reached"},
    {StopReason::time_limit, "time_limit"},         {StopReason::diverged, "diverged"},
    {StopReason::error, "error"},                   {StopReason::timeout, "timeout"},
    {StopReason::crashed, "crashed"}};
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
  if (r == StopReason::timeout) return "timeout";
  if (r == StopReason::crashed) return "crashed";
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

const std::vector<CounterColumn>& counter_columns() {
  static const std::vector<CounterColumn> columns{
      {"round", [](TrajectoryRow& r) -> std::int64_t& { return r.round; },
       "communication rounds completed (0: the start point)", "round"},
      {"grad_x_calls", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.calls[0]; },
       "oracle calls for grad_x, summed over clients", "call"},
      {"grad_y_calls", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.calls[1]; },
       "oracle calls for grad_y, summed over clients", "call"},
      {"value_calls", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.calls[2]; },
       "function-value calls, summed over clients", "call"},
      {"hvp_calls", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.calls[3]; },
       "Hessian-vector products, summed over clients", "call"},
      {"jvp_calls", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.calls[4]; },
       "Jacobian-vector products, summed over clients", "call"},
      {"samples", [](TrajectoryRow& r) -> std::int64_t& { return r.oracle.samples; },
       "component functions touched by all oracle calls", "sample"},
      {"exchanges", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.exchanges; },
       "server-clients-server round trips", "exchange"},
      {"messages_up", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.messages_up; },
       "client-to-server messages", "message"},
      {"messages_down", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.messages_down; },
       "server-to-client messages", "message"},
      {"floats_up", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.floats_up; },
       "floating-point numbers sent up", "float"},
      {"floats_down", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.floats_down; },
       "floating-point numbers sent down", "float"},
      {"bytes_up", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.bytes_up; },
       "bytes sent up", "byte"},
      {"bytes_down", [](TrajectoryRow& r) -> std::int64_t& { return r.comm.bytes_down; },
       "bytes sent down", "byte"},
  };
  return columns;
}

void replay(const RunRecord& record, TrajectorySink& sink) {
  sink.begin(record.header);
  for (const auto& row : record.rows) sink.row(row);
  sink.end(record.summary);
}

}  // namespace fedbench
