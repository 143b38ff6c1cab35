// `fedbench data list | get NAME... | verify [NAME...] | partition NAME --clients M --scheme S --seed K`.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>

#include "checked_options.hpp"
#include "commands.hpp"
#include "data_get.hpp"
#include "data_sources.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "datasets/idx.hpp"
#include "datasets/partition.hpp"
#include "datasets/registry.hpp"

namespace fedbench::cli {

namespace {

std::vector<double> dataset_labels(const datasets::DatasetInfo& d, const std::string& role) {
  if (d.format == "libsvm") return datasets::load_libsvm(d.name, role).labels;
  return datasets::read_idx_images(datasets::require_file(d, "images"),
                                   datasets::require_file(d, "labels"))
      .labels;
}

// Where `data get` would store files, or why it has nowhere to.
std::string destination_or_why() {
  try {
    return data_get_destination();
  } catch (const UserError& e) {
    return e.what();
  }
}

int list_json() {
  Json datasets = Json::array();
  for (const auto& d : datasets::dataset_registry()) {
    Json files = Json::array();
    for (const auto& f : d.files) {
      const auto path = datasets::find_file(f);
      files.push_back({{"role", f.role}, {"relative", f.relative}, {"instances", f.instances},
                       {"present", path.has_value()}, {"path", path ? Json(*path) : Json(nullptr)},
                       {"urls", download_urls(f.relative)}});
    }
    datasets.push_back({{"name", d.name},
                        {"format", d.format},
                        {"features", d.features},
                        {"classes", d.classes},
                        {"files", files},
                        {"obtain", d.obtain}});
  }
  // The search path as the text lists it: each directory, why it is there, whether it exists.
  Json places = Json::array();
  std::error_code ec;
  for (const auto& p : datasets::data_search_places())
    places.push_back({{"path", p.dir}, {"origin", p.origin}, {"exists", std::filesystem::is_directory(p.dir, ec)}});
  const Json out = {{"search_path", places}, {"get_destination", destination_or_why()}, {"datasets", datasets}};
  std::printf("%s\n", json_text(out).c_str());
  return 0;
}

int list() {
  // Every directory looked in, so that a user sees where to put a missing file.
  std::printf("search path, first match wins:\n");
  std::error_code ec;
  for (const auto& p : datasets::data_search_places())
    std::printf("  %-8s %-24s %s\n", std::filesystem::is_directory(p.dir, ec) ? "exists" : "missing",
                p.origin.c_str(), p.dir.c_str());
  std::printf("`fedbench data get NAME` stores a dataset's files in %s\n\n", destination_or_why().c_str());
  std::printf("%-14s %-7s %8s %8s  %-12s %s\n", "dataset", "format", "features", "classes",
              "file", "instances  status");
  for (const auto& d : datasets::dataset_registry()) {
    for (const auto& f : d.files) {
      const auto path = datasets::find_file(f);
      const std::string status = path ? *path : "missing " + f.relative + ": fedbench data get " + d.name;
      std::printf("%-14s %-7s %8d %8d  %-12s %9lld  %s\n", d.name.c_str(), d.format.c_str(),
                  d.features, d.classes, f.role.c_str(), static_cast<long long>(f.instances), status.c_str());
    }
  }
  return 0;
}

// One file's check: its dataset and registry entry, where it was found (empty: missing) and
// the outcome in words ("ok", "ok (remembered)", "MISMATCH", "no checksum known", "missing").
struct FileCheck {
  const datasets::DatasetInfo& dataset;
  const datasets::DatasetFile& file;
  std::string path, result;
  bool bad;
};

// Checks every present file of the named datasets (all when none is named), reporting each as
// it is done; a named dataset's missing files count as problems. Returns the number of problems.
int verify_each(const std::vector<std::string>& names, int& checked,
                const std::function<void(const FileCheck&)>& report) {
  int bad = 0;
  for (const auto& d : datasets::dataset_registry()) {
    if (!names.empty() && std::find(names.begin(), names.end(), d.name) == names.end()) continue;
    for (const auto& f : d.files) {
      const auto path = datasets::find_file(f);
      if (!path) {
        if (!names.empty()) {
          report({d, f, "", "missing", true});
          ++bad;
        }
        continue;
      }
      ++checked;
      const auto v = datasets::verify_file(f, *path);
      const char* word = v == datasets::Verification::ok          ? "ok"
                         : v == datasets::Verification::cached_ok ? "ok (remembered)"
                         : v == datasets::Verification::mismatch  ? "MISMATCH"
                                                                  : "no checksum known";
      if (v == datasets::Verification::mismatch) ++bad;
      report({d, f, *path, word, v == datasets::Verification::mismatch});
    }
  }
  for (const auto& n : names) datasets::dataset_info(n);  // unknown names: an error
  return bad;
}

int verify(const std::vector<std::string>& names) {
  int checked = 0;
  const int bad = verify_each(names, checked, [](const FileCheck& c) {
    if (c.path.empty()) std::printf("missing   %s (%s)\n", c.file.relative.c_str(), c.dataset.obtain.c_str());
    else std::printf("%-17s %s\n", c.result.c_str(), c.path.c_str());
    std::fflush(stdout);
  });
  std::printf("%d files checked, %d problems\n", checked, bad);
  return bad ? 1 : 0;
}

// The same checks as one JSON document, printed when all are done.
int verify_json(const std::vector<std::string>& names) {
  int checked = 0;
  Json files = Json::array();
  const int bad = verify_each(names, checked, [&](const FileCheck& c) {
    files.push_back({{"dataset", c.dataset.name}, {"role", c.file.role}, {"relative", c.file.relative},
                     {"path", c.path.empty() ? Json(nullptr) : Json(c.path)}, {"result", c.result},
                     {"ok", !c.bad}});
  });
  const Json out = {{"files", files}, {"checked", checked}, {"problems", bad}};
  std::printf("%s\n", json_text(out).c_str());
  return bad ? 1 : 0;
}

}  // namespace

std::function<int()> add_data(CLI::App& app) {
  auto* sub = app.add_subcommand("data", "datasets: list, download, verify checksums, show a partition");
  sub->require_subcommand(1);
  auto* list_cmd = sub->add_subcommand("list", "every known dataset, present or missing");
  auto* get_cmd = sub->add_subcommand(
      "get", "download registered datasets from their public URLs, check SHA-256 and rows, store them");
  auto* verify_cmd = sub->add_subcommand("verify", "check files against their published sha256");
  auto* part_cmd = sub->add_subcommand("partition", "client sizes and label histograms of a partition");
  struct Options {
    std::vector<std::string> names;
    std::string name, scheme = "iid", role = "train";
    int clients = 10;
    long long seed = 0;
    bool json = false;
    DataGetOptions get;
  };
  auto o = std::make_shared<Options>();
  list_cmd->add_flag("--json", o->json, "print the list as JSON");
  verify_cmd->add_flag("--json", o->json,
                       "print every file's check as JSON (exit 1 on a problem, as without)");
  verify_cmd->add_option("names", o->names, "datasets (default: every present file)");
  get_cmd->add_option("names", o->names, "datasets (fedbench data list)")->required();
  get_cmd->add_option("--to", o->get.to,
                      "directory to store them in (default: the first of $FEDBENCH_DATA, else "
                      "$XDG_DATA_HOME/fedbench/datasets, i.e. ~/.local/share/fedbench/datasets)");
  get_cmd->add_option("--mirror", o->get.mirror,
                      "base URL (http, https or file) of a copy laid out like a data directory: "
                      "URL/libsvm/a9a, or with .bz2/.xz/.gz appended");
  get_cmd->add_flag("--force", o->get.force, "download even when a good copy is already on the search path");
  part_cmd->add_option("dataset", o->name, "dataset name")->required();
  add_whole_number(part_cmd, "--clients", o->clients, "number of clients (default 10)", 1,
                   std::numeric_limits<int>::max());
  part_cmd->add_option("--scheme", o->scheme, "iid | shards:S | dirichlet:A | quantity:A");
  add_whole_number(part_cmd, "--seed", o->seed, "partition seed (default 0)", 0, kMaxSeed);
  part_cmd->add_option("--role", o->role, "file of the dataset (default train)");
  return [o, list_cmd, get_cmd, verify_cmd] {
    if (list_cmd->parsed()) return o->json ? list_json() : list();
    if (get_cmd->parsed()) return data_get(o->names, o->get);
    if (verify_cmd->parsed()) return o->json ? verify_json(o->names) : verify(o->names);
    const auto& d = datasets::dataset_info(o->name);
    const auto labels = dataset_labels(d, o->role);
    const auto scheme = datasets::PartitionScheme::parse(o->scheme);
    const auto p = datasets::partition_rows(labels, o->clients, scheme,
                                            static_cast<std::uint64_t>(o->seed));
    std::vector<double> classes;
    const auto h = datasets::label_histograms(p, labels, classes);
    std::printf("%s (%s), %zu rows, %d clients, %s, seed %lld\n", d.name.c_str(), o->role.c_str(),
                labels.size(), o->clients, scheme.to_text().c_str(), o->seed);
    std::printf("%6s %7s  labels", "client", "rows");
    for (double c : classes) std::printf(" %6s", format_real(c).c_str());
    std::printf("\n");
    for (std::size_t c = 0; c < p.size(); ++c) {
      std::printf("%6zu %7zu        ", c, p[c].size());
      for (Index n : h[c]) std::printf(" %6lld", static_cast<long long>(n));
      std::printf("\n");
    }
    return 0;
  };
}

}  // namespace fedbench::cli
