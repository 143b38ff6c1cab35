// The embedding host: libfedbench_python.so, the only fedbench library that links libpython.
// libfedbench.so dlopen()s it on the first Python plug-in; it starts the interpreter once for
// the life of the process, puts the directory of the `fedbench` extension module first on
// sys.path and imports the module, which installs the plug-in file loader in the core. The GIL
// is then released: the engine takes it back only around calls into Python.
#include <dlfcn.h>
#include <pybind11/embed.h>

#include <filesystem>
#include <string>

namespace py = pybind11;

extern "C" __attribute__((visibility("default"))) bool fedbench_python_start(std::string* error);

namespace {

namespace fs = std::filesystem;

// The module sits in python/ beside the host in a build tree, beside it when installed.
std::string module_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&fedbench_python_start), &info) == 0 || !info.dli_fname) return {};
  const fs::path dir = fs::path(info.dli_fname).parent_path();
  std::error_code ec;
  return fs::is_directory(dir / "python", ec) ? (dir / "python").string() : dir.string();
}

}  // namespace

bool fedbench_python_start(std::string* error) {
  static bool started = false;
  if (started) return true;
  try {
    // No Python signal handlers: Ctrl-C stays fedbench's (core/interrupt.hpp). No working
    // directory on sys.path: a file there must not shadow a module.
    py::initialize_interpreter(false, 0, nullptr, false);
    {
      py::module_::import("sys").attr("path").attr("insert")(0, module_directory());
      py::module_::import("fedbench");
    }
    PyEval_SaveThread();  // held again by each call into Python (py::gil_scoped_acquire)
    started = true;
    return true;
  } catch (const py::error_already_set& e) {
    *error = std::string("fedbench's Python module cannot be imported (") + e.what() +
             "); rebuild fedbench";
  } catch (const std::exception& e) {
    *error = std::string("Python cannot start: ") + e.what();
  }
  // A newline-free message: the loader's errors are one line.
  for (char& c : *error)
    if (c == '\n') c = ' ';
  return false;
}
