#include "datasets/libsvm.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace fedbench::datasets {

namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

[[noreturn]] void fail_at(const std::string& path, long line, const std::string& what) {
  throw UserError(path + ":" + std::to_string(line) + ": " + what);
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...) chains.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out.append(text);
  out += '\'';
  return out;
}

bool parse_double(std::string_view s, double& out) {
  // from_chars for double is in libstdc++ 11+; it accepts neither '+' nor leading spaces.
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

void parse_line(const std::string& path, long line_no, std::string_view line, LibsvmData& data) {
  auto next_token = [&line]() {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::size_t end = 0;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    std::string_view tok = line.substr(0, end);
    line.remove_prefix(end);
    return tok;
  };
  std::string_view label_text = next_token();
  double label = 0;
  if (!parse_double(label_text, label))
    fail_at(path, line_no, "label " + quoted(label_text) + " is not a number");
  std::vector<SparseEntry> row;
  int last = 0;
  for (std::string_view tok = next_token(); !tok.empty(); tok = next_token()) {
    const std::size_t colon = tok.find(':');
    int index = 0;
    double value = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(tok.data(), tok.data() + colon, index).ptr != tok.data() + colon ||
        !parse_double(tok.substr(colon + 1), value))
      fail_at(path, line_no, quoted(tok) + " is not of the form index:value");
    if (index <= last)
      fail_at(path, line_no, "feature index " + std::to_string(index) +
                                 " is not above the previous one (indices are 1-based, increasing)");
    last = index;
    row.push_back({index - 1, value});
  }
  data.max_index = std::max(data.max_index, last);
  data.labels.push_back(label);
  data.rows.push_back(std::move(row));
}

}  // namespace

LibsvmData read_libsvm(const std::string& path) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file)
    throw UserError("cannot open dataset " + path + ": " + std::strerror(errno) +
                    " (LIBSVM files are in ../shared/datasets/libsvm/)");
  LibsvmData data;
  data.path = path;
  std::string line;
  char buffer[1 << 16];
  long line_no = 0;
  bool more = true;
  while (more) {
    line.clear();
    // gzgets returns at most sizeof(buffer)-1 chars; keep reading until the newline.
    for (;;) {
      if (!gzgets(file.get(), buffer, sizeof buffer)) {
        int err = 0;
        const char* msg = gzerror(file.get(), &err);
        if (err != Z_OK && err != Z_STREAM_END) fail_at(path, line_no + 1, msg);
        more = false;
        break;
      }
      line += buffer;
      if (!line.empty() && line.back() == '\n') break;
    }
    if (line.empty()) break;
    ++line_no;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank line
    parse_line(path, line_no, line, data);
  }
  if (data.rows.empty()) throw UserError(path + ": no data rows (is this a LIBSVM file?)");
  return data;
}

Mat LibsvmData::dense(int num_features) const {
  if (num_features < max_index)
    throw UserError(path + ": has feature index " + std::to_string(max_index) + " but only " +
                    std::to_string(num_features) + " features were asked for; use at least " +
                    std::to_string(max_index));
  Mat X = Mat::Zero(num_rows(), num_features);
  for (Index r = 0; r < num_rows(); ++r)
    for (const SparseEntry& e : rows[r]) X(r, e.index) = e.value;
  return X;
}

}  // namespace fedbench::datasets
