#include "io/run_sinks.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "io/durable_rename.hpp"
#include "io/new_file.hpp"
#include "io/trajectory_file.hpp"

namespace fedbench::io {

namespace {

// RFC 4180 quoting, only where needed.
std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Json json_vector(const Vec& v) {
  Json out = Json::array();
  for (Index i = 0; i < v.size(); ++i) out.push_back(v[i]);
  return out;
}

// PATH's directory, checked to exist with the message every writer gives.
Directory directory_of(const std::string& path, Directory::Last last) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw UserError("cannot write " + path + ": directory " + parent.string() + " does not exist; create it first");
  return Directory::holding(path, last);
}

// A file sink: writes PATH.part through an inner stream sink and renames it at the end.
template <class Inner>
class FileSink : public TrajectorySink {
 public:
  FileSink(std::string path, Directory::Last last)
      : path_(std::move(path)),
        name_(std::filesystem::path(path_).filename().string()),
        part_(name_ + ".part"),
        dir_(directory_of(path_, last)) {
    dir_.check_output(name_);  // before the run, not after it
  }
  ~FileSink() override {
    if (opened_ && !done_) {  // the run died: leave nothing that looks finished
      out_->close();
      dir_.remove(part_);  // ours: never another process's
    }
  }
  void begin(const RunHeader& header) override {
    out_ = std::make_unique<NewFileStream>(dir_, part_);
    opened_ = true;
    if constexpr (std::is_same_v<Inner, CsvSink>) {
      CsvLayout layout;
      layout.add(header);
      inner_ = std::make_unique<Inner>(*out_, std::move(layout));
    } else {
      inner_ = std::make_unique<Inner>(*out_, false);
    }
    inner_->set_id(std::filesystem::path(path_).stem().string());
    inner_->begin(header);
  }
  void row(const TrajectoryRow& row) override { inner_->row(row); }
  void end(const RunSummary& summary) override {
    inner_->end(summary);
    errno = 0;
    out_->close();
    if (!*out_)
      throw WriteError("cannot write " + dir_.shown(part_) + ": " + (errno ? system_reason(errno) : "the disk is full"));
    dir_.publish(part_, name_);
    done_ = true;
  }

 private:
  std::string path_, name_, part_;
  Directory dir_;  // opened once: the .part is written and renamed in the same directory
  std::unique_ptr<NewFileStream> out_;
  std::unique_ptr<Inner> inner_;
  bool opened_ = false, done_ = false;
};

}  // namespace

OutputFormat parse_output_format(const std::string& text) {
  if (text == "h5" || text == "hdf5") return OutputFormat::hdf5;
  if (text == "csv") return OutputFormat::csv;
  if (text == "json") return OutputFormat::json;
  throw UserError("output format '" + text + "' is not one of: h5, csv, json");
}

OutputFormat output_format_of(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5" || ext == ".hdf5") return OutputFormat::hdf5;
  if (ext == ".csv") return OutputFormat::csv;
  if (ext == ".json") return OutputFormat::json;
  throw UserError("output file '" + path + "' needs the extension .h5, .csv or .json");
}

void CsvLayout::add(const RunHeader& h) {
  for (const auto& [k, v] : h.problem_params) problem_keys.insert(k);
  for (const auto& [k, v] : h.solver_params) solver_keys.insert(k);
  for (const auto& m : h.metric_names)
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
}

void CsvSink::begin(const RunHeader& h) {
  if (!header_written_) {
    out_ << "id,status,problem";
    for (const auto& k : layout_.problem_keys) out_ << ",problem." << k;
    out_ << ",solver";
    for (const auto& k : layout_.solver_keys) out_ << ",solver." << k;
    out_ << ",seed";
    for (const auto& c : counter_columns()) out_ << "," << c.name;
    out_ << ",wall_time,eval_time";
    for (const auto& m : layout_.metrics) out_ << "," << m;
    out_ << "\n";
    header_written_ = true;
  }
  prefix_ = cell(h.problem);
  for (const auto& k : layout_.problem_keys) {
    const auto it = h.problem_params.find(k);
    prefix_ += "," + (it == h.problem_params.end() ? std::string() : cell(it->second));
  }
  prefix_ += "," + cell(h.solver);
  for (const auto& k : layout_.solver_keys) {
    const auto it = h.solver_params.find(k);
    prefix_ += "," + (it == h.solver_params.end() ? std::string() : cell(it->second));
  }
  prefix_ += "," + std::to_string(h.seed);
  metric_slot_.clear();
  for (const auto& m : h.metric_names)
    metric_slot_.push_back(static_cast<int>(
        std::find(layout_.metrics.begin(), layout_.metrics.end(), m) - layout_.metrics.begin()));
  pending_.clear();
}

void CsvSink::row(const TrajectoryRow& r) {
  std::string line;
  for (const auto& c : counter_columns()) line += "," + std::to_string(c.value(r));
  line += "," + format_real(r.wall_time) + "," + format_real(r.eval_time);
  std::vector<std::string> cells(layout_.metrics.size());
  for (std::size_t k = 0; k < r.metrics.size() && k < metric_slot_.size(); ++k)
    if (metric_slot_[k] < static_cast<int>(cells.size())) cells[metric_slot_[k]] = format_real(r.metrics[k]);
  for (const auto& c : cells) line += "," + c;
  pending_.push_back(std::move(line));
}

void CsvSink::end(const RunSummary& summary) {
  for (const auto& line : pending_) {
    out_ << cell(id_) << "," << summary.status() << "," << prefix_ << line << "\n";
    ++rows_;
  }
  pending_.clear();
}

// The run is written as it comes, each part through the JSON library and the object around
// them by hand: memory does not grow with the rows (a run may record 10^6 of them).
void JsonSink::begin(const RunHeader& h) {
  metric_names_ = h.metric_names;
  Json metrics = Json::object();
  for (std::size_t k = 0; k < h.metric_names.size(); ++k) {
    const MetricMeta& m = k < h.metric_meta.size() ? h.metric_meta[k] : MetricMeta{};
    metrics[h.metric_names[k]] = {{"direction", direction_name(m.direction)}, {"description", m.description},
                                  {"unit", m.unit}};
  }
  const Json header = {{"problem", h.problem},
                       {"solver", h.solver},
                       {"seed", h.seed},
                       {"problem_kind", h.problem_kind},
                       {"problem_params", h.problem_params},
                       {"solver_params", h.solver_params},
                       {"constants", h.constants},
                       {"primary_metric", h.primary_metric},
                       {"metrics", metrics},
                       {"num_clients", h.num_clients},
                       {"dim", h.dim},
                       {"dim_x", h.dim_x},
                       {"setup_time", h.setup_time},
                       {"command_line", h.command_line}};
  if (array_) out_ << (first_run_ ? "[\n" : ",\n");
  first_run_ = false;
  first_row_ = true;
  out_ << "{\"id\":" << json_text(id_) << ",\n\"header\":" << json_text(header) << ",\n\"rows\":[";
}

void JsonSink::row(const TrajectoryRow& r) {
  Json row = Json::object();
  for (const auto& c : counter_columns()) row[c.name] = c.value(r);
  row["wall_time"] = r.wall_time;
  row["eval_time"] = r.eval_time;
  for (std::size_t k = 0; k < r.metrics.size() && k < metric_names_.size(); ++k)
    row[metric_names_[k]] = r.metrics[k];
  out_ << (first_row_ ? "\n" : ",\n") << json_text(row);
  first_row_ = false;
}

void JsonSink::end(const RunSummary& s) {
  Json final_iterate = {{"x", json_vector(s.final_x)}, {"y", json_vector(s.final_y)}};
  if (s.final_y_star) final_iterate["y_star"] = json_vector(*s.final_y_star);
  const Json summary = {{"status", s.status()},       {"stop_reason", to_string(s.reason)},
                        {"message", s.message},       {"rounds", s.rounds},
                        {"wall_time", s.wall_time},   {"eval_time", s.eval_time},
                        {"final", final_iterate}};
  out_ << "],\n\"summary\":" << json_text(summary) << "}";
  if (!array_) out_ << "\n";
}

void JsonSink::close() {
  if (closed_ || !array_) return;
  out_ << (first_run_ ? "[]\n" : "\n]\n");
  closed_ = true;
}

std::unique_ptr<TrajectorySink> make_file_sink(OutputFormat format, const std::string& path,
                                               Directory::Last last) {
  switch (format) {
    case OutputFormat::hdf5: return std::make_unique<Hdf5TrajectoryWriter>(path, last);
    case OutputFormat::csv: return std::make_unique<FileSink<CsvSink>>(path, last);
    case OutputFormat::json: return std::make_unique<FileSink<JsonSink>>(path, last);
  }
  throw InternalError("unknown output format");
}

}  // namespace fedbench::io
