#include "experiment/claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "core/text.hpp"
#include "results/results_store.hpp"
#include "results/score.hpp"

namespace fedbench::suite {

namespace {

// Whether a run has every `where` parameter: a problem parameter, else a solver parameter of
// that name (e.g. local_steps), or `participation`; numbers compare by value.
bool has_params(const io::StoredRun& r, const ParamMap& where) {
  for (const auto& [k, v] : where) {
    const std::string* value = nullptr;
    const std::string participation = k == "participation" ? participation_of(r.text.at("config")) : "";
    if (k == "participation") value = &participation;
    else if (const auto p = r.problem_params.find(k); p != r.problem_params.end()) value = &p->second;
    else if (const auto q = r.solver_params.find(k); q != r.solver_params.end()) value = &q->second;
    double a = 0, b = 0;
    if (!value || (*value != v && !(parse_real(*value, a) && parse_real(v, b) && a == b))) return false;
  }
  return true;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string percent(double coverage) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * coverage);
  return buf;
}

// The unit a run belongs to: its seed, and the problem settings (and participation) the claim
// leaves free, so that the two sides are paired run by run. Participation pairs only where every
// side ran the same several levels (a grid over it); a method that keeps its own participation
// (the two-vector methods' half candidates) pairs by seed with the others.
struct UnitKey {
  std::uint64_t seed = 0;
  std::string free;  // "delta=1e6" ...
  bool operator<(const UnitKey& o) const { return seed != o.seed ? seed < o.seed : free < o.free; }
};

UnitKey unit_of(const io::StoredRun& r, const std::set<std::string>& restricted) {
  UnitKey key;
  key.seed = r.record.header.seed;
  const auto add = [&](const std::string& k, const std::string& v) {
    if (restricted.count(k)) return;
    key.free += (key.free.empty() ? "" : " ") + k + "=" + v;
  };
  for (const auto& [k, v] : r.problem_params) add(k, v);
  add("participation", participation_of(r.text.at("config")));
  return key;
}

// "seed 3" or "seed 3, delta=1e6": the seed and those free settings that differ between units.
std::vector<std::string> labels_of(const std::vector<UnitKey>& keys) {
  std::map<std::string, std::set<std::string>> values;  // key -> the values units have
  std::vector<std::vector<std::pair<std::string, std::string>>> parsed;
  for (const auto& k : keys) {
    parsed.emplace_back();
    for (const auto& item : split(k.free, ' ')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) continue;
      parsed.back().emplace_back(item.substr(0, eq), item.substr(eq + 1));
      values[item.substr(0, eq)].insert(item.substr(eq + 1));
    }
  }
  std::vector<std::string> out;
  for (std::size_t u = 0; u < keys.size(); ++u) {
    std::string label = "seed " + std::to_string(keys[u].seed);
    for (const auto& [k, v] : parsed[u])
      if (values[k].size() > 1) label += ", " + k + "=" + v;
    out.push_back(label);
  }
  return out;
}

// One side of a claim: its runs grouped by unit.
struct Side {
  std::string solver;
  ParamMap where;
  std::map<UnitKey, std::vector<const io::StoredRun*>> units;
  std::size_t runs = 0, diverged = 0;
};

Side gather(const std::vector<io::StoredRun>& runs, const std::string& solver, const ParamMap& where,
            const std::set<std::string>& restricted) {
  Side s;
  s.solver = solver;
  s.where = where;
  for (const auto& r : runs) {
    if (r.text.at("solver") != solver || !has_params(r, where)) continue;
    ++s.runs;
    s.units[unit_of(r, restricted)].push_back(&r);
    s.diverged += r.text.at("status") != "ok";
  }
  return s;
}

// Which of a run's two readings around the budget a side takes: the last evaluation within it
// (as recorded), or the worse / better of that one and the first evaluation reaching it. Where
// a run was evaluated at the budget itself the three agree; between two evaluations its curve is
// taken to lie between their values.
enum class Lean { recorded, worse, better };

// A side's value on one unit: the median over its runs there (one, unless the claim leaves a
// solver setting free) of the metric at the budget.
double unit_value(const std::vector<const io::StoredRun*>& runs, const std::string& metric, const std::string& axis,
                  double budget, Lean lean) {
  std::vector<double> values;
  for (const auto* r : runs) {
    const Direction d = recorded_direction(*r, metric);
    const double within = value_at(*r, metric, axis, budget, d);
    if (lean == Lean::recorded) {
      values.push_back(within);
      continue;
    }
    const double reaching = value_at(*r, metric, axis, budget, d, Reading::reaching);
    const bool reaching_better = d == Direction::max ? reaching > within : reaching < within;
    values.push_back((lean == Lean::better) == reaching_better ? reaching : within);
  }
  return median(std::move(values));
}

// "solver" or, when the sides of a claim are restricted differently, "solver [key=value ...]".
std::string side_label(const std::string& solver, const ParamMap& where, bool differs) {
  if (!differs || where.empty()) return solver;
  std::string out = solver + " [";
  for (const auto& [k, v] : where) out += (out.back() == '[' ? "" : " ") + k + "=" + v;
  return out + "]";
}

// The per-unit margin of a claim and what it is judged against.
struct MarginRule {
  std::string name;
  Sense sense = Sense::above;
  double low = 0, high = 0;
  bool ratio = false;  // better on a minimised metric with non-negative values: than / solver
};

MarginRule margin_rule(const Claim& c, const std::vector<std::string>& labels, Direction direction,
                       bool non_negative) {
  MarginRule m;
  const std::string f = c.factor == 1 ? "" : fmt(c.factor) + " x ";
  switch (c.kind) {
    case Claim::Kind::better:
      if (direction == Direction::min && non_negative) {
        // Errors span decades: how many times lower the solver's is, against the factor.
        m.ratio = true;
        m.name = "ratio " + labels[1] + " / " + labels[0];
        m.low = c.factor;
      } else if (direction == Direction::min) {
        m.name = labels[1] + " - " + f + labels[0];
      } else {
        m.name = labels[0] + " - " + f + labels[1];
      }
      break;
    case Claim::Kind::closer:
      m.name = "|" + labels[0] + " - " + labels[1] + "| - |" + labels[0] + " - " + labels[2] + "|";
      break;
    case Claim::Kind::below:
      m.name = labels[0];
      m.sense = Sense::below;
      m.low = c.value;
      break;
    case Claim::Kind::above:
      m.name = labels[0];
      m.low = c.value;
      break;
    case Claim::Kind::within:
      m.name = labels[0];
      m.sense = Sense::within;
      m.low = c.value;
      m.high = c.high;
      break;
  }
  return m;
}

double margin_of(const Claim& c, const MarginRule& rule, const std::vector<double>& v, Direction direction) {
  switch (c.kind) {
    case Claim::Kind::better:
      if (rule.ratio) return v[1] / v[0];
      return direction == Direction::min ? v[1] - c.factor * v[0] : v[0] - c.factor * v[1];
    case Claim::Kind::closer: return std::abs(v[0] - v[1]) - std::abs(v[0] - v[2]);
    default: return v[0];
  }
}

std::string needs(Sense sense, double low, double high) {
  switch (sense) {
    case Sense::above: return "> " + fmt(low);
    case Sense::below: return "< " + fmt(low);
    case Sense::within: return "in [" + fmt(low) + ", " + fmt(high) + "]";
  }
  return "";
}

// Every side's values on the units all sides have, and whether every side gave the same bits
// on every unit across at least two seeds (the runs do not depend on the seed).
struct Paired {
  std::vector<UnitKey> keys;
  std::vector<std::vector<double>> values;  // per unit, per side
  bool seed_free = false;
};

Paired pair_units(const std::vector<Side>& sides, const std::string& metric, const std::string& axis,
                  const std::vector<double>& budgets, const std::vector<Lean>& leans = {}) {
  Paired p;
  for (const auto& entry : sides[0].units) {
    const UnitKey& key = entry.first;
    if (!std::all_of(sides.begin(), sides.end(), [&](const Side& s) { return s.units.count(key) > 0; })) continue;
    std::vector<double> values;
    for (std::size_t s = 0; s < sides.size(); ++s)
      values.push_back(unit_value(sides[s].units.at(key), metric, axis, budgets[s],
                                  leans.empty() ? Lean::recorded : leans[s]));
    p.keys.push_back(key);
    p.values.push_back(std::move(values));
  }
  std::set<std::uint64_t> seeds;
  for (const auto& k : p.keys) seeds.insert(k.seed);
  p.seed_free = seeds.size() >= 2;
  for (std::size_t u = 1; u < p.values.size() && p.seed_free; ++u)
    for (std::size_t s = 0; s < sides.size(); ++s)
      if (std::memcmp(&p.values[u][s], &p.values[0][s], sizeof(double)) != 0) p.seed_free = false;
  return p;
}

struct Judged {
  Evidence evidence;
  std::vector<double> margins, medians;
};

Judged judge_paired(const Claim& c, const MarginRule& rule, const Paired& p, Direction direction,
                    std::size_t num_sides) {
  Judged j;
  for (const auto& v : p.values) j.margins.push_back(margin_of(c, rule, v, direction));
  j.evidence = judge(j.margins, rule.sense, rule.low, rule.high, p.seed_free);
  for (std::size_t s = 0; s < num_sides; ++s) {
    std::vector<double> column;
    for (const auto& v : p.values) column.push_back(v[s]);
    j.medians.push_back(median(std::move(column)));
  }
  return j;
}

// A `better` claim at a budget where a side's runs may have no evaluation: it holds only if it
// holds with the claim's method at the worse end of its bracket and the other at the better
// end, and is contradicted only if it is contradicted the other way round; between the two it
// is inconclusive, and says so. `used` receives the pairing the evidence comes from.
Judged judge_bracketed(const Claim& c, const MarginRule& rule, const std::vector<Side>& sides, const std::string& axis,
                       double budget, Direction direction, const std::vector<std::string>& labels, Paired& used) {
  const std::vector<double> budgets(sides.size(), budget);
  Paired against = pair_units(sides, c.metric, axis, budgets, {Lean::worse, Lean::better});
  Paired in_favour = pair_units(sides, c.metric, axis, budgets, {Lean::better, Lean::worse});
  Judged strict = judge_paired(c, rule, against, direction, sides.size());
  if (against.values == in_favour.values || strict.evidence.verdict == Verdict::holds) {
    used = std::move(against);
    return strict;
  }
  Judged lenient = judge_paired(c, rule, in_favour, direction, sides.size());
  if (lenient.evidence.verdict == Verdict::contradicted) {
    used = std::move(in_favour);
    return lenient;
  }
  std::string between;  // the sides whose evaluations straddle the budget
  for (std::size_t s = 0; s < sides.size(); ++s) {
    bool straddles = false;
    for (std::size_t u = 0; u < against.values.size(); ++u)
      straddles = straddles || against.values[u][s] != in_favour.values[u][s];
    if (straddles) between += (between.empty() ? "" : " and ") + labels[s];
  }
  const std::string at_one_end = to_string(lenient.evidence.verdict), at_other = to_string(strict.evidence.verdict);
  strict.evidence.verdict = Verdict::inconclusive;
  strict.evidence.why = "the budget falls between two evaluations of " + between + ": read at the ends of that gap the claim " +
                        (at_one_end == at_other ? "is " + at_one_end + " at both"
                                                : "is " + at_one_end + " at one and " + at_other + " at the other");
  used = std::move(against);
  return strict;
}

// The counter a side's runs had reached by round `at` (median over its runs).
double spent_by(const Side& side, const std::string& counter, double at) {
  std::vector<double> spent;
  for (const auto& [key, runs] : side.units)
    for (const auto* r : runs) {
      const auto& rounds = r->column("round");
      const std::vector<double> x = counter_axis(*r, counter);
      double e = x.empty() ? 0 : x.front();
      for (std::size_t k = 0; k < x.size() && rounds[k] <= at; ++k) e = x[k];
      spent.push_back(e);
    }
  return median(std::move(spent));
}

std::string evidence_text(const ClaimResult& r, const Claim& c, const std::string& read_at) {
  const Evidence& e = r.evidence;
  std::string out = read_at + ", n = " + std::to_string(e.n) + (e.n == 1 ? " seed" : " seeds");
  if (r.sides.size() > 1) {
    out += " paired: " + r.sides[0].label + " " + fmt(r.sides[0].median);
    if (c.kind == Claim::Kind::closer)
      out += ", to " + r.sides[2].label + " " + fmt(r.sides[2].median) + ", than " + r.sides[1].label + " " +
             fmt(r.sides[1].median);
    else
      out += " vs " + r.sides[1].label + " " + fmt(r.sides[1].median);
    out += " (medians); " + r.margin_name;
  } else {
    out += ": " + r.margin_name;
  }
  if (e.n == 0) return out + "; " + e.why;
  out += " median " + fmt(e.median);
  if (e.seed_free) out += ", the same bits on every seed (the runs do not depend on it)";
  else if (e.n >= kMinUnitsForVerdict)
    out += ", " + percent(e.interval.coverage) + " interval [" + fmt(e.interval.low) + ", " + fmt(e.interval.high) + "]";
  else if (e.n > 1)
    out += ", range [" + fmt(e.interval.low) + ", " + fmt(e.interval.high) + "]";
  out += ", needs " + needs(r.sense, r.low, r.high);
  out += "; holds on " + std::to_string(e.holds_on) + "/" + std::to_string(e.n);
  if (!e.seed_free && e.holds_on < e.n && e.n > 1)
    out += "; worst " + r.units[e.worst].label + ": " + fmt(r.units[e.worst].margin);
  for (const auto& s : r.sides) {
    if (s.diverged + s.collapsed == 0) continue;
    out += "; " + s.label + ":";
    if (s.diverged) out += " " + std::to_string(s.diverged) + " diverged";
    if (s.collapsed) out += std::string(s.diverged ? "," : "") + " " + std::to_string(s.collapsed) + " collapsed";
  }
  if (!e.why.empty() && e.verdict == Verdict::inconclusive) out += "; " + e.why;
  return out;
}

// The participations of a side's runs.
std::set<std::string> participations(const std::vector<io::StoredRun>& runs, const std::string& solver,
                                     const ParamMap& where) {
  std::set<std::string> out;
  for (const auto& r : runs)
    if (r.text.at("solver") == solver && has_params(r, where)) out.insert(participation_of(r.text.at("config")));
  return out;
}

ClaimResult check_one(const Claim& c, const std::vector<io::StoredRun>& runs, bool quick) {
  ClaimResult r;
  std::set<std::string> restricted;
  for (const ParamMap* w : {&c.where, &c.than_where, &c.to_where})
    for (const auto& [k, v] : *w) restricted.insert(k);
  {
    std::vector<std::set<std::string>> levels = {participations(runs, c.solver, c.where)};
    if (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer)
      levels.push_back(participations(runs, c.than, c.than_where));
    if (c.kind == Claim::Kind::closer) levels.push_back(participations(runs, c.to, c.to_where));
    const bool grid = levels[0].size() > 1 &&
                      std::all_of(levels.begin(), levels.end(), [&](const auto& l) { return l == levels[0]; });
    if (!grid) restricted.insert("participation");
  }
  std::vector<Side> sides = {gather(runs, c.solver, c.where, restricted)};
  if (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer)
    sides.push_back(gather(runs, c.than, c.than_where, restricted));
  if (c.kind == Claim::Kind::closer) sides.push_back(gather(runs, c.to, c.to_where, restricted));
  for (const auto& s : sides)
    if (s.runs == 0) {
      r.line = "claim: " + c.text + ": " + verdict_text(Verdict::inconclusive, quick) + " (no runs of " + s.solver + ")";
      r.evidence.why = "no runs of " + s.solver;
      return r;
    }
  const Direction direction = recorded_direction(*sides[0].units.begin()->second.front(), c.metric);
  const bool differs = (c.kind == Claim::Kind::better || c.kind == Claim::Kind::closer) &&
                       (c.than_where != c.where || (c.kind == Claim::Kind::closer && c.to_where != c.where));
  std::vector<std::string> labels;
  for (const auto& s : sides) labels.push_back(side_label(s.solver, s.where, differs));
  const auto at_text = std::to_string(c.at);

  // The reading that decides: on the claim's axis at `at`, or with `equal: COUNTER` at the fewer
  // COUNTER either side had spent by round `at` (the paper's axis where it is not rounds).
  std::string axis = c.axis, read_at = c.metric + " at " + c.axis + " " + at_text;
  double budget = static_cast<double>(c.at);
  if (!c.equal.empty()) {
    const double a = spent_by(sides[0], c.equal, budget), b = spent_by(sides[1], c.equal, budget);
    axis = c.equal;
    budget = std::min(a, b);
    read_at = c.metric + " at equal " + c.equal + " (" + fmt(budget) + ": " + labels[0] + " " + fmt(a) + " by round " +
              at_text + ", " + labels[1] + " " + fmt(b) + ")";
  }
  Paired paired = pair_units(sides, c.metric, axis, std::vector<double>(sides.size(), budget));
  bool non_negative = true;
  for (const auto& v : paired.values)
    for (double x : v) non_negative = non_negative && x >= 0;
  const MarginRule rule = margin_rule(c, labels, direction, non_negative);
  r.margin_name = rule.name;
  r.sense = rule.sense;
  r.low = rule.low;
  r.high = rule.high;
  const Judged judged = c.kind == Claim::Kind::better
                            ? judge_bracketed(c, rule, sides, axis, budget, direction, labels, paired)
                            : judge_paired(c, rule, paired, direction, sides.size());
  r.evidence = judged.evidence;
  r.verdict = r.evidence.verdict;
  const auto unit_labels = labels_of(paired.keys);
  for (std::size_t u = 0; u < paired.keys.size(); ++u)
    r.units.push_back({unit_labels[u], paired.keys[u].seed, paired.values[u], judged.margins[u],
                       holds_on(judged.margins[u], rule.sense, rule.low, rule.high)});
  for (std::size_t s = 0; s < sides.size(); ++s) {
    ClaimSide side;
    side.label = labels[s];
    side.median = judged.medians[s];
    side.runs = sides[s].runs;
    side.diverged = sides[s].diverged;
    std::vector<double> column;
    for (const auto& v : paired.values) column.push_back(v[s]);
    side.collapsed = count_collapsed(column, direction);
    r.sides.push_back(side);
  }
  r.line = "claim: " + c.text + ": " + verdict_text(r.verdict, quick) + " (" + evidence_text(r, c, read_at) + ")";

  // The second reading, never deciding: per round where the paper's axis is another counter;
  // otherwise, for rounds of different cost, the same comparison at the fewer exchanges either
  // side spent.
  if (c.kind != Claim::Kind::better || c.axis != "round") return r;
  std::string what;
  if (!c.equal.empty()) {
    r.second.axis = "round";
    r.second.budget = static_cast<double>(c.at);
    what = "per round (round " + at_text + ")";
  } else {
    const double a = spent_by(sides[0], "exchanges", budget), b = spent_by(sides[1], "exchanges", budget);
    if (!std::isfinite(a) || !std::isfinite(b) || a == b) return r;
    r.second.axis = "exchanges";
    r.second.budget = std::min(a, b);
    what = "at equal exchanges (" + fmt(r.second.budget) + ": " + labels[0] + " " + fmt(a) + " by round " + at_text +
           ", " + labels[1] + " " + fmt(b) + ")";
  }
  r.has_second = true;
  Paired other;
  const Judged j = judge_bracketed(c, rule, sides, r.second.axis, r.second.budget, direction, labels, other);
  r.second.verdict = j.evidence.verdict;
  r.second.evidence = j.evidence;
  r.second.medians = j.medians;
  r.line += "; " + what + ": " + verdict_text(j.evidence.verdict, quick) + ", " + fmt(j.medians[0]) + " vs " +
            fmt(j.medians[1]);
  if (j.evidence.n >= kMinUnitsForVerdict && !j.evidence.seed_free)
    r.line += ", interval [" + fmt(j.evidence.interval.low) + ", " + fmt(j.evidence.interval.high) + "]";
  return r;
}

}  // namespace

std::string verdict_text(Verdict v, bool quick) {
  if (!quick) return to_string(v);
  return v == Verdict::inconclusive ? "not decided at the quick budget"
                                    : std::string(to_string(v)) + " at the quick budget";
}

std::vector<ClaimResult> check_claims(const std::vector<Claim>& claims, const std::vector<std::string>& results_dirs,
                                      bool quick) {
  std::vector<std::string> files;
  for (const auto& dir : results_dirs) {
    const auto more = ResultsStore(dir).suite_files(/*all=*/false);
    files.insert(files.end(), more.begin(), more.end());
  }
  const std::vector<io::StoredRun> runs = read_complete_runs(files);
  StaleTally stale;  // reproduce reruns stale runs; those kept with --reuse-stale are said to be
  for (const auto& r : runs) stale.add(r);
  stale.report();
  std::vector<ClaimResult> out;
  for (const auto& c : claims) out.push_back(check_one(c, runs, quick));
  return out;
}

}  // namespace fedbench::suite
