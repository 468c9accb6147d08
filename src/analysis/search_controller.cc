#include "analysis/search_controller.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace hail {
namespace {

uint64_t add_saturating(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool whole(double v) {
  return std::isfinite(v) && v == std::floor(v);
}

std::string seconds_text(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", static_cast<double>(ns) / 1e9);
  return text;
}

}  // namespace

const char* search_limit_name(SearchLimit limit) {
  switch (limit) {
    case SearchLimit::kNone:
      return "none";
    case SearchLimit::kServer:
      return "server";
    case SearchLimit::kHail:
      return "hail";
    case SearchLimit::kMaxLevel:
      return "max";
    case SearchLimit::kBudget:
      return "budget";
  }
  return "?";
}

const char* probe_kind_name(ProbeKind kind) {
  switch (kind) {
    case ProbeKind::kEstimate:
      return "estimate";
    case ProbeKind::kBracket:
      return "bracket";
    case ProbeKind::kBisect:
      return "bisect";
    case ProbeKind::kRepeat:
      return "repeat";
    case ProbeKind::kExtend:
      return "extend";
    case ProbeKind::kConfirm:
      return "confirm";
  }
  return "?";
}

const char* probe_verdict_name(ProbeVerdict verdict) {
  switch (verdict) {
    case ProbeVerdict::kPass:
      return "pass";
    case ProbeVerdict::kFail:
      return "fail";
    case ProbeVerdict::kInconclusive:
      return "inconclusive";
    case ProbeVerdict::kGeneratorBound:
      return "hail";
  }
  return "?";
}

int search_exit_code(const SearchVerdict& verdict) {
  return verdict.found ? 0 : 99;
}

Status validate(const SearchConfig& c) {
  const bool connections = c.domain == SearchDomain::kConnections;
  if (!(c.precision > 0 && c.precision < 1)) {
    return make_error("the precision must be above 0 and below 100%");
  }
  if (!(c.growth > 1) || !std::isfinite(c.growth)) {
    return make_error("the growth factor must be above 1");
  }
  if (!(c.min > 0) || !std::isfinite(c.min)) return make_error("the lowest level must be above 0");
  if (!(c.max >= c.min)) return make_error("the highest level is below the lowest");
  if (!(c.from == 0 || (c.from >= c.min && c.from <= c.max))) {
    return make_error("the first level is outside the lowest and highest levels");
  }
  if (connections && (!whole(c.min) || !(whole(c.max) || c.max == INFINITY) || !whole(c.from))) {
    return make_error("connection counts must be whole numbers");
  }
  if (!(c.estimate_fraction > 0 && c.estimate_fraction <= 1)) {
    return make_error("the estimate fraction must be above 0 and at most 1");
  }
  if (c.probe_ns == 0 || c.confirm_ns == 0) {
    return make_error("probes and the confirmation must measure for some time");
  }
  const bool estimate = !connections && c.from == 0;
  if (estimate && c.estimate_ns == 0) return make_error("the estimate must run for some time");
  // The shortest search: (the estimate,) one probe and the confirmation.
  uint64_t shortest = estimate ? add_saturating(c.estimate_ns, c.step_overhead_ns) : 0;
  for (uint64_t part : {c.settle_ns, c.probe_ns, c.step_overhead_ns, c.settle_ns, c.confirm_ns,
                        c.step_overhead_ns}) {
    shortest = add_saturating(shortest, part);
  }
  if (c.budget_ns < shortest) {
    return make_error("the budget (" + seconds_text(c.budget_ns) +
                      ") cannot hold one probe and the confirmation (" + seconds_text(shortest) +
                      ")");
  }
  return ok_status();
}

Result<SearchController> SearchController::create(const SearchConfig& config) {
  if (Status status = validate(config); !status) return status.error();
  SearchController controller(config);
  controller.start();
  return controller;
}

SearchStep SearchController::next() const {
  if (done_) return SearchDone{verdict()};
  return next_;
}

void SearchController::start() {
  if (config_.domain == SearchDomain::kRate && config_.from == 0) {
    phase_ = Phase::kEstimate;
    Probe estimate;
    estimate.kind = estimate.first_kind = ProbeKind::kEstimate;
    estimate.measure_ns = config_.estimate_ns;
    if (!fits(planned_cost_ns(estimate), true)) {
      limit_ = SearchLimit::kBudget;
      limit_reason_ = "the budget ran out";
      finish();
      return;
    }
    next_ = estimate;
    pending_ = true;
    return;
  }
  phase_ = Phase::kSearch;
  propose_search(ProbeKind::kBracket, clamp_level(config_.from == 0 ? config_.min : config_.from));
}

bool SearchController::record(const ProbeOutcome& outcome) {
  if (done_ || !pending_) return false;
  pending_ = false;
  const Probe probe = next_;
  elapsed_ns_ = add_saturating(elapsed_ns_, std::max(outcome.duration_ns, planned_cost_ns(probe)));
  ProbeRecord record{probe, outcome, outcome.verdict};

  if (probe.kind == ProbeKind::kEstimate) {
    record.decided = ProbeVerdict::kPass;
    records_.push_back(std::move(record));
    phase_ = Phase::kSearch;
    // A dead server (no throughput) starts at the bottom.
    const double seed = outcome.achieved * config_.estimate_fraction;
    propose_search(ProbeKind::kBracket,
                   std::isfinite(seed) && seed > 0 ? clamp_level(seed) : config_.min);
    return true;
  }

  switch (outcome.verdict) {
    case ProbeVerdict::kGeneratorBound:
      records_.push_back(std::move(record));
      hail_limit_ = outcome.achieved;
      if (phase_ == Phase::kConfirm) {
        limit_ = SearchLimit::kHail;
        limit_reason_ = outcome.reason;
        finish();
      } else {
        stop_search(SearchLimit::kHail, outcome.reason);
      }
      return true;
    case ProbeVerdict::kInconclusive:
      if (probe.look < config_.max_repeats) {
        record.decided = ProbeVerdict::kInconclusive;
        records_.push_back(std::move(record));
        propose_look_again(probe);
        return true;
      }
      record.decided = ProbeVerdict::kFail;  // could not be shown to pass: conservative
      break;
    case ProbeVerdict::kPass:
    case ProbeVerdict::kFail:
      break;
  }
  const bool passed = record.decided == ProbeVerdict::kPass;
  records_.push_back(std::move(record));
  if (phase_ == Phase::kConfirm) {
    after_confirm_decision(probe.target, passed);
  } else {
    after_search_decision();
  }
  return true;
}

void SearchController::after_search_decision() {
  const Bracket b = bracket();
  if (!b.has_upper) {  // everything passed so far: grow, up to max
    if (b.lower >= config_.max) {
      stop_search(SearchLimit::kMaxLevel, "the highest level allowed passed");
      return;
    }
    propose_search(ProbeKind::kBracket, grow(b.lower));
    return;
  }
  if (!b.has_lower) {  // everything failed so far: shrink, down to min
    if (b.upper <= config_.min) {
      limit_ = SearchLimit::kServer;
      finish();
      return;
    }
    propose_search(ProbeKind::kBracket, shrink(b.upper));
    return;
  }
  if (converged(b.lower, b.upper)) {
    stop_search(SearchLimit::kServer, "");
    return;
  }
  propose_search(ProbeKind::kBisect, midpoint(b.lower, b.upper));
}

void SearchController::after_confirm_decision(double level, bool passed) {
  if (passed) {
    finish();
    return;
  }
  // The longer probe failed where shorter ones passed: it is the new upper bound, and whatever
  // stopped the search before, the server is what limits it now (unless time does).
  ++confirm_steps_;
  if (limit_ != SearchLimit::kBudget) limit_ = SearchLimit::kServer;
  if (level <= config_.min || confirm_steps_ >= config_.max_confirm_steps) {
    finish();
    return;
  }
  propose_confirm(step_down(level));
}

void SearchController::stop_search(SearchLimit limit, std::string reason) {
  limit_ = limit;
  limit_reason_ = std::move(reason);
  const Bracket b = bracket();
  if (!b.has_lower) {
    finish();
    return;
  }
  phase_ = Phase::kConfirm;
  propose_confirm(b.lower);
}

void SearchController::propose_search(ProbeKind kind, double level) {
  Probe probe;
  probe.kind = probe.first_kind = kind;
  probe.target = level;
  probe.settle_ns = config_.settle_ns;
  probe.measure_ns = config_.probe_ns;
  if (!fits(planned_cost_ns(probe), true)) {
    stop_search(SearchLimit::kBudget, "the budget ran out");
    return;
  }
  next_ = probe;
  pending_ = true;
}

void SearchController::propose_confirm(double level) {
  Probe probe;
  probe.kind = probe.first_kind = ProbeKind::kConfirm;
  probe.target = level;
  probe.settle_ns = config_.settle_ns;
  probe.measure_ns = config_.confirm_ns;
  if (!fits(planned_cost_ns(probe), false)) {
    limit_ = SearchLimit::kBudget;
    limit_reason_ = "the budget ran out before the confirmation";
    finish();
    return;
  }
  next_ = probe;
  pending_ = true;
}

void SearchController::propose_look_again(const Probe& previous) {
  const bool extend = config_.on_inconclusive == InconclusiveAction::kExtend;
  const bool confirming = previous.first_kind == ProbeKind::kConfirm;
  Probe probe;
  probe.kind = extend ? ProbeKind::kExtend : ProbeKind::kRepeat;
  probe.first_kind = previous.first_kind;
  probe.target = previous.target;
  probe.look = previous.look + 1;
  probe.settle_ns = extend ? 0 : config_.settle_ns;
  probe.measure_ns = confirming ? config_.confirm_ns : config_.probe_ns;
  if (fits(planned_cost_ns(probe), !confirming)) {
    next_ = probe;
    pending_ = true;
  } else if (confirming) {
    limit_ = SearchLimit::kBudget;
    limit_reason_ = "the budget ran out before the confirmation";
    finish();
  } else {
    stop_search(SearchLimit::kBudget, "the budget ran out");
  }
}

void SearchController::finish() {
  phase_ = Phase::kDone;
  done_ = true;
  pending_ = false;
}

uint64_t SearchController::planned_cost_ns(const Probe& probe) const {
  return add_saturating(add_saturating(probe.settle_ns, probe.measure_ns),
                        config_.step_overhead_ns);
}

bool SearchController::fits(uint64_t cost_ns, bool keep_confirm_reserve) const {
  uint64_t needed = add_saturating(elapsed_ns_, cost_ns);
  if (keep_confirm_reserve) {
    needed =
        add_saturating(needed, add_saturating(add_saturating(config_.settle_ns, config_.confirm_ns),
                                              config_.step_overhead_ns));
  }
  return needed <= config_.budget_ns;
}

SearchController::Bracket SearchController::bracket() const {
  Bracket b;
  for (size_t i = 0; i < records_.size(); ++i) {
    const ProbeRecord& r = records_[i];
    if (r.probe.kind == ProbeKind::kEstimate || r.decided != ProbeVerdict::kFail) continue;
    if (!b.has_upper || r.probe.target < b.upper) {
      b.has_upper = true;
      b.upper = r.probe.target;
      b.upper_record = i;
    }
  }
  for (const ProbeRecord& r : records_) {
    if (r.probe.kind == ProbeKind::kEstimate || r.decided != ProbeVerdict::kPass) continue;
    if (b.has_upper && r.probe.target >= b.upper) continue;  // above a failure: noise
    if (!b.has_lower || r.probe.target > b.lower) {
      b.has_lower = true;
      b.lower = r.probe.target;
    }
  }
  return b;
}

bool SearchController::converged(double lower, double upper) const {
  const double gap = upper - lower;
  if (integral() && gap <= 1) return true;
  return gap <= config_.precision * lower;
}

double SearchController::clamp_level(double level) const {
  if (integral()) level = std::round(level);
  return std::clamp(level, config_.min, config_.max);
}

double SearchController::grow(double level) const {
  if (integral()) return clamp_level(std::max(level + 1, std::floor(level * config_.growth)));
  return clamp_level(level * config_.growth);
}

double SearchController::shrink(double level) const {
  if (integral()) return clamp_level(std::min(level - 1, std::floor(level / config_.growth)));
  return clamp_level(level / config_.growth);
}

double SearchController::midpoint(double lower, double upper) const {
  const double mid = lower + (upper - lower) / 2;
  return integral() ? std::floor(mid) : mid;
}

double SearchController::step_down(double level) const {
  if (integral()) {
    return clamp_level(level - std::max(1.0, std::floor(level * config_.precision)));
  }
  return clamp_level(level * (1 - config_.precision));
}

SearchVerdict SearchController::verdict() const {
  SearchVerdict v;
  const Bracket b = bracket();
  v.found = b.has_lower;
  v.max_passing = v.lower = b.has_lower ? b.lower : 0;
  v.upper = b.has_upper ? b.upper : 0;
  v.limited_by = done_ ? limit_ : SearchLimit::kNone;
  v.limit_reason = limit_reason_;
  if (b.has_upper) {
    const ProbeRecord& failing = records_[b.upper_record];
    v.upper_inconclusive = failing.outcome.verdict == ProbeVerdict::kInconclusive;
    if (limit_ == SearchLimit::kServer) {
      v.limit_reason = v.upper_inconclusive
                           ? "inconclusive after " + std::to_string(failing.probe.look + 1) +
                                 " looks: " + failing.outcome.reason
                           : failing.outcome.reason;
    }
  }
  v.hail_limit = hail_limit_;
  for (const ProbeRecord& r : records_) {
    if (r.probe.first_kind == ProbeKind::kConfirm && r.decided == ProbeVerdict::kPass &&
        b.has_lower && r.probe.target == b.lower) {
      v.confirmed = true;
    }
  }
  v.elapsed_ns = elapsed_ns_;
  v.probes = records_;
  return v;
}

}  // namespace hail
