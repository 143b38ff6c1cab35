#include "io/data_in_use.hpp"

namespace fedbench {

std::optional<DataInUse> data_in_use(const std::map<std::string, std::string>& problem_params) {
  const auto get = [&](const char* key) {
    const auto it = problem_params.find(key);
    return it == problem_params.end() ? std::string() : it->second;
  };
  const std::string source = get("source"), path = get("path"), dataset = get("dataset");
  if (source == "libsvm" && !path.empty()) {
    std::string what = path + " (LIBSVM file, source=libsvm";
    if (const std::string test = get("test_path"); !test.empty()) what += ", test file " + test;
    return DataInUse{what + ")", problem_params.count("dataset") > 0};
  }
  if ((source.empty() || source == "dataset") && !dataset.empty())
    return DataInUse{dataset + " (registered dataset)", false};
  return std::nullopt;
}

}  // namespace fedbench
