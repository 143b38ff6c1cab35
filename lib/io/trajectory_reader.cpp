// Reading a run file back: libhdf5 reads the contents (only the groups, attributes and
// datasets fedbench writes, each checked for type, shape and size before it is used), then
// the typed record is assembled from them without touching the file again.
#include <algorithm>
#include <set>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/hdf5.hpp"
#include "io/screen/run_file_contents.hpp"
#include "io/trajectory_file.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::io {

namespace {

// The typed record from the file's attributes and columns (format 1 and 2).
void fill_record(StoredRun& run, const std::map<std::string, MetricMeta>& meta) {
  auto text = [&](const char* k) {
    const auto it = run.text.find(k);
    return it == run.text.end() ? std::string() : it->second;
  };
  auto number = [&](const char* k) {
    const auto it = run.numbers.find(k);
    return it == run.numbers.end() ? 0.0 : it->second;
  };
  RunHeader& h = run.record.header;
  h.problem = text("problem");
  h.solver = text("solver");
  h.problem_params = run.problem_params;
  h.solver_params = run.solver_params;
  h.config_text = text("config");
  h.identity = text("identity");
  h.command_line = text("command_line");
  h.seed = static_cast<std::uint64_t>(number("seed"));
  h.constants = run.constants;
  h.primary_metric = text("primary_metric");
  h.problem_kind = text("problem_kind");
  h.num_clients = static_cast<int>(number("num_clients"));
  h.dim = static_cast<std::int64_t>(number("dim"));
  h.dim_x = static_cast<std::int64_t>(number("dim_x"));
  h.setup_time = number("setup_time");
  h.env = {text("env_cpu_model"), text("env_eigen_version"), text("env_hdf5_version"),
           text("env_compiler"), static_cast<std::int64_t>(number("env_cores")),
           static_cast<std::int64_t>(number("env_threads")),
           static_cast<std::int64_t>(number("env_mpi_ranks"))};
  if (const std::string isa = text("env_isa"); !isa.empty()) h.env.isa = isa;
  h.provenance = provenance_from_attributes(run.text);
  for (const auto& name : run.column_names)
    if (const auto it = meta.find(name); it != meta.end()) {
      h.metric_names.push_back(name);
      h.metric_meta.push_back(it->second);
    }

  const std::size_t rows = run.num_rows();
  auto at = [&](const std::string& name, std::size_t i) {
    const auto it = run.columns.find(name);
    return it == run.columns.end() || i >= it->second.size() ? 0.0 : it->second[i];
  };
  auto count = [&](const std::string& name, std::size_t i) {
    return static_cast<std::int64_t>(at(name, i));
  };
  run.record.rows.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    TrajectoryRow& r = run.record.rows[i];
    for (const auto& c : counter_columns()) c.field(r) = count(c.name, i);
    r.wall_time = at("wall_time", i);
    r.eval_time = at("eval_time", i);
    for (const auto& name : h.metric_names) r.metrics.push_back(at(name, i));
  }

  RunSummary& s = run.record.summary;
  const std::string reason = text("stop_reason");
  s.reason = reason.empty() ? StopReason::error : stop_reason_from_string(reason);
  s.message = text("message");
  s.rounds = static_cast<std::int64_t>(number("rounds"));
  s.wall_time = number("wall_time");
  s.eval_time = number("eval_time");
  s.threads_at_end = std::max(1, static_cast<int>(run.numbers.count("threads_at_end") ? number("threads_at_end")
                                                                                     : number("env_threads")));
  const std::size_t clients = run.per_client.empty() ? 0 : run.per_client.begin()->second.size();
  s.per_client.resize(clients);
  for (std::size_t i = 0; i < clients; ++i) {
    for (int k = 0; k < kOracleKinds; ++k) {
      const auto it = run.per_client.find(std::string(kOracleKindNames[k]));
      if (it != run.per_client.end()) s.per_client[i].calls[k] = static_cast<std::int64_t>(it->second[i]);
    }
    if (const auto it = run.per_client.find("samples"); it != run.per_client.end())
      s.per_client[i].samples = static_cast<std::int64_t>(it->second[i]);
  }
}

}  // namespace

namespace {

// The root attributes fedbench writes (docs/hdf5-format.md), the only ones read back: each is
// checked for its kind, so that show, select, export, check and the manifest may rely on
// them. Required: those every version has and the tools use. A new attribute of the writer
// is read back once it is listed here.
enum class Kind { text, real, count };
struct RootAttribute {
  const char* name;
  Kind kind;
  bool required = false;
  double limit = 0;  // counts: [0, limit), a power of two: the integer field it lands in
};
constexpr double kExact = 9007199254740992.0;  // 2^53: counts kept in doubles stay exact
const RootAttribute kRootAttributes[] = {
    {"fedbench_version", Kind::text}, {"git_commit", Kind::text}, {"compiler", Kind::text},
    {"command_line", Kind::text}, {"config", Kind::text, true}, {"identity", Kind::text}, {"problem", Kind::text, true},
    {"solver", Kind::text, true}, {"primary_metric", Kind::text},
    {"seed", Kind::count, true, 18446744073709551616.0}, {"num_clients", Kind::count, false, 2147483648.0},
    {"dim", Kind::count, false, kExact}, {"dim_x", Kind::count, false, kExact},
    {"problem_kind", Kind::text}, {"setup_time", Kind::real}, {"env_cpu_model", Kind::text},
    {"env_cores", Kind::count, false, kExact}, {"env_threads", Kind::count, false, kExact},
    {"env_mpi_ranks", Kind::count, false, kExact}, {"env_eigen_version", Kind::text},
    {"env_hdf5_version", Kind::text}, {"env_compiler", Kind::text}, {"env_isa", Kind::text},
    {"status", Kind::text, true}, {"stop_reason", Kind::text, true}, {"message", Kind::text},
    {"rounds", Kind::count, true, kExact}, {"wall_time", Kind::real}, {"eval_time", Kind::real},
    {"threads_at_end", Kind::count, false, kExact},
    {"code_numerics", Kind::text}, {"code_solver", Kind::text}, {"code_problem", Kind::text},
    {"plugin_solver", Kind::text}, {"plugin_problem", Kind::text}, {"data_files", Kind::text}};

bool is_count(double v, double limit) { return v >= 0 && v < limit && v == std::floor(v); }

// A number attribute as a double (integers exactly up to 2^53), or nullopt for text.
std::optional<double> number_of(const h5::AttributeValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

void read_root_attributes(hid_t root, StoredRun& run) {
  const std::string& path = run.path;
  for (const auto& a : kRootAttributes) {
    if (!h5::has_attribute(root, a.name)) {
      if (a.required) throw UserError(path + ": not a fedbench run file (no attribute " + a.name + ")");
      continue;
    }
    const h5::AttributeValue v = h5::read_attribute(root, a.name);
    const auto number = number_of(v);
    if (a.kind == Kind::text) {
      if (number) throw UserError(path + ": attribute " + a.name + " is not text");
      run.text[a.name] = std::get<std::string>(v);
    } else if (!number) {
      throw UserError(path + ": attribute " + a.name + " is not a number");
    } else if (a.kind == Kind::count && !is_count(*number, a.limit)) {
      throw UserError(path + ": attribute " + a.name + " = " + format_real(*number) +
                      " is not a whole number in [0, 2^" + std::to_string(std::ilogb(a.limit)) + ")");
    } else {
      run.numbers[a.name] = *number;
    }
  }
}

// The values a file may hold in all (kMaxValueBytesPerFileByte): a larger claim, in one
// dataset or over several, is refused before it is allocated or inflated.
class ValueBudget {
 public:
  explicit ValueBudget(std::uintmax_t file_bytes)
      : left_(file_bytes * kMaxValueBytesPerFileByte / sizeof(double) + 1024) {}
  std::vector<double> read(hid_t group, const std::string& name) {
    std::vector<double> v = h5::read_vector(group, name, left_);
    left_ -= v.size();
    return v;
  }

 private:
  hsize_t left_;
};

// Columns of equal length whose values the reader turns into int64 counts.
void check_counts(const std::string& path, const std::string& group,
                  const std::map<std::string, std::vector<double>>& columns,
                  const std::vector<std::string>& counters) {
  const std::size_t rows = columns.empty() ? 0 : columns.begin()->second.size();
  for (const auto& [name, values] : columns)
    if (values.size() != rows)
      throw UserError(path + ": corrupt: " + group + "/" + name + " has " +
                      std::to_string(values.size()) + " values, " + group + "/" +
                      columns.begin()->first + " " + std::to_string(rows));
  constexpr double kInt64 = 9223372036854775808.0;  // 2^63
  for (const auto& name : counters)
    if (const auto it = columns.find(name); it != columns.end())
      for (double v : it->second)
        if (!is_count(v, kInt64))
          throw UserError(path + ": corrupt: " + group + "/" + name + " holds " + format_real(v) +
                          ", not a count");
}

std::string text_value(const std::string& path, const std::string& where, const std::string& name,
                       const h5::AttributeValue& v) {
  if (const auto* t = std::get_if<std::string>(&v)) return *t;
  throw UserError(path + ": attribute " + name + " of " + where + " is not text");
}

}  // namespace

RunFileContents read_run_file_contents(const std::string& path) {
  h5::Handle file = h5::open_file_readonly(path);
  const hid_t root = file.id();
  const h5::AttributeValue format = h5::has_attribute(root, "format")
                                        ? h5::read_attribute(root, "format")
                                        : h5::AttributeValue{std::int64_t{0}};
  const auto* format_text = std::get_if<std::string>(&format);
  if (!format_text || *format_text != kTrajectoryFormat)
    throw UserError(path + " is not a fedbench trajectory file (no format = " +
                    kTrajectoryFormat + " attribute)");
  RunFileContents contents;
  StoredRun& run = contents.run;
  std::map<std::string, MetricMeta>& meta = contents.meta;
  run.path = path;
  run.text["format"] = *format_text;
  const auto version = h5::has_attribute(root, "format_version")
                           ? number_of(h5::read_attribute(root, "format_version"))
                           : std::nullopt;
  if (!version || *version > kTrajectoryFormatVersion)
    throw UserError(path + " has trajectory format version " +
                    (version ? format_real(*version) : std::string("?")) +
                    "; this fedbench reads up to " + std::to_string(kTrajectoryFormatVersion) +
                    ", upgrade fedbench");
  if (!is_count(*version, kTrajectoryFormatVersion + 1) || *version < 1)
    throw UserError(path + ": not a fedbench run file (format_version " + format_real(*version) + ")");
  run.numbers["format_version"] = *version;
  read_root_attributes(root, run);

  // A run's parameters are a solver's or problem's few named settings: a file with thousands,
  // or with names longer than any parameter has, would swamp every table that lists them.
  constexpr std::size_t kMaxParameters = 1000, kMaxParameterName = 128;
  auto read_text_group = [&](const char* group, std::map<std::string, std::string>& out) {
    h5::Handle g = h5::open_group(root, group);
    const auto names = h5::list_attributes(g.id());
    if (names.size() > kMaxParameters)
      throw UserError(path + ": corrupt: /" + group + " holds " + std::to_string(names.size()) +
                      " parameters; a run has at most " + std::to_string(kMaxParameters));
    for (const auto& name : names) {
      if (name.size() > kMaxParameterName)
        throw UserError(path + ": corrupt: /" + group + " has a parameter name of " + std::to_string(name.size()) +
                        " characters; names have at most " + std::to_string(kMaxParameterName));
      out[name] = text_value(path, group, name, h5::read_attribute(g.id(), name));
    }
  };
  read_text_group("params/problem", run.problem_params);
  read_text_group("params/solver", run.solver_params);
  {
    h5::Handle g = h5::open_group(root, "constants");
    const auto names = h5::list_attributes(g.id());
    if (names.size() > kMaxParameters)
      throw UserError(path + ": corrupt: /constants holds " + std::to_string(names.size()) +
                      " constants; a run has at most " + std::to_string(kMaxParameters));
    for (const auto& name : names) {
      const auto value = number_of(h5::read_attribute(g.id(), name));
      if (!value) throw UserError(path + ": constant " + name + " is not a number");
      run.constants[name] = *value;
    }
  }

  std::error_code size_error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, size_error);
  ValueBudget budget(size_error ? 0 : file_bytes);
  h5::Handle trajectory = h5::open_group(root, "trajectory");
  run.column_names = split(text_value(path, "/trajectory", "columns",
                                      h5::read_attribute(trajectory.id(), "columns")), ',');
  // Counters and a few dozen metrics: a list of thousands, or one with a name twice, is no run's.
  constexpr std::size_t kMaxColumns = 1000;
  if (run.column_names.size() > kMaxColumns)
    throw UserError(path + ": corrupt: /trajectory lists " + std::to_string(run.column_names.size()) +
                    " columns; a run has at most " + std::to_string(kMaxColumns));
  for (std::set<std::string> seen; const auto& name : run.column_names)
    if (!seen.insert(name).second) throw UserError(path + ": corrupt: /trajectory lists column " + name + " twice");
  std::vector<std::string> counters;
  for (const auto& c : counter_columns()) counters.push_back(c.name);
  for (const auto& name : counters)
    if (std::find(run.column_names.begin(), run.column_names.end(), name) == run.column_names.end())
      throw UserError(path + ": not a fedbench run file (no trajectory column " + name + ")");
  for (const auto& name : run.column_names) run.columns[name] = budget.read(trajectory.id(), name);
  check_counts(path, "/trajectory", run.columns, counters);
  // Rows are evaluations of rounds 0..rounds in order: a file whose rows go back or run past the
  // rounds it says it ran cannot be read as a trajectory (a 20-round run with 1.5 M rows).
  if (const auto& r = run.columns.at("round"); !r.empty()) {
    for (std::size_t i = 1; i < r.size(); ++i)
      if (!(r[i] > r[i - 1]))
        throw UserError(path + ": corrupt: /trajectory/round goes from " + format_real(r[i - 1]) + " to " +
                        format_real(r[i]) + " at row " + std::to_string(i) + "; rounds only increase");
    if (const auto it = run.numbers.find("rounds"); it != run.numbers.end() && r.back() > it->second)
      throw UserError(path + ": corrupt: a row for round " + format_real(r.back()) + " of a run of " +
                      format_real(it->second) + " rounds");
  }

  // Only the per-client totals fedbench writes: one dataset per oracle kind, and samples.
  std::vector<std::string> client_counters(kOracleKindNames.begin(), kOracleKindNames.end());
  client_counters.push_back("samples");
  if (h5::has_link(root, "clients")) {
    h5::Handle clients = h5::open_group(root, "clients");
    for (const auto& name : client_counters)
      if (h5::has_link(clients.id(), name)) run.per_client[name] = budget.read(clients.id(), name);
  }
  check_counts(path, "/clients", run.per_client, client_counters);

  for (const auto& name : run.column_names) {
    h5::Handle ds(H5Dopen2(trajectory.id(), name.c_str(), H5P_DEFAULT), H5Dclose);
    auto text_attr = [&](const char* key) {
      if (!ds || !h5::has_attribute(ds.id(), key)) return std::string();
      const auto v = h5::read_attribute(ds.id(), key);
      return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : std::string();
    };
    if (text_attr("kind") != "metric") continue;
    MetricMeta m{Direction::min, text_attr("description"), text_attr("unit")};
    const std::string direction = text_attr("direction");
    if (direction.empty()) {  // format 1: the direction from today's table
      const auto info = metric_info(name);
      if (info) m.direction = info->direction, m.description = info->description, m.unit = info->unit;
    } else if (const auto d = parse_direction(direction)) {
      m.direction = *d;
      // Which way is better is fedbench's knowledge, not the file's: a file saying otherwise for
      // a metric fedbench defines would make selection pick the worst runs.
      if (const auto info = metric_info(name); info && info->direction != *d)
        throw UserError(path + ": corrupt: metric " + name + " records direction '" + direction + "'; fedbench's " +
                        name + " is " + (info->direction == Direction::min ? "'min' (lower is better)" : "'max' (higher is better)"));
    } else {
      throw UserError(path + ": metric " + name + " has direction '" + direction + "' (min or max)");
    }
    meta[name] = std::move(m);
  }
  if (h5::has_link(root, "final")) {
    h5::Handle g = h5::open_group(root, "final");
    auto vec = [&](const char* name) {
      const auto v = budget.read(g.id(), name);
      return Vec(Eigen::Map<const Vec>(v.data(), static_cast<Index>(v.size())));
    };
    run.record.summary.final_x = vec("x");
    run.record.summary.final_y = vec("y");
    if (h5::has_link(g.id(), "y_star")) run.record.summary.final_y_star = vec("y_star");
  }
  return contents;
}

StoredRun assemble_run(RunFileContents contents) {
  StoredRun run = std::move(contents.run);
  try {
    fill_record(run, contents.meta);
  } catch (const UserError& e) {  // an unknown stop reason
    throw UserError(run.path + ": " + e.what());
  }
  return run;
}

StoredRun read_trajectory(const std::string& path) { return assemble_run(read_run_file_contents(path)); }

}  // namespace fedbench::io
