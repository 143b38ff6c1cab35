#include "engine/provenance.hpp"

#include "core/code_fingerprint.hpp"
#include "engine/solver.hpp"
#include "problem/problem_registry.hpp"

namespace fedbench {

namespace {

// A plug-in's entries are fingerprinted by the plug-in's file (prefixed, so that moving a
// method between fedbench and a plug-in also reads as a change).
template <class Registry>
std::string fingerprint_of(const Registry& registry, const std::string& name) {
  if (!registry.contains(name)) return "";
  const auto& entry = registry.get(name);
  if (entry.plugin) return "plugin:" + entry.plugin->fingerprint;
  return source_fingerprint(entry.source);
}

template <class Registry>
std::string source_of(const Registry& registry, const std::string& name) {
  if (!registry.contains(name)) return "";
  const auto& entry = registry.get(name);
  return entry.plugin ? "plug-in " + entry.plugin->describe() : entry.source;
}

template <class Registry>
std::string plugin_of(const Registry& registry, const std::string& name) {
  if (!registry.contains(name)) return "";
  const auto& entry = registry.get(name);
  return entry.plugin ? entry.plugin->describe() : std::string();
}

}  // namespace

RunProvenance current_code(const std::string& problem, const std::string& solver) {
  RunProvenance p;
  p.recorded = true;
  p.numerics = numerics_fingerprint();
  p.solver_code = fingerprint_of(solver_registry(), solver);
  p.problem_code = fingerprint_of(problem_registry(), problem);
  p.solver_plugin = plugin_of(solver_registry(), solver);
  p.problem_plugin = plugin_of(problem_registry(), problem);
  return p;
}

std::map<std::string, std::string> provenance_attributes(const RunProvenance& p) {
  return {{"code_numerics", p.numerics},
          {"code_solver", p.solver_code},
          {"code_problem", p.problem_code},
          {"plugin_solver", p.solver_plugin},
          {"plugin_problem", p.problem_plugin},
          {"data_files", data_files_text(p.data)}};
}

RunProvenance provenance_from_attributes(const std::map<std::string, std::string>& text) {
  RunProvenance p;
  const auto numerics = text.find("code_numerics");
  if (numerics == text.end()) return p;
  p.recorded = true;
  p.numerics = numerics->second;
  const auto get = [&](const char* key) {
    const auto it = text.find(key);
    return it == text.end() ? std::string() : it->second;
  };
  p.solver_code = get("code_solver");
  p.problem_code = get("code_problem");
  p.solver_plugin = get("plugin_solver");
  p.problem_plugin = get("plugin_problem");
  p.data = parse_data_files(get("data_files"));
  return p;
}

std::string staleness(const RunProvenance& stored, const std::string& problem, const std::string& solver) {
  if (!stored.recorded) return "written before fedbench recorded the code behind a run";
  const RunProvenance now = current_code(problem, solver);
  if (stored.solver_code != now.solver_code)
    return "code: solver " + solver + " changed (" + source_of(solver_registry(), solver) + ")";
  if (stored.problem_code != now.problem_code)
    return "code: problem " + problem + " changed (" + source_of(problem_registry(), problem) + ")";
  if (stored.numerics != now.numerics)
    return "code: the shared numerical code or the compiler changed";
  if (auto data = data_change(stored.data); !data.empty()) return "data: " + data;
  return "";
}

}  // namespace fedbench
