// Names that become directory or file names (a suite's results/NAME, an experiment's output,
// a variant's variants/NAME, a winners suite): letters, digits, '-', '_' and '.', so that no
// name can add a path component, a line break to a listing, or a character a shell mangles.
#pragma once
#include <string>

namespace fedbench {

//! Empty when `name` can name a directory or file as is (1 to 255 of letters, digits, '-', '_',
//! '.', and not "." or ".."); otherwise what is wrong with it ("is empty", "has a newline", ...).
std::string unusable_name(const std::string& name);

//! `name` with every character that unusable_name objects to replaced by '_' (and cut to 255
//! characters): a name made from a path that exists, such as a results directory's.
std::string safe_name_from(const std::string& name);

}  // namespace fedbench
