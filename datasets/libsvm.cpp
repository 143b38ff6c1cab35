#include "datasets/libsvm.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>

#include "core/data_provenance.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "datasets/compressed_file.hpp"

namespace fedbench::datasets {

namespace {

[[noreturn]] void fail_at(const std::string& path, long line, const std::string& what) {
  throw UserError(path + ":" + std::to_string(line) + ": " + what);
}

// The offending token, at most 40 bytes of it, quoted (core/text.hpp's printable). Built by
// appending: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...) chains.
std::string quoted(std::string_view text) {
  std::string out;
  out += '\'';
  out += printable(text);
  out += '\'';
  return out;
}

bool parse_double(std::string_view s, double& out) {
  // from_chars accepts neither '+' nor leading spaces.
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

struct Parser {
  const std::string& path;
  const LabelEncoding& encoding;
  LibsvmData& data;
  long line_no = 0;

  double map_label(std::string_view text) const {
    double label = 0;
    if (!parse_double(text, label)) fail_at(path, line_no, "label " + quoted(text) + " is not a number");
    if (encoding.empty()) return label;
    for (std::size_t k = 0; k < encoding.raw.size(); ++k)
      if (encoding.raw[k] == label) return encoding.mapped[k];
    fail_at(path, line_no, "label " + quoted(text) + " is not one of the dataset's labels (" +
                               encoding.describe() + ")");
  }

  void line(std::string_view rest) {
    // A NUL would split tokens where the text shows none: name it, with its column.
    if (const auto nul = rest.find('\0'); nul != std::string_view::npos)
      fail_at(path, line_no, "byte 0x00 (NUL) at column " + std::to_string(nul + 1) +
                                 "; a LIBSVM file is text");
    auto next_token = [&rest]() {
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      std::size_t end = 0;
      while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t') ++end;
      std::string_view tok = rest.substr(0, end);
      rest.remove_prefix(end);
      return tok;
    };
    data.labels.push_back(map_label(next_token()));
    long last = 0;
    for (std::string_view tok = next_token(); !tok.empty(); tok = next_token()) {
      const std::size_t colon = tok.find(':');
      long index = 0;
      double value = 0;
      if (colon == std::string_view::npos ||
          std::from_chars(tok.data(), tok.data() + colon, index).ptr != tok.data() + colon ||
          !parse_double(tok.substr(colon + 1), value))
        fail_at(path, line_no, quoted(tok) + " is not of the form index:value");
      if (index <= last)
        fail_at(path, line_no, "feature index " + std::to_string(index) +
                                   " is not above the previous one (indices are 1-based, increasing)");
      if (index > kMaxFeatureIndex)
        fail_at(path, line_no, "feature index " + std::to_string(index) + " is past the limit of " +
                                   std::to_string(kMaxFeatureIndex) + " features");
      last = index;
      data.X.col.push_back(static_cast<std::int32_t>(index - 1));
      data.X.val.push_back(value);
    }
    if (data.X.val.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      fail_at(path, line_no, "more than 2^31 nonzeros; split the file");
    if (last > data.max_index) {
      data.max_index = static_cast<int>(last);
      data.max_index_line = line_no;
    }
    data.X.row_start.push_back(static_cast<std::int32_t>(data.X.val.size()));
    ++data.X.rows;
  }
};

}  // namespace

std::string LabelEncoding::describe() const {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < raw.size(); ++k)
    parts.push_back(format_real(raw[k]) + " -> " + format_real(mapped[k]));
  return join(parts, ", ");
}

LibsvmData read_libsvm(const std::string& path, int num_features, const LabelEncoding& encoding) {
  require_regular_data_file(path, "dataset");
  note_data_file(path);  // the run records which bytes it was computed from
  CompressedFile file(path);
  if (!file.is_open())
    throw UserError("cannot open dataset " + path + ": " + std::strerror(errno) +
                    " (LIBSVM files are in ../shared/datasets/libsvm/)");
  LibsvmData data;
  data.path = path;
  Parser parser{path, encoding, data};
  auto take_line = [&](std::string_view line) {
    ++parser.line_no;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank line
    parser.line(line);
  };
  // Blocks split at '\n' by hand (not line by line): a NUL byte inside a line stays visible.
  std::string pending;
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const long n = file.read(buffer.data(), buffer.size());
    if (n < 0) fail_at(path, parser.line_no + 1, "cannot read: " + file.error());
    if (n == 0) break;
    pending.append(buffer.data(), static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      take_line(std::string_view(pending).substr(start, end - start));
    pending.erase(0, start);
  }
  if (!pending.empty()) take_line(pending);  // a last line without '\n'
  if (data.X.rows == 0) throw UserError(path + ": no data rows (is this a LIBSVM file?)");
  if (num_features > 0 && num_features < data.max_index)
    throw UserError(path + ": has feature index " + std::to_string(data.max_index) +
                    " but the dataset has " + std::to_string(num_features) + " features");
  data.X.cols = num_features > 0 ? num_features : data.max_index;
  // The arrays grew by doubling: give back the slack (a quarter of a9a's 5.4 MB on average),
  // since the data lives as long as every run on it.
  data.X.row_start.shrink_to_fit();
  data.X.col.shrink_to_fit();
  data.X.val.shrink_to_fit();
  data.labels.shrink_to_fit();
  return data;
}

Mat CsrMatrix::dense() const { return Mat(view()); }

Mat LibsvmData::dense(int num_features) const {
  if (num_features < max_index)
    throw UserError(path + ": has feature index " + std::to_string(max_index) + " but only " +
                    std::to_string(num_features) + " features were asked for; use at least " +
                    std::to_string(max_index));
  Mat out = Mat::Zero(num_rows(), num_features);
  for (Index r = 0; r < X.rows; ++r)
    for (std::int32_t k = X.row_start[r]; k < X.row_start[r + 1]; ++k) out(r, X.col[k]) = X.val[k];
  return out;
}

}  // namespace fedbench::datasets
