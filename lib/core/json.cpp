#include "core/json.hpp"

namespace fedbench {

std::string json_text(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace fedbench
