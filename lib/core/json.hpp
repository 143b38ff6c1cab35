// JSON output through nlohmann-json, keys in the order they are set. Every document fedbench
// prints or writes is valid JSON for any input: text that is not UTF-8 (a file name with a
// Latin-1 byte, say) has each invalid byte replaced by U+FFFD; NaN and infinities, which JSON
// lacks, are null.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace fedbench {

using Json = nlohmann::ordered_json;

//! `value` as JSON text, on one line (indent < 0) or indented; never throws on bad UTF-8.
std::string json_text(const Json& value, int indent = -1);

}  // namespace fedbench
