#include "io/instance_file.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/hdf5.hpp"

namespace fedbench::io {
namespace {

class Hdf5InstanceWriter : public InstanceWriter {
 public:
  explicit Hdf5InstanceWriter(hid_t root) : root_(root) {}

  void matrix(const std::string& path, const Mat& m, const std::string& meaning) override {
    std::vector<double> row_major(static_cast<std::size_t>(m.size()));
    for (Index i = 0; i < m.rows(); ++i)
      for (Index j = 0; j < m.cols(); ++j) row_major[static_cast<std::size_t>(i * m.cols() + j)] = m(i, j);
    auto [group, leaf] = locate(path);
    h5::write_matrix(group, leaf, row_major, static_cast<hsize_t>(m.rows()), static_cast<hsize_t>(m.cols()));
    annotate(group, leaf, meaning);
  }
  void vector(const std::string& path, const Vec& v, const std::string& meaning) override {
    auto [group, leaf] = locate(path);
    h5::write_vector(group, leaf, std::vector<double>(v.data(), v.data() + v.size()));
    annotate(group, leaf, meaning);
  }
  void indices(const std::string& path, const std::vector<Index>& v, const std::string& meaning) override {
    auto [group, leaf] = locate(path);
    h5::write_vector(group, leaf, std::vector<std::int64_t>(v.begin(), v.end()));
    annotate(group, leaf, meaning);
  }
  void csr(const std::string& path, Index rows, Index cols, const std::vector<std::int32_t>& indptr,
           const std::vector<std::int32_t>& indices, const std::vector<double>& data,
           const std::string& meaning) override {
    auto [parent, leaf] = locate(path);
    h5::Handle g = h5::create_group(parent, leaf);
    h5::write_vector(g.id(), "indptr", std::vector<std::int64_t>(indptr.begin(), indptr.end()));
    h5::write_vector(g.id(), "indices", std::vector<std::int64_t>(indices.begin(), indices.end()));
    h5::write_vector(g.id(), "data", data);
    h5::write_attribute(g.id(), "shape", std::vector<std::int64_t>{rows, cols});
    h5::write_attribute(g.id(), "rows", static_cast<std::int64_t>(rows));
    h5::write_attribute(g.id(), "cols", static_cast<std::int64_t>(cols));
    h5::write_attribute(g.id(), "meaning", meaning);
  }
  void scalar(const std::string& path, double value, const std::string& meaning) override {
    auto [group, leaf] = locate(path);
    h5::write_vector(group, leaf, std::vector<double>{value});
    annotate(group, leaf, meaning);
  }
  void text(const std::string& path, const std::string& value, const std::string& meaning) override {
    auto [group, leaf] = locate(path);
    h5::write_attribute(group, leaf, value);
    if (!meaning.empty()) h5::write_attribute(group, leaf + "_meaning", meaning);
  }

 private:
  // The group holding `path`'s last component, created on first use.
  std::pair<hid_t, std::string> locate(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return {root_, path};
    const std::string dir = path.substr(0, slash);
    auto it = groups_.find(dir);
    if (it == groups_.end()) {
      const auto [parent, leaf] = locate(dir);
      h5::Handle g = h5::has_link(parent, leaf) ? h5::open_group(parent, leaf) : h5::create_group(parent, leaf);
      it = groups_.emplace(dir, std::move(g)).first;
    }
    return {it->second.id(), path.substr(slash + 1)};
  }
  static void annotate(hid_t group, const std::string& leaf, const std::string& meaning) {
    h5::Handle ds(H5Dopen2(group, leaf.c_str(), H5P_DEFAULT), H5Dclose);
    if (ds && !meaning.empty()) h5::write_attribute(ds.id(), "meaning", meaning);
  }

  hid_t root_;
  std::map<std::string, h5::Handle> groups_;
};

}  // namespace

void write_instance_file(const Problem& problem, const std::string& name,
                         const ParamMap& canonical_params, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw UserError("cannot write " + path + ": directory " + parent.string() +
                    " does not exist; create it first");
  // One directory handle from creation to rename; an output that is not a regular file (a
  // device, a link) is refused before anything is written.
  const Directory where = Directory::holding(path);
  const std::string file_name = fs::path(path).filename().string(), part = file_name + ".part";
  where.check_output(file_name);
  {
    h5::Handle file = h5::create_file(where, part);
    const hid_t root = file.id();
    h5::write_attribute(root, "format", std::string(kInstanceFormat));
    h5::write_attribute(root, "format_version", kInstanceFormatVersion);
    h5::write_attribute(root, "fedbench_version", fedbench_version());
    h5::write_attribute(root, "git_commit", git_commit());
    h5::write_attribute(root, "problem", name);
    h5::write_attribute(root, "problem_kind", std::string(kind_name(problem.kind())));
    h5::write_attribute(root, "problem_class", problem.problem_class());
    h5::write_attribute(root, "num_clients", static_cast<std::int64_t>(problem.num_clients()));
    h5::write_attribute(root, "dim_x", static_cast<std::int64_t>(problem.dim_x()));
    h5::write_attribute(root, "dim_y", static_cast<std::int64_t>(problem.dim_y()));
    {
      h5::Handle params = h5::create_group(root, "params");
      for (const auto& [k, v] : canonical_params) h5::write_attribute(params.id(), k, v);
      h5::Handle constants = h5::create_group(root, "constants");
      for (const auto& [k, v] : problem.constants().values()) h5::write_attribute(constants.id(), k, v);
      h5::Handle docs = h5::create_group(constants.id(), "docs");
      for (const auto& [k, v] : problem.constants().docs()) h5::write_attribute(docs.id(), k, v);
    }
    std::vector<std::int64_t> samples;
    for (int i = 0; i < problem.num_clients(); ++i) samples.push_back(problem.num_samples(i));
    h5::write_vector(root, "client_samples", samples);
    const Vec z0 = problem.initial_point();
    h5::write_vector(root, "initial_point", std::vector<double>(z0.data(), z0.data() + z0.size()));
    if (const auto z = problem.reference_solution())
      h5::write_vector(root, "solution", std::vector<double>(z->data(), z->data() + z->size()));
    h5::Handle data = h5::create_group(root, "data");
    Hdf5InstanceWriter writer(data.id());
    problem.write_instance(writer);
  }
  where.publish(part, file_name);
}

}  // namespace fedbench::io
