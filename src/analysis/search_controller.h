// SearchController: the decisions of `hail search` -- which level (rate, or connections) to probe
// next and for how long, and what the probes add up to -- as a pure state machine: no sockets, no
// clock, no I/O. A driver runs each Probe on a LiveRun and feeds back a ProbeOutcome judged by the
// SLO thresholds (probe_judge.h). Owner: analysis. One thread (the driver's main thread).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/result.h"

namespace hail {

enum class SearchDomain : uint8_t {
  kRate,         // open loop: the level is a total request rate (req/s)
  kConnections,  // closed loop: the level is a whole number of connections
};

enum class InconclusiveAction : uint8_t {
  kExtend,  // keep measuring at the same level (no settle); the outcome covers all its windows
  kRepeat,  // settle and measure afresh; the outcome covers the new windows only
};

struct SearchConfig {
  SearchDomain domain = SearchDomain::kRate;
  // The first level probed. 0: a rate search starts with a closed-loop Estimate and probes
  // estimate_fraction x its throughput first; a connections search starts at `min`.
  double from = 0;
  double min = 1;         // the lowest level probed (connections: at least 1)
  double max = INFINITY;  // the highest: a rate cap, or --max-connections
  // Bisection stops once upper - lower <= precision x lower (connections: or <= 1).
  double precision = 0.02;
  double growth = 2.0;  // bracketing multiplies (or divides) the level by this
  double estimate_fraction = 0.5;
  uint64_t estimate_ns = 3'000'000'000;
  uint64_t settle_ns = 2'000'000'000;    // before each probe at a new level: run, don't measure
  uint64_t probe_ns = 10'000'000'000;    // measured time of a bracketing or bisection probe
  uint64_t confirm_ns = 30'000'000'000;  // measured time of the final confirmation probe
  uint64_t budget_ns = 300'000'000'000;  // the whole search, settles and estimate included
  uint32_t max_repeats = 2;              // extra looks at an inconclusive probe before giving up
  InconclusiveAction on_inconclusive = InconclusiveAction::kExtend;
  uint32_t max_confirm_steps = 3;  // failed confirmations stepped down from before giving up
  // What a step costs beyond its settle and measure (retargeting, merging windows): added to the
  // planned cost of every step, so that the time kept for the confirmation is really there.
  uint64_t step_overhead_ns = 250'000'000;
};

// A one-line reason when the configuration cannot work (e.g. the budget cannot hold one probe
// and the confirmation), for the CLI to print.
Status validate(const SearchConfig& config);

enum class ProbeKind : uint8_t {
  kEstimate,  // closed loop at the run's connections: its throughput seeds the first rate
  kBracket,   // growing (or shrinking) to find a passing and a failing level
  kBisect,    // halving the bracket
  kRepeat,    // the same level again, after an inconclusive outcome (settle, fresh windows)
  kExtend,    // more measuring at the same level, after an inconclusive outcome (no settle)
  kConfirm,   // the final, longer probe at the answer (or a step below a failed one)
};

struct Probe {
  ProbeKind kind = ProbeKind::kBracket;
  double target = 0;        // req/s or connections; 0 for kEstimate
  uint64_t settle_ns = 0;   // run at target unmeasured first (0 for kExtend)
  uint64_t measure_ns = 0;  // then measure this long
  uint32_t look = 0;        // 0: the first look at this level; n: the nth extend or repeat
  // The kind of the first look this one continues (its own kind when look == 0), so that an
  // extended confirmation is still a confirmation.
  ProbeKind first_kind = ProbeKind::kBracket;
};

enum class ProbeVerdict : uint8_t {
  kPass,            // every threshold holds
  kFail,            // some threshold surely breaks
  kInconclusive,    // too close to a threshold to call
  kGeneratorBound,  // hail itself was the bottleneck: the probe says nothing of the server
};

// What the driver shows in the probe's row; the controller only stores it.
struct ProbeStats {
  uint64_t p50_ns = 0;
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t p999_ns = 0;
  uint64_t max_ns = 0;
  double error_rate = 0;  // 0..1
  uint64_t lag_p99_ns = 0;
  uint64_t service_p99_ns = 0;  // open loop: send -> response, the server's share
  double hail_cpu = 0;  // 0..1 of hail's threads
};

struct ProbeOutcome {
  // Ignored for kEstimate. For a kExtend, judged over every window measured at the level since
  // its first look (that is the point of extending); for a kRepeat, over the new windows only.
  ProbeVerdict verdict = ProbeVerdict::kPass;
  double achieved = 0;  // completed req/s while measuring (for kEstimate: the estimate)
  // kFail / kInconclusive: the threshold, e.g. "p99 12.1ms > 10ms"; kGeneratorBound: why.
  std::string reason;
  // Wall time the step took, settle included: the budget is spent from these (there is no clock).
  uint64_t duration_ns = 0;
  ProbeStats stats;
};

struct ProbeRecord {
  Probe probe;
  ProbeOutcome outcome;
  // What the controller took the outcome for: kInconclusive means it looked again; kFail for an
  // outcome that stayed inconclusive after max_repeats looks (or failed); else the verdict.
  ProbeVerdict decided = ProbeVerdict::kPass;
};

enum class SearchLimit : uint8_t {
  kNone,      // the search is not over (verdict() while it runs)
  kServer,    // a threshold failed at `upper`: limit_reason says which
  kHail,      // a probe was generator-bound: hail could not go past hail_limit req/s
  kMaxLevel,  // `max` (the rate cap or --max-connections) passed
  kBudget,    // the budget ran out first
};

const char* search_limit_name(SearchLimit limit);      // "none", "server", "hail", "max", "budget"
const char* probe_kind_name(ProbeKind kind);           // "estimate", "bracket", "bisect", ...
const char* probe_verdict_name(ProbeVerdict verdict);  // "pass", "fail", "inconclusive", "hail"

struct SearchVerdict {
  // A level passed with no level at or below it failing; max_passing is the highest such.
  bool found = false;
  double max_passing = 0;
  // The bracket: lower = max_passing (0 if none); upper = the lowest level that failed (0 if none
  // did). Outcomes above a failure that passed (noise) are not counted as passing.
  double lower = 0;
  double upper = 0;
  SearchLimit limited_by = SearchLimit::kNone;
  std::string limit_reason;  // kServer: the failing threshold at `upper`; kHail: why; else a note
  double hail_limit = 0;     // set once a probe was generator-bound: the req/s it achieved
  bool confirmed = false;    // max_passing passed a kConfirm probe
  bool upper_inconclusive = false;  // `upper` never passed nor failed: treated as failing
  uint64_t elapsed_ns = 0;          // budget spent: each step's duration, at least as planned
  std::vector<ProbeRecord> probes;
};

// `hail search` exits with this: 0 when a level passed, 99 when none did (whatever stopped the
// search: limited_by says what, e.g. hail bound from the first probe, or the budget).
int search_exit_code(const SearchVerdict& verdict);

struct SearchDone {
  SearchVerdict verdict;
};

using SearchStep = std::variant<Probe, SearchDone>;

// Driving it: loop { step = c.next(); if SearchDone: report; else run the Probe, c.record(it) }.
// A Probe is: retarget the live run to `target` (kExtend: it is already there), run settle_ns
// unmeasured, measure measure_ns, judge the thresholds (probe_judge.h), report what it took.
//
// Phases. Bracket: from the first level, multiply by growth while probes pass (up to max), divide
// while they fail (down to min). Bisect the bracket at its midpoint until it is within precision.
// Confirm: a confirm_ns probe at the lower bound -- the highest passing level, just below the
// capacity, which lies in [lower, upper) -- so that the answer reported is a level that held for
// a long probe, not a level between two short ones. If it fails, it becomes the upper bound and
// the next confirmation steps down by the precision (a level, for connections), at most
// max_confirm_steps times; then the answer falls back to the best short pass below every failure,
// unconfirmed.
//
// An inconclusive outcome is extended (or repeated) up to max_repeats times and never cuts the
// bracket; still inconclusive after that, it counts as a failure (conservative: the search must
// not claim a level it could not show passing) and upper_inconclusive says so.
// A generator-bound outcome stops the search (limited by hail); the best passing level so far
// is still confirmed.
//
// Budget, without a clock: each step costs its recorded duration, and at least its planned time
// (settle + measure + step_overhead_ns; so the search ends even if a driver reports 0). A step is
// only started if its planned cost fits in what is left, and a bracket or bisect step only if a
// confirmation still fits after it, so the answer found when the budget ends can be confirmed.
class SearchController {
 public:
  static Result<SearchController> create(const SearchConfig& config);

  // The step to run now: the same Probe until record() is called, then the next one; SearchDone
  // once the search is over (and ever after).
  SearchStep next() const;
  // The outcome of the Probe next() returned. False (and ignored) when no probe is outstanding.
  bool record(const ProbeOutcome& outcome);

  bool done() const { return done_; }
  // The verdict so far (limited_by kNone until done): what to show if the search is interrupted.
  SearchVerdict verdict() const;
  const SearchConfig& config() const { return config_; }

 private:
  enum class Phase : uint8_t { kEstimate, kSearch, kConfirm, kDone };
  struct Bracket {
    bool has_lower = false;
    double lower = 0;
    bool has_upper = false;
    double upper = 0;
    size_t upper_record = 0;  // index in records_ of the lowest failing outcome
  };

  explicit SearchController(const SearchConfig& config) : config_(config) {}
  void start();
  // Proposes a bracket or bisect step at `level`; past the budget, stops the search instead.
  void propose_search(ProbeKind kind, double level);
  // Proposes a confirmation at `level`; past the budget, ends the search unconfirmed.
  void propose_confirm(double level);
  // Another look at an inconclusive level (extend or repeat); past the budget, stops.
  void propose_look_again(const Probe& previous);
  void after_search_decision();
  void after_confirm_decision(double level, bool passed);
  // Ends bracketing and bisecting: confirms the best passing level, if there is one.
  void stop_search(SearchLimit limit, std::string reason);
  void finish();
  uint64_t planned_cost_ns(const Probe& probe) const;
  bool fits(uint64_t cost_ns, bool keep_confirm_reserve) const;

  // The bracket from every decided outcome so far: the search's one source of truth.
  Bracket bracket() const;
  bool converged(double lower, double upper) const;
  double clamp_level(double level) const;
  double grow(double level) const;
  double shrink(double level) const;
  double midpoint(double lower, double upper) const;
  double step_down(double level) const;
  bool integral() const { return config_.domain == SearchDomain::kConnections; }

  SearchConfig config_;
  Phase phase_ = Phase::kEstimate;
  bool done_ = false;
  bool pending_ = false;
  Probe next_;
  uint64_t elapsed_ns_ = 0;
  uint32_t confirm_steps_ = 0;
  SearchLimit limit_ = SearchLimit::kNone;
  std::string limit_reason_;
  double hail_limit_ = 0;
  std::vector<ProbeRecord> records_;
};

}  // namespace hail
