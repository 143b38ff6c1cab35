// `fedbench new-solver NAME`: writes a plug-in project to start a method from (a solver file,
// its CMakeLists.txt with the conformance test, a suite beside the papers' baselines); with
// --python, a Python solver file and its suite.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "plugin_template.hpp"

namespace fedbench::cli {

namespace {

namespace fs = std::filesystem;

// Registry names are lowercase words joined by '-': "my-gda" -> struct MyGda, files my_gda.
void check_name(const std::string& name) {
  bool ok = !name.empty() && std::islower(static_cast<unsigned char>(name[0]));
  for (std::size_t i = 0; ok && i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    ok = std::islower(c) || std::isdigit(c) || (c == '-' && i + 1 < name.size() && name[i + 1] != '-');
  }
  if (!ok)
    throw UserError("new-solver: '" + name + "' is not a solver name; use lowercase letters, digits and "
                    "single dashes, starting with a letter (e.g. my-gda)");
}

std::string camel_case(const std::string& name) {
  std::string out;
  bool upper = true;
  for (const char c : name) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string fill(const std::string& text, const std::string& name) {
  std::string target = name;
  for (auto& c : target) c = c == '-' ? '_' : c;
  return replace_placeholders(text, {{"@NAME@", name}, {"@TYPE@", camel_case(name)}, {"@TARGET@", target}});
}

}  // namespace

std::function<int()> add_new_solver(CLI::App& app) {
  struct Options {
    std::string name, dir;
    bool python = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("new-solver", "write a plug-in project for a new solver: a solver file to "
                                               "edit, its build with a conformance test, a suite beside "
                                               "the papers' baselines");
  sub->add_option("name", o->name, "the solver's registry name (lowercase, dashes), e.g. my-gda")->required();
  sub->add_option("--dir", o->dir, "project directory to create (default: NAME); must not exist");
  sub->add_flag("--python", o->python, "a solver written in Python (one .py file, no build) instead of a C++ plug-in");
  return [o] {
    check_name(o->name);
    const fs::path dir = o->dir.empty() ? fs::path(o->name) : fs::path(o->dir);
    std::error_code ec;
    if (fs::exists(dir, ec))
      throw UserError("new-solver: " + dir.string() + " exists; choose another --dir or remove it");
    fs::create_directories(dir, ec);
    if (ec) throw UserError("new-solver: cannot create " + dir.string() + ": " + ec.message());
    for (const auto& [path, content] : plugin_template_files(o->python)) {
      const fs::path file = dir / fill(path, o->name);
      std::ofstream out(file);
      out << fill(content, o->name);
      if (!out) throw WriteError("new-solver: cannot write " + file.string());
      std::cout << "wrote " << file.string() << "\n";
    }
    if (o->python)
      std::cout << "next: see " << (dir / "README.md").string() << "\n";
    else
      std::cout << "next: cmake -S " << dir.string() << " -B " << (dir / "build").string()
                << " -DCMAKE_PREFIX_PATH=<fedbench's install prefix>, then see "
                << (dir / "README.md").string() << "\n";
    return 0;
  };
}

}  // namespace fedbench::cli
