#include "datasets/registry.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/data_provenance.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"
#include "datasets/idx.hpp"

namespace fedbench::datasets {

namespace {

const char* kLibsvmPage = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/";
const char* kLibsvmCitation =
    "C.-C. Chang and C.-J. Lin, LIBSVM: a library for support vector machines, ACM TIST 2(3), 2011";

LabelEncoding binary(double negative, double positive) { return {{negative, positive}, {-1, 1}}; }
LabelEncoding classes(int first, int count) {
  LabelEncoding e;
  for (int k = 0; k < count; ++k) {
    e.raw.push_back(first + k);
    e.mapped.push_back(k);
  }
  return e;
}

DatasetInfo libsvm(std::string name, int features, int n_classes, LabelEncoding labels,
                   std::vector<DatasetFile> files, std::string source) {
  DatasetInfo d;
  d.name = std::move(name);
  d.format = "libsvm";
  d.features = features;
  d.classes = n_classes;
  d.labels = std::move(labels);
  d.files = std::move(files);
  d.source = std::move(source);
  d.citation = kLibsvmCitation;
  d.obtain = std::string("download from ") + kLibsvmPage +
             " into libsvm/ of a search-path directory (fedbench data list), e.g. "
             "~/.local/share/fedbench/datasets/libsvm/";
  return d;
}

std::vector<DatasetInfo> build_registry() {
  std::vector<DatasetInfo> r;
  // Checksums and counts: ../shared/datasets/libsvm/MANIFEST.md and SHA256SUMS.
  r.push_back(libsvm("a9a", 123, 2, binary(-1, 1),
                     {{"train", "libsvm/a9a", "f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906", 32561},
                      {"test", "libsvm/a9a.t", "1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9", 16281}},
                     "UCI Adult, preprocessed by J. C. Platt (1998)"));
  r.push_back(libsvm("a1a", 123, 2, binary(-1, 1),
                     {{"train", "libsvm/a1a", "eb54c45f1bdb51286f803dd092eb8202b44637a858fc6c4e533a2d64a0d94b4e", 1605},
                      {"test", "libsvm/a1a.t", "0212d0c4a3996fe6fb6a0ab54033d9f4fa4b60369b6e3bb141821d9ffc40c04d", 30956}},
                     "UCI Adult, preprocessed by J. C. Platt (1998)"));
  r.push_back(libsvm("w8a", 300, 2, binary(-1, 1),
                     {{"train", "libsvm/w8a", "6a9fa8fd5f524303240a5db07d4b3d4a51e8b7b4b20a914105d8e3e8c81640f2", 49749},
                      {"test", "libsvm/w8a.t", "618929ecb01bebb841daec4cae4aa07b97832d29b08652452775598929547fde", 14951}},
                     "web data, preprocessed by J. C. Platt (1998)"));
  r.push_back(libsvm("mushrooms", 112, 2, binary(1, 2),
                     {{"train", "libsvm/mushrooms", "f39a4eb628dc61a7d43760815b061c9e497aa728ce1ad8bde57a09ef6043b538", 8124}},
                     "UCI mushrooms"));
  r.push_back(libsvm("heart", 13, 2, binary(-1, 1),
                     {{"train", "libsvm/heart_scale", "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9", 270}},
                     "UCI Statlog heart, scaled"));
  r.push_back(libsvm("australian", 14, 2, binary(-1, 1),
                     {{"train", "libsvm/australian", "e11b85d6265a6cc8d07e3200fc04557009e6e2407331ea8d7910eddf199c2d1a", 690}},
                     "UCI Statlog Australian credit (unscaled)"));
  r.push_back(libsvm("breast-cancer", 10, 2, binary(2, 4),
                     {{"train", "libsvm/breast-cancer_scale", "3c90cd8f884810a0ff2eaf2cc7aabf09073f33c2dfcf113d826a13ca60b257ad", 683}},
                     "UCI breast cancer Wisconsin (Wolberg and Mangasarian 1990), scaled"));
  r.push_back(libsvm("ijcnn1", 22, 2, binary(-1, 1),
                     {{"train", "libsvm/ijcnn1", "", 35000},
                      {"test", "libsvm/ijcnn1.t", "", 91701},
                      {"validation", "libsvm/ijcnn1.val", "87b64ee77f4e0cb0d04e93ec7c292a669a8ad9f4ccfd85034bfef4810526b34a", 14990}},
                     "IJCNN 2001 challenge (D. Prokhorov)"));
  r.push_back(libsvm("letter", 16, 26, classes(1, 26),
                     {{"train", "libsvm/letter.scale", "ce2c7df15cc5742dc4382d59079181c97c21e0beaa0af53c84cc5745c69f1020", 15000},
                      {"test", "libsvm/letter.scale.t", "07522ccbf54187fae6d560d1712b88c41ea1f7e8d19491c5adcc22ee37a075da", 5000},
                      {"train-part", "libsvm/letter.scale.tr", "701e46fa614770d41849b5df32268515df49559463887d50f00d6e1aeeaee7b9", 10500},
                      {"validation", "libsvm/letter.scale.val", "41ba072c4aff700179b1e2686b3a5ae60e9239dba7c337babd2586ff4ad9eeaa", 4500}},
                     "Statlog letter, scaled (Hsu and Lin 2002)"));
  r.push_back(libsvm("pendigits", 16, 10, classes(0, 10),
                     {{"train", "libsvm/pendigits", "6e8a2f318a24d97d26a9c381642621dc955fed73ec44c4d417bd7afbb47ed67c", 7494},
                      {"test", "libsvm/pendigits.t", "5ddb2f034e1c5ca8a47b8a7e78510f8a9d68015cf40a5031534c693fba9773d3", 3498}},
                     "UCI pen digits (Alimoglu and Alpaydin 1996)"));
  r.push_back(libsvm("dna", 180, 3, classes(1, 3),
                     {{"train", "libsvm/dna.scale", "03d39477c5e48415e9cd18e006efc8f7a3b5c3deaee8289a72511c35070e3cfe", 2000},
                      {"test", "libsvm/dna.scale.t", "d2eeed170e4e38ae2aba6aa4cd27a8ca4ecceb01a7751e8e509bb4e1a6bcef39", 1186}},
                     "Statlog DNA, scaled (Hsu and Lin 2002)"));
  r.push_back(libsvm("satimage", 36, 6, classes(1, 6),
                     {{"train", "libsvm/satimage.scale", "b7150252d3117712588d9d5dfeb1a409234340313a93b458f66449a2678d5542", 4435},
                      {"test", "libsvm/satimage.scale.t", "da3fb85baadd087beb9e8b32931224c443e26dc3305c09396170ab8997aedf92", 2000}},
                     "Statlog satellite image, scaled (Hsu and Lin 2002)"));
  r.push_back(libsvm("covtype", 54, 2, binary(1, 2), {{"train", "libsvm/covtype.libsvm.binary", "", 581012}},
                     "UCI forest cover type (binary)"));
  r.push_back(libsvm("phishing", 68, 2, binary(0, 1), {{"train", "libsvm/phishing", "", 11055}},
                     "UCI phishing websites"));
  {
    DatasetInfo m;
    m.name = "mnist-t10k";
    m.format = "idx";
    m.features = 784;
    m.classes = 10;
    m.labels = classes(0, 10);
    m.files = {{"images", "mnist-t10k/t10k-images-idx3-ubyte.gz", "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", 10000},
               {"labels", "mnist-t10k/t10k-labels-idx1-ubyte.gz", "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", 10000}};
    m.source = "MNIST test set, LeCun's originals";
    m.citation = "Y. LeCun, L. Bottou, Y. Bengio, P. Haffner, Proc. IEEE 86(11), 1998";
    m.obtain = "the 10000-image test set (t10k-*-ubyte.gz) goes in mnist-t10k/ of a search-path "
               "directory (fedbench data list)";
    r.push_back(m);
    DatasetInfo f = m;
    f.name = "fashion-mnist";
    f.files = {{"train-images", "fashion-mnist/train-images-idx3-ubyte.gz", "", 60000},
               {"train-labels", "fashion-mnist/train-labels-idx1-ubyte.gz", "", 60000},
               {"test-images", "fashion-mnist/t10k-images-idx3-ubyte.gz", "", 10000},
               {"test-labels", "fashion-mnist/t10k-labels-idx1-ubyte.gz", "", 10000}};
    f.source = "Zalando Fashion-MNIST";
    f.citation = "H. Xiao, K. Rasul, R. Vollgraf, arXiv:1708.07747, 2017";
    f.obtain = "apt-get install dataset-fashion-mnist (files under /usr/share/datasets/fashion-mnist/)";
    r.push_back(f);
  }
  return r;
}

std::string cache_file() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/fedbench/verified.tsv";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/fedbench/verified.tsv";
  return {};
}

// "path size mtime sha" lines of files that matched their checksum before.
std::string fingerprint(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  return path + "\t" + std::to_string(st.st_size) + "\t" + std::to_string(st.st_mtim.tv_sec) +
         "." + std::to_string(st.st_mtim.tv_nsec);
}

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

const std::vector<DatasetInfo>& dataset_registry() {
  static const std::vector<DatasetInfo> registry = build_registry();
  return registry;
}

const DatasetInfo& dataset_info(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& d : dataset_registry()) {
    if (d.name == name) return d;
    names.push_back(d.name);
  }
  throw UserError("unknown dataset '" + name + "'; valid: " + join(names, ", ") +
                  did_you_mean(name, names));
}

std::optional<std::string> find_file(const DatasetFile& f) {
  std::error_code ec;
  for (const auto& dir : data_search_path()) {
    const std::string p = dir + "/" + f.relative;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

std::string require_file(const DatasetInfo& d, const std::string& role) {
  std::vector<std::string> roles;
  for (const auto& f : d.files) {
    roles.push_back(f.role);
    if (f.role != role) continue;
    if (auto p = find_file(f)) {
      if (verify_file(f, *p) == Verification::mismatch)
        throw UserError("dataset " + d.name + ": " + *p + " does not match its published sha256 " +
                        f.sha256 + "; replace the file (" + d.obtain + ")");
      return *p;
    }
    throw UserError("dataset " + d.name + " (" + role + "): " + f.relative + " not found in " +
                    join(data_search_path(), ", ") + "; " + d.obtain);
  }
  throw UserError("dataset " + d.name + " has no file '" + role + "'; roles: " + join(roles, ", "));
}

Verification verify_file(const DatasetFile& f, const std::string& full_path) {
  if (f.sha256.empty()) return Verification::no_checksum;
  const std::string path = std::filesystem::absolute(full_path).string();
  const std::string print = fingerprint(path);
  const std::string cache = cache_file();
  std::lock_guard<std::mutex> lock(cache_mutex());
  if (!cache.empty()) {
    std::ifstream in(cache);
    for (std::string line; std::getline(in, line);)
      if (line == print + "\t" + f.sha256) {
        remember_registry_file(path, f.sha256);  // the run's record of it needs no second pass
        return Verification::cached_ok;
      }
  }
  if (sha256_file(path) != f.sha256) return Verification::mismatch;
  remember_registry_file(path, f.sha256);
  if (!cache.empty()) {  // remember; a cache we cannot write only costs a recomputation
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(cache).parent_path(), ec);
    std::ofstream(cache, std::ios::app) << print << "\t" << f.sha256 << "\n";
  }
  return Verification::ok;
}

LibsvmData load_libsvm(const std::string& name, const std::string& role) {
  const DatasetInfo& d = dataset_info(name);
  if (d.format != "libsvm") throw UserError("dataset " + name + " is not a LIBSVM dataset");
  return read_libsvm(require_file(d, role), d.features, d.labels);
}

LabeledData load_data(const std::string& name, const std::string& role) {
  const DatasetInfo& d = dataset_info(name);
  LabeledData out;
  out.classes = d.classes;
  if (d.format == "libsvm") {
    LibsvmData data = load_libsvm(name, role);
    out.X = std::move(data.X);
    out.labels = std::move(data.labels);
    return out;
  }
  const bool paired_roles = std::any_of(d.files.begin(), d.files.end(), [&](const DatasetFile& f) {
    return f.role == role + "-images";
  });
  const std::string images = paired_roles ? role + "-images" : "images";
  const std::string labels = paired_roles ? role + "-labels" : "labels";
  if (!paired_roles && role != "train")
    throw UserError("dataset " + name + " has no " + role + " images");
  const ImageData img = read_idx_images(require_file(d, images), require_file(d, labels));
  out.X.rows = img.X.rows();
  out.X.cols = img.X.cols();
  for (Index r = 0; r < img.X.rows(); ++r) {
    for (Index c = 0; c < img.X.cols(); ++c)
      if (img.X(r, c) != 0) {
        out.X.col.push_back(static_cast<std::int32_t>(c));
        out.X.val.push_back(img.X(r, c));
      }
    out.X.row_start.push_back(static_cast<std::int32_t>(out.X.val.size()));
  }
  out.labels = img.labels;
  return out;
}

}  // namespace fedbench::datasets
