// Fingerprints of the code that computes a run's numbers, taken at build time
// (scripts/code_fingerprints.cmake writes them into the build's generated sources): one for the
// shared numerical code and the toolchain, one per solver or problem file. A run file records
// those of its solver and problem; a stored run made by other code is stale, not done.
#pragma once
#include <map>
#include <string>

namespace fedbench {

//! The shared numerical code (core, engine, linalg, problem, metrics, solvers/common,
//! problems/common, datasets) with the compiler, build type and instruction set.
std::string numerics_fingerprint();
//! Per solver or problem source file (relative to the source tree): the file and the headers
//! of its own directory it includes; and "lib/experiment": the code that turns runs into
//! verdicts (claims, selection, scores).
const std::map<std::string, std::string>& source_fingerprints();

//! The source tree's relative path of a registration's __FILE__, however the compiler was given
//! it (absolute, or relative to the build directory under ccache): its longest suffix that is a
//! key of source_fingerprints(); "" for files elsewhere (test-only registrations).
std::string source_key(const char* file);
//! The fingerprint of a source key; "" for none (test-only registrations).
std::string source_fingerprint(const std::string& key);

}  // namespace fedbench
