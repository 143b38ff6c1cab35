// Text of a YAML::Emitter in the form run ids hash. The ids were first computed over text
// with nothing after the colon of an empty value and nothing under the key of an empty map,
// where the emitter writes "" and {}; those two forms are rewritten so that the ids stay.
#pragma once
#include <string>

namespace YAML {
class Emitter;
}

namespace fedbench {

//! The emitter's block-style text, newline-terminated, empty values and maps as described above.
std::string identity_yaml(const YAML::Emitter& out);

}  // namespace fedbench
