// A file under runs/ is a run of its results directory only if it is the run its name stands
// for: the name is a run id, the identity text stored in the file hashes to that id, and the
// configuration and seed stored beside it agree with that identity text. Backup copies, a run
// copied under another run's name, foreign files and a byte changed in the stored
// configuration or seed are thereby never mistaken for runs.
#pragma once
#include <string>
#include <string_view>

namespace fedbench::suite {

//! A run id: 16 lowercase hexadecimal digits (what run_id gives).
bool is_run_id(std::string_view name);

//! Why a finished file named `id` is not that run ("" when it is), from what it stores: the
//! identity text its id hashes, its resolved configuration text and its root seed. Solver
//! parameters given as presets (e.g. `theory`) are resolved to numbers when a run starts, so
//! there the configuration may hold a number where the identity holds the preset's name.
std::string identity_mismatch(const std::string& id, const std::string& identity, const std::string& config,
                              double seed);

}  // namespace fedbench::suite
