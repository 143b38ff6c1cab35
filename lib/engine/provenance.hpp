// What computed a run, as its run file records it: the build-time fingerprints of the shared
// numerical code (with the toolchain), of the solver's and of the problem's source files, and
// the data files the instance read. A stored run is current only when all of them match what
// would compute it now; otherwise it is stale, and says why.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/data_provenance.hpp"

namespace fedbench {

struct RunProvenance {
  bool recorded = false;  //!< false: a file written before fedbench recorded provenance
  std::string numerics, solver_code, problem_code;
  //! "NAME VERSION (PATH)" of the plug-in that registered the solver / problem ("" built in).
  std::string solver_plugin, problem_plugin;
  std::vector<DataFileRecord> data;
};

//! The code fingerprints a run of `problem` and `solver` (registered names) gets from this
//! build; no data. Unregistered names (test-only instances) get empty fingerprints.
RunProvenance current_code(const std::string& problem, const std::string& solver);

//! The root attributes that hold a run's provenance, by name, and the reverse.
std::map<std::string, std::string> provenance_attributes(const RunProvenance& p);
RunProvenance provenance_from_attributes(const std::map<std::string, std::string>& text);

//! Why a run of `problem` and `solver` stored with `stored` would not be computed the same way
//! now ("" when it would): which code changed (shared numerics or toolchain, the solver's or
//! the problem's file) or which data file changed.
std::string staleness(const RunProvenance& stored, const std::string& problem, const std::string& solver);

}  // namespace fedbench
