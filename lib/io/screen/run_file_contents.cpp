#include "io/screen/run_file_contents.hpp"

#include <cstdint>
#include <cstring>

#include "core/error.hpp"

namespace fedbench::io {

namespace {

// Length-prefixed fields in a fixed order; numbers in this machine's byte order (both ends
// are the same binary).
class Encoder {
 public:
  void size(std::size_t n) { raw(static_cast<std::uint64_t>(n)); }
  void text(const std::string& s) {
    size(s.size());
    out_.append(s);
  }
  void number(double v) { raw(v); }
  void numbers(const double* v, std::size_t n) {
    size(n);
    out_.append(reinterpret_cast<const char*>(v), n * sizeof(double));
  }
  void numbers(const std::vector<double>& v) { numbers(v.data(), v.size()); }
  void texts(const std::map<std::string, std::string>& m) {
    size(m.size());
    for (const auto& [k, v] : m) text(k), text(v);
  }
  void reals(const std::map<std::string, double>& m) {
    size(m.size());
    for (const auto& [k, v] : m) text(k), number(v);
  }
  void columns(const std::map<std::string, std::vector<double>>& m) {
    size(m.size());
    for (const auto& [k, v] : m) text(k), numbers(v);
  }
  std::string take() { return std::move(out_); }

 private:
  template <class T>
  void raw(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  std::string out_;
};

class Decoder {
 public:
  Decoder(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  std::size_t size() {
    const auto n = raw<std::uint64_t>();
    if (n > bytes_.size() - at_) fail();  // every counted item takes at least a byte
    return static_cast<std::size_t>(n);
  }
  std::string text() {
    const std::size_t n = size();
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  double number() { return raw<double>(); }
  std::vector<double> numbers() {
    const std::size_t n = size();
    if (n > (bytes_.size() - at_) / sizeof(double)) fail();
    std::vector<double> v(n);
    if (n) std::memcpy(v.data(), bytes_.data() + at_, n * sizeof(double));
    at_ += n * sizeof(double);
    return v;
  }
  std::map<std::string, std::string> texts() {
    std::map<std::string, std::string> m;
    for (std::size_t i = size(); i > 0; --i) {
      std::string k = text();
      m[k] = text();
    }
    return m;
  }
  std::map<std::string, double> reals() {
    std::map<std::string, double> m;
    for (std::size_t i = size(); i > 0; --i) {
      std::string k = text();
      m[k] = number();
    }
    return m;
  }
  std::map<std::string, std::vector<double>> columns() {
    std::map<std::string, std::vector<double>> m;
    for (std::size_t i = size(); i > 0; --i) {
      std::string k = text();
      m[k] = numbers();
    }
    return m;
  }
  void finish() const {
    if (at_ != bytes_.size()) fail();
  }

 private:
  template <class T>
  T raw() {
    if (bytes_.size() - at_ < sizeof(T)) fail();
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  [[noreturn]] void fail() const {
    throw UserError(path_ + ": the run-file screen sent a malformed answer");
  }
  const std::string& bytes_;
  const std::string& path_;
  std::size_t at_ = 0;
};

Vec to_vec(const std::vector<double>& v) {
  return Vec(Eigen::Map<const Vec>(v.data(), static_cast<Index>(v.size())));
}

}  // namespace

std::string encode_run_file_contents(const RunFileContents& c) {
  Encoder e;
  const StoredRun& r = c.run;
  e.text(r.path);
  e.texts(r.text);
  e.reals(r.numbers);
  e.reals(r.constants);
  e.texts(r.problem_params);
  e.texts(r.solver_params);
  e.size(r.column_names.size());
  for (const auto& name : r.column_names) e.text(name);
  e.columns(r.columns);
  e.columns(r.per_client);
  e.size(c.meta.size());
  for (const auto& [name, m] : c.meta) e.text(name), e.text(std::string(direction_name(m.direction))), e.text(m.description), e.text(m.unit);
  const RunSummary& s = r.record.summary;
  e.numbers(s.final_x.data(), static_cast<std::size_t>(s.final_x.size()));
  e.numbers(s.final_y.data(), static_cast<std::size_t>(s.final_y.size()));
  e.size(s.final_y_star ? 1 : 0);
  if (s.final_y_star) e.numbers(s.final_y_star->data(), static_cast<std::size_t>(s.final_y_star->size()));
  return e.take();
}

RunFileContents decode_run_file_contents(const std::string& bytes, const std::string& path) {
  Decoder d(bytes, path);
  RunFileContents c;
  StoredRun& r = c.run;
  r.path = d.text();
  r.text = d.texts();
  r.numbers = d.reals();
  r.constants = d.reals();
  r.problem_params = d.texts();
  r.solver_params = d.texts();
  for (std::size_t i = d.size(); i > 0; --i) r.column_names.push_back(d.text());
  r.columns = d.columns();
  r.per_client = d.columns();
  for (std::size_t i = d.size(); i > 0; --i) {
    std::string name = d.text();
    MetricMeta m;
    const auto direction = parse_direction(d.text());
    if (!direction) throw UserError(path + ": the run-file screen sent a metric direction other than min or max");
    m.direction = *direction;
    m.description = d.text();
    m.unit = d.text();
    c.meta[name] = std::move(m);
  }
  RunSummary& s = r.record.summary;
  s.final_x = to_vec(d.numbers());
  s.final_y = to_vec(d.numbers());
  if (d.size() == 1) s.final_y_star = to_vec(d.numbers());
  d.finish();
  return c;
}

}  // namespace fedbench::io
