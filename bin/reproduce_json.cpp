#include "reproduce_json.hpp"

#include <filesystem>

#include "core/text.hpp"
#include "experiment/verdict_file.hpp"

namespace fedbench::cli {

Json experiments_json(const std::vector<suite::ListedExperiment>& experiments) {
  Json out = Json::array();
  for (const auto& item : experiments) {
    Json entry = {{"file", item.path}, {"valid", item.experiment.has_value()}};
    if (!item.experiment) {
      entry["name"] = std::filesystem::path(item.path).stem().string();
      entry["error"] = item.error;
      out.push_back(std::move(entry));
      continue;
    }
    const suite::Experiment& e = *item.experiment;
    entry["name"] = e.name;
    entry["title"] = e.title;
    entry["reference"] = e.reference;
    entry["reproduces"] = e.reproduces;
    entry["out_of_scope"] = e.out_of_scope.empty() ? Json(nullptr) : Json(e.out_of_scope);
    entry["substitutes"] = e.substitutes;
    entry["follows_code"] = e.follows_code;
    entry["follows_paper"] = e.follows_paper;
    entry["effort"] = e.effort.empty() ? Json(nullptr) : Json(e.effort);
    entry["claims"] = e.claims.size();
    entry["time"] = e.time.empty() ? Json(nullptr) : Json(e.time);
    entry["quick_time"] = e.quick_time.empty() ? Json(nullptr) : Json(e.quick_time);
    out.push_back(std::move(entry));
  }
  return out;
}

Json experiment_json(const suite::Experiment& e, const suite::ReproduceOutcome& outcome, bool quick) {
  Json claims = Json::array();
  const auto& list = quick ? e.quick_claims : e.claims;
  for (std::size_t k = 0; k < outcome.claims.size(); ++k) claims.push_back(suite::claim_json(list[k], outcome.claims[k]));
  std::vector<std::string> diagnosis;
  for (const auto& line : split(outcome.diagnosis, '\n'))
    if (!line.empty()) diagnosis.push_back(line);
  return {{"name", e.name},
          {"title", e.title + (quick ? " (--quick)" : "")},
          {"reference", e.reference},
          {"reproduces", e.reproduces},
          {"substitutes", e.substitutes},
          {"follows_code", e.follows_code},
          {"follows_paper", e.follows_paper},
          {"claims", claims},
          {"diagnosis", diagnosis},
          {"quick", quick},
          {"holds", outcome.holds},
          {"contradicted", outcome.contradicted},
          {"inconclusive", outcome.inconclusive},
          {"tally", outcome.tally()}};
}

}  // namespace fedbench::cli
