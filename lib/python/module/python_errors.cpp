#include "python_errors.hpp"

#include <filesystem>

namespace fedbench::python {

namespace py = pybind11;

std::string one_line(py::error_already_set& e) {
  std::string text = py::str(e.type().attr("__name__"));
  const std::string message = py::str(e.value());
  if (!message.empty()) text += ": " + message;
  py::object tb = e.trace();
  if (tb && !tb.is_none()) {
    while (!tb.attr("tb_next").is_none()) tb = tb.attr("tb_next");
    const std::string file = py::str(tb.attr("tb_frame").attr("f_code").attr("co_filename"));
    text += " (" + std::filesystem::path(file).filename().string() + ":" +
            std::string(py::str(tb.attr("tb_lineno"))) + ")";
  }
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace fedbench::python
