// Which data a problem configuration reads, from its parameters as a run file stores them:
// a problem that takes `source=libsvm` reads the file given by `path`, and its `dataset`
// parameter (a registered name, with a default such as heart) is then not used.
#pragma once
#include <map>
#include <optional>
#include <string>

namespace fedbench {

struct DataInUse {
  std::string what;         //!< "FILE (LIBSVM file, source=libsvm)" or "NAME (registered dataset)"
  bool unused_dataset = false;  //!< the `dataset` parameter is there but not read
};

//! nullopt for a problem without data parameters or with generated data (source=synthetic).
std::optional<DataInUse> data_in_use(const std::map<std::string, std::string>& problem_params);

}  // namespace fedbench
