#include "io/trajectory_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/data_in_use.hpp"
#include "io/durable_rename.hpp"
#include "io/hdf5.hpp"
#include "problem/metric_names.hpp"

namespace fedbench::io {

namespace {

constexpr hsize_t kChunk = 256;       // rows per chunk (deflate-compressed)
constexpr std::size_t kFlushRows = 256;

// Any failure while writing is the system refusing the write (disk full, read-only, quota):
// one WriteError with the system's reason, never a run result.
template <class Body>
void write_or_throw(Body&& body) {
  errno = 0;
  try {
    body();
  } catch (const UserError& e) {
    std::string message = e.what();
    const std::string reason = errno ? system_reason(errno) : "";
    if (!reason.empty() && message.find(reason) == std::string::npos) message += ": " + reason;
    throw WriteError(message);
  }
}

}  // namespace

struct Hdf5TrajectoryWriter::State {
  h5::Handle file, trajectory;
  std::vector<h5::Column> counters, reals;  // reals: wall_time, then every metric
  std::vector<std::vector<std::int64_t>> counter_buffer;
  std::vector<std::vector<double>> real_buffer;
  bool created = false;  // this writer made PATH.part (and so may delete it)
  bool ended = false;
};

Hdf5TrajectoryWriter::Hdf5TrajectoryWriter(std::string path, Directory::Last last) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path_).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw UserError("cannot write " + path_ + ": directory " + parent.string() +
                    " does not exist; create it first");
  if (fs::is_directory(path_, ec))
    throw UserError("cannot write " + path_ + ": it is a directory; give a file name");
  dir_ = std::make_unique<Directory>(Directory::holding(path_, last));
  dir_->check_output(name());  // before the run, not after it
}

Hdf5TrajectoryWriter::Hdf5TrajectoryWriter(Directory dir, const std::string& name)
    : path_(dir.shown(name)), dir_(std::make_unique<Directory>(std::move(dir))) {
  dir_->check_output(name);  // before the run, not after it
}

std::string Hdf5TrajectoryWriter::name() const { return std::filesystem::path(path_).filename().string(); }

Hdf5TrajectoryWriter::~Hdf5TrajectoryWriter() {
  if (state_ && !state_->ended) {  // the run died: leave nothing that looks finished
    const bool created = state_->created;
    state_.reset();
    if (created) dir_->remove(name() + ".part");  // never another process's file
  }
}

void Hdf5TrajectoryWriter::begin(const RunHeader& h) {
  write_or_throw([&] { write_header(h); });
}

void Hdf5TrajectoryWriter::write_header(const RunHeader& h) {
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.file = h5::create_file(*dir_, name() + ".part");  // new (O_EXCL): from here on the .part is ours
  s.created = true;
  const hid_t root = s.file.id();
  h5::write_attribute(root, "format", std::string(kTrajectoryFormat));
  h5::write_attribute(root, "format_version", kTrajectoryFormatVersion);
  h5::write_attribute(root, "fedbench_version", fedbench_version());
  h5::write_attribute(root, "git_commit", git_commit());
  h5::write_attribute(root, "compiler", compiler_id());
  h5::write_attribute(root, "command_line", h.command_line);
  h5::write_attribute(root, "config", h.config_text);
  if (!h.identity.empty()) h5::write_attribute(root, "identity", h.identity);
  h5::write_attribute(root, "problem", h.problem);
  h5::write_attribute(root, "solver", h.solver);
  h5::write_attribute(root, "primary_metric", h.primary_metric);
  h5::write_attribute(root, "seed", static_cast<std::uint64_t>(h.seed));
  h5::write_attribute(root, "num_clients", static_cast<std::int64_t>(h.num_clients));
  h5::write_attribute(root, "dim", static_cast<std::int64_t>(h.dim));
  h5::write_attribute(root, "dim_x", static_cast<std::int64_t>(h.dim_x));
  h5::write_attribute(root, "problem_kind", h.problem_kind);
  h5::write_attribute(root, "setup_time", h.setup_time);
  h5::write_attribute(root, "env_cpu_model", h.env.cpu_model);
  h5::write_attribute(root, "env_cores", h.env.cores);
  h5::write_attribute(root, "env_threads", h.env.threads);
  h5::write_attribute(root, "env_mpi_ranks", h.env.mpi_ranks);
  h5::write_attribute(root, "env_eigen_version", h.env.eigen_version);
  h5::write_attribute(root, "env_hdf5_version", h5::library_version());
  h5::write_attribute(root, "env_compiler", h.env.compiler);
  h5::write_attribute(root, "env_isa", h.env.isa);
  if (h.provenance.recorded)  // a copy of an older file keeps saying it was not recorded
    for (const auto& [name, value] : provenance_attributes(h.provenance)) h5::write_attribute(root, name, value);
  h5::write_attribute(root, "status", std::string("running"));
  h5::write_attribute(root, "stop_reason", std::string(""));

  h5::Handle constants = h5::create_group(root, "constants");
  for (const auto& [name, value] : h.constants) h5::write_attribute(constants.id(), name, value);
  h5::Handle docs = h5::create_group(constants.id(), "docs");
  for (const auto& [name, doc] : h.constant_docs) h5::write_attribute(docs.id(), name, doc);
  h5::Handle params = h5::create_group(root, "params");
  h5::Handle problem = h5::create_group(params.id(), "problem");
  for (const auto& [k, v] : h.problem_params) h5::write_attribute(problem.id(), k, v);
  h5::Handle solver = h5::create_group(params.id(), "solver");
  for (const auto& [k, v] : h.solver_params) h5::write_attribute(solver.id(), k, v);

  // How the data is spread: samples per client and, for labelled data, label histograms.
  h5::Handle partition = h5::create_group(root, "partition");
  h5::write_vector(partition.id(), "client_samples", h.client_samples);
  if (h.client_labels) {
    const auto& cl = *h.client_labels;
    std::vector<std::int64_t> flat;
    for (const auto& row : cl.counts) flat.insert(flat.end(), row.begin(), row.end());
    h5::write_vector(partition.id(), "label_classes", cl.classes);
    h5::write_matrix(partition.id(), "label_histogram", flat, cl.counts.size(), cl.classes.size());
  }
  partition.reset();

  s.trajectory = h5::create_group(root, "trajectory");
  std::vector<std::string> order;
  for (const auto& c : counter_columns()) {
    s.counters.emplace_back(s.trajectory.id(), c.name, h5::ElementType::int64, kChunk);
    const hid_t id = s.counters.back().id();
    const bool index = c.name == std::string("round");
    h5::write_attribute(id, "kind", std::string(index ? "index" : "counter"));
    h5::write_attribute(id, "description", std::string(c.description));
    h5::write_attribute(id, "unit", std::string(c.unit));
    order.push_back(c.name);
  }
  const std::vector<std::pair<const char*, const char*>> times{
      {"wall_time", "seconds of solver work so far, evaluation excluded"},
      {"eval_time", "seconds of metric evaluation so far, this row's included"}};
  for (const auto& [name, description] : times) {
    s.reals.emplace_back(s.trajectory.id(), name, h5::ElementType::float64, kChunk);
    h5::write_attribute(s.reals.back().id(), "kind", std::string("time"));
    h5::write_attribute(s.reals.back().id(), "description", std::string(description));
    h5::write_attribute(s.reals.back().id(), "unit", std::string("s"));
    order.push_back(name);
  }
  for (std::size_t k = 0; k < h.metric_names.size(); ++k) {
    s.reals.emplace_back(s.trajectory.id(), h.metric_names[k], h5::ElementType::float64, kChunk);
    const hid_t id = s.reals.back().id();
    h5::write_attribute(id, "kind", std::string("metric"));
    const MetricMeta meta = k < h.metric_meta.size() ? h.metric_meta[k] : MetricMeta{};
    h5::write_attribute(id, "direction", std::string(direction_name(meta.direction)));
    h5::write_attribute(id, "description", meta.description);
    h5::write_attribute(id, "unit", meta.unit);
    order.push_back(h.metric_names[k]);
  }
  h5::write_attribute(s.trajectory.id(), "columns", join(order, ","));
  // `round` indexes every other column: a dimension scale, so netCDF readers name the axis.
  std::vector<hid_t> indexed;
  for (std::size_t k = 1; k < s.counters.size(); ++k) indexed.push_back(s.counters[k].id());
  for (const auto& c : s.reals) indexed.push_back(c.id());
  h5::attach_dimension_scale(s.counters.front().id(), "round", indexed);
  s.counter_buffer.assign(s.counters.size(), {});
  s.real_buffer.assign(s.reals.size(), {});
}

void Hdf5TrajectoryWriter::row(const TrajectoryRow& r) {
  write_or_throw([&] { buffer_row(r); });
}

void Hdf5TrajectoryWriter::buffer_row(const TrajectoryRow& r) {
  State& s = *state_;
  const auto& cols = counter_columns();
  for (std::size_t k = 0; k < cols.size(); ++k) s.counter_buffer[k].push_back(cols[k].value(r));
  s.real_buffer[0].push_back(r.wall_time);
  s.real_buffer[1].push_back(r.eval_time);
  for (std::size_t k = 0; k < r.metrics.size(); ++k) s.real_buffer[k + 2].push_back(r.metrics[k]);
  if (s.counter_buffer[0].size() >= kFlushRows) flush();
}

void Hdf5TrajectoryWriter::flush() {
  State& s = *state_;
  for (std::size_t k = 0; k < s.counters.size(); ++k) {
    s.counters[k].append(s.counter_buffer[k].data(), s.counter_buffer[k].size());
    s.counter_buffer[k].clear();
  }
  for (std::size_t k = 0; k < s.reals.size(); ++k) {
    s.reals[k].append(s.real_buffer[k].data(), s.real_buffer[k].size());
    s.real_buffer[k].clear();
  }
}

void Hdf5TrajectoryWriter::end(const RunSummary& summary) {
  write_or_throw([&] { write_summary(summary); });
  State& s = *state_;
  if (H5Fclose(s.file.release()) < 0) throw WriteError("cannot write " + part_path());
  dir_->publish(name() + ".part", name());
  s.ended = true;
}

void Hdf5TrajectoryWriter::write_summary(const RunSummary& summary) {
  State& s = *state_;
  flush();
  const hid_t root = s.file.id();
  h5::write_attribute(root, "status", summary.status());
  h5::write_attribute(root, "stop_reason", to_string(summary.reason));
  h5::write_attribute(root, "message", summary.message);
  h5::write_attribute(root, "rounds", static_cast<std::int64_t>(summary.rounds));
  h5::write_attribute(root, "wall_time", summary.wall_time);
  h5::write_attribute(root, "eval_time", summary.eval_time);
  h5::write_attribute(root, "threads_at_end", static_cast<std::int64_t>(summary.threads_at_end));
  {
    h5::Handle final_group = h5::create_group(root, "final");
    h5::write_attribute(final_group.id(), "round", static_cast<std::int64_t>(summary.rounds));
    auto write = [&](const char* name, const Vec& v) {
      h5::write_vector(final_group.id(), name, std::vector<double>(v.data(), v.data() + v.size()));
    };
    write("x", summary.final_x);
    write("y", summary.final_y);
    if (summary.final_y_star) write("y_star", *summary.final_y_star);
  }
  h5::Handle clients = h5::create_group(root, "clients");
  for (int k = 0; k <= kOracleKinds; ++k) {
    std::vector<std::int64_t> v;
    for (const auto& c : summary.per_client) v.push_back(k < kOracleKinds ? c.calls[k] : c.samples);
    h5::write_vector(clients.id(), k < kOracleKinds ? std::string(kOracleKindNames[k]) : "samples",
                     v);
  }
  clients.reset();
  s.reals.clear();
  s.counters.clear();
  s.trajectory.reset();
  if (H5Fflush(root, H5F_SCOPE_GLOBAL) < 0) throw UserError("cannot write " + part_path());
}

const std::vector<double>& StoredRun::column(const std::string& name) const {
  auto it = columns.find(name);
  if (it == columns.end())
    throw UserError(path + " has no column '" + name + "'; columns: " + join(column_names, ", "));
  return it->second;
}

std::size_t StoredRun::num_rows() const {
  return columns.empty() ? 0 : columns.begin()->second.size();
}

std::string summarize_trajectory(const StoredRun& run) {
  auto text = [&](const std::string& k) {
    auto it = run.text.find(k);
    return it == run.text.end() ? std::string("?") : it->second;
  };
  auto number = [&](const std::string& k) {
    auto it = run.numbers.find(k);
    return it == run.numbers.end() ? std::string("?") : format_real(it->second);
  };
  std::ostringstream o;
  o << "file:     " << run.path << "\n"
    << "written:  fedbench " << text("fedbench_version") << " (commit " << text("git_commit")
    << ", " << text("compiler") << "), format " << number("format_version") << "\n"
    << "command:  " << text("command_line") << "\n"
    << "status:   " << text("status") << " (" << text("stop_reason") << ")";
  if (!text("message").empty() && text("message") != "?") o << ": " << text("message");
  o << "\n"
    << "rounds:   " << number("rounds") << "  solver time: " << number("wall_time") << " s"
    << "  evaluation: " << number("eval_time") << " s  set-up: " << number("setup_time") << " s\n";
  if (run.text.count("env_cpu_model"))
    o << "machine:  " << text("env_cpu_model") << ", " << number("env_cores") << " cores, "
      << number("env_threads") << " threads"
      << (number("threads_at_end") != "?" && number("threads_at_end") != number("env_threads")
              ? " (" + number("threads_at_end") + " at the end)"
              : std::string())
      << ", " << number("env_mpi_ranks") << " MPI ranks; Eigen "
      << text("env_eigen_version") << ", HDF5 " << text("env_hdf5_version")
      << (run.text.count("env_isa") ? ", " + text("env_isa") + " build" : std::string()) << "\n";
  const RunProvenance provenance = provenance_from_attributes(run.text);
  if (provenance.recorded) {
    o << "code:     numerics " << provenance.numerics << ", solver " << provenance.solver_code << ", problem "
      << provenance.problem_code << " (build-time fingerprints)\n";
    if (!provenance.solver_plugin.empty()) o << "plug-in:  solver from " << provenance.solver_plugin << "\n";
    if (!provenance.problem_plugin.empty()) o << "plug-in:  problem from " << provenance.problem_plugin << "\n";
    for (const auto& f : provenance.data)
      o << "data:     " << f.absolute << " (" << f.size << " bytes, sha256 " << f.sha256 << ")\n";
  } else {
    o << "code:     not recorded (written before fedbench recorded the code behind a run)\n";
  }
  const auto data = data_in_use(run.problem_params);
  if (data) o << "dataset:  " << data->what << "\n";
  o << "\nconfiguration:\n";
  bool problem_section = false;
  for (const auto& line : split(text("config"), '\n')) {
    if (line.empty()) continue;
    if (line[0] != ' ') problem_section = line == "problem:";
    // The default registered name stays in a file-reading run's parameters: say it is unused.
    const bool unused = problem_section && data && data->unused_dataset && line.rfind("    dataset: ", 0) == 0;
    o << "  " << line << (unused ? "  (not used: the data are the file above)" : "") << "\n";
  }
  o << "\nconstants:\n";
  for (const auto& [k, v] : run.constants) o << "  " << k << " = " << format_real(v) << "\n";
  o << "\ntrajectory: " << run.num_rows() << " rows\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-16s %16s %16s %16s\n", "column", "first", "last", "min");
  o << line;
  for (const auto& name : run.column_names) {
    const auto& c = run.columns.at(name);
    if (c.empty()) continue;
    double lo = c.front();
    for (double v : c) lo = std::fmin(lo, v);
    std::snprintf(line, sizeof line, "  %-16s %16.6g %16.6g %16.6g\n", name.c_str(), c.front(),
                  c.back(), lo);
    o << line;
  }
  return o.str();
}

}  // namespace fedbench::io
