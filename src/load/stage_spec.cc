#include "load/stage_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "core/ascii.h"
#include "core/clock.h"
#include "core/units.h"

namespace hail {
namespace {

// Targets are connections or requests/s: anything past a billion is a typo, and capping keeps
// every integral finite.
constexpr double kMaxTarget = 1e9;

// digits ["." digits]: no sign, exponent, inf or nan (from_chars alone would accept those).
Result<double> parse_target(std::string_view full) {
  // An optional k (thousands) or M (millions) suffix, as -R accepts: "2.5k".
  std::string_view text = full;
  double scale = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) scale = 1e3;
  if (!text.empty() && text.back() == 'M') scale = 1e6;
  if (scale != 1) text.remove_suffix(1);
  bool digit_seen = false;
  size_t dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit_seen = true;
    } else if (c == '.') {
      ++dots;
    } else {
      return make_error("target " + quote(full) + " is not a non-negative number");
    }
  }
  if (!digit_seen || dots > 1) {
    return make_error("target " + quote(full) + " is not a non-negative number");
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return make_error("target " + quote(full) + " is not a non-negative number");
  }
  value *= scale;
  if (value > kMaxTarget)
    return make_error("target " + quote(full) + " is too large (maximum 1e9)");
  return value;
}

Error stage_error(std::string_view item, const std::string& reason) {
  return make_error("invalid --stages item " + quote(item) + ": " + reason);
}

// Integral (units*s) of a stage from its start over tau_ns: linear value from `from` to `to`.
double stage_integral(const Stage& s, double from, double tau_ns) {
  const double tau_s = tau_ns / static_cast<double>(kNsPerSec);
  if (s.hold) return s.target * tau_s;
  if (s.duration_ns == 0) return 0;  // a zero-length ramp is a jump: nothing to integrate
  const double d_s = static_cast<double>(s.duration_ns) / static_cast<double>(kNsPerSec);
  return from * tau_s + (s.target - from) * tau_s * tau_s / (2 * d_s);
}

}  // namespace

Result<std::vector<Stage>> parse_stages(std::string_view text) {
  std::vector<Stage> stages;
  if (ascii::trim_ows(text).empty())
    return make_error("invalid --stages: empty list (expected e.g. 10s:50,30s:200)");
  uint64_t total_ns = 0;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = ascii::trim_ows(text.substr(0, comma));
    const size_t colon = item.find(':');
    if (item.empty())
      return stage_error(item, "empty item (expected DURATION:TARGET, e.g. 10s:50)");
    if (colon == std::string_view::npos) {
      return stage_error(item, "expected DURATION:TARGET, e.g. 10s:50");
    }
    auto duration = parse_duration_ns(ascii::trim_ows(item.substr(0, colon)));
    if (!duration) return stage_error(item, duration.error().message);
    auto target = parse_target(ascii::trim_ows(item.substr(colon + 1)));
    if (!target) return stage_error(item, target.error().message);
    total_ns += *duration;  // each <= 100 years: no overflow before the check below
    if (total_ns > kMaxDurationNs) return stage_error(item, "total duration exceeds 100 years");
    stages.push_back(Stage{*duration, *target, false});
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (total_ns == 0) return make_error("invalid --stages: total duration is zero");
  return stages;
}

Result<LadderSpec> parse_ladder(std::string_view text) {
  auto fail = [&](const std::string& reason) {
    return make_error("invalid --ladder " + quote(text) + ": " + reason);
  };
  double values[3] = {0, 0, 0};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    const size_t colon = rest.find(':');
    if ((i < 2) == (colon == std::string_view::npos))
      return fail("expected START:STEP:END, e.g. 100:100:1000");
    auto value = parse_target(ascii::trim_ows(rest.substr(0, colon)));
    if (!value) return fail(value.error().message);
    values[i] = *value;
    if (colon != std::string_view::npos) rest.remove_prefix(colon + 1);
  }
  LadderSpec spec{values[0], values[1], values[2]};
  if (!(spec.step > 0)) return fail("step must be greater than 0");
  if (spec.end < spec.start) return fail("end must not be below start");
  // Same level count as ladder_stages computes.
  if ((spec.end - spec.start) / spec.step + 1e-9 >= static_cast<double>(kMaxLadderSteps)) {
    return fail("more than 10000 steps");
  }
  return spec;
}

Result<std::vector<Stage>> ladder_stages(double start, double step, double end,
                                         uint64_t step_duration_ns) {
  if (!(step > 0) || !(end >= start) || !(start >= 0) || end > kMaxTarget) {
    return make_error("invalid ladder: need 0 <= start <= end and step > 0");
  }
  if (step_duration_ns == 0) return make_error("invalid --step-duration: must be greater than 0");
  // The 1e-9 slack absorbs binary fractions: (1 - 0) / 0.1 is 9.999999999999998, not 10.
  const double span = (end - start) / step + 1e-9;
  if (span >= static_cast<double>(kMaxLadderSteps))
    return make_error("invalid ladder: more than 10000 steps");
  const size_t levels = static_cast<size_t>(std::floor(span)) + 1;
  if (step_duration_ns > kMaxDurationNs / levels) {
    return make_error("invalid --step-duration: total ladder duration exceeds 100 years");
  }
  std::vector<Stage> stages;
  stages.reserve(levels);
  // start + i*step, never accumulated, so level 1000 is not off by 1000 roundings.
  for (size_t i = 0; i < levels; ++i) {
    stages.push_back(Stage{step_duration_ns, start + static_cast<double>(i) * step, true});
  }
  return stages;
}

Result<std::vector<Stage>> ladder_stages(const LadderSpec& spec, uint64_t step_duration_ns) {
  return ladder_stages(spec.start, spec.step, spec.end, step_duration_ns);
}

Result<std::vector<Stage>> repeat_stages(const std::vector<Stage>& stages, uint64_t n) {
  if (n == 0) return make_error("invalid --repeat: must be at least 1");
  uint64_t once_ns = 0;
  for (const Stage& s : stages) once_ns += s.duration_ns;
  if (once_ns != 0 && n > kMaxDurationNs / once_ns) {
    return make_error("invalid --repeat " + quote(std::to_string(n)) +
                      ": total duration exceeds 100 years");
  }
  if (stages.size() * n > 1'000'000) {
    return make_error("invalid --repeat " + quote(std::to_string(n)) +
                      ": more than 1000000 stages");
  }
  std::vector<Stage> out;
  out.reserve(stages.size() * n);
  for (uint64_t i = 0; i < n; ++i) out.insert(out.end(), stages.begin(), stages.end());
  return out;
}

StageCurve::StageCurve(std::vector<Stage> stages, double initial)
    : stages_(std::move(stages)), initial_(initial) {
  double previous = initial_;
  double integral = 0;
  for (const Stage& s : stages_) {
    const double from = s.hold ? s.target : previous;
    start_ns_.push_back(total_duration_ns_);
    from_.push_back(from);
    integral_before_.push_back(integral);
    integral += stage_integral(s, from, static_cast<double>(s.duration_ns));
    integral_end_.push_back(integral);
    total_duration_ns_ += s.duration_ns;
    previous = s.target;
  }
}

size_t StageCurve::stage_index_at(uint64_t elapsed_ns) const {
  // First stage whose end is past elapsed_ns; zero-length stages end where they start: skipped.
  size_t lo = 0;
  size_t hi = stages_.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (start_ns_[mid] + stages_[mid].duration_ns > elapsed_ns) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

double StageCurve::value_at(uint64_t elapsed_ns) const {
  const size_t i = stage_index_at(elapsed_ns);
  if (i >= stages_.size()) return stages_.empty() ? initial_ : stages_.back().target;
  const Stage& s = stages_[i];
  if (s.hold) return s.target;
  const double frac =
      static_cast<double>(elapsed_ns - start_ns_[i]) / static_cast<double>(s.duration_ns);
  return from_[i] + (s.target - from_[i]) * frac;
}

double StageCurve::integral_at(uint64_t elapsed_ns) const {
  const size_t i = stage_index_at(elapsed_ns);
  if (i >= stages_.size()) return integral_end_.empty() ? 0 : integral_end_.back();
  return integral_before_[i] +
         stage_integral(stages_[i], from_[i], static_cast<double>(elapsed_ns - start_ns_[i]));
}

std::optional<double> StageCurve::crossing_ns(double count) const {
  // The first stage whose end integral exceeds count holds the crossing; stages with a zero
  // integral (zero value, zero length) never exceed their start, so they are skipped, which is
  // what puts the crossing at the end of a zero stretch rather than its start.
  const auto it = std::upper_bound(integral_end_.begin(), integral_end_.end(), count);
  if (it == integral_end_.end()) return std::nullopt;
  const size_t i = static_cast<size_t>(it - integral_end_.begin());
  const Stage& s = stages_[i];
  const double x = std::max(0.0, count - integral_before_[i]);  // requests into this stage
  if (x == 0) return static_cast<double>(start_ns_[i]);
  // Value per ns at the stage's start and end, stage length in ns.
  const double a = (s.hold ? s.target : from_[i]) / static_cast<double>(kNsPerSec);
  const double b = s.target / static_cast<double>(kNsPerSec);
  const double d = static_cast<double>(s.duration_ns);
  // Solve a*tau + (b-a)*tau^2/(2d) = x. The root written as 2x / (a + sqrt(a^2 + 2(b-a)x/d)) needs
  // no division by (b-a), so it holds for holds (b == a) and ramps from 0 (a == 0) alike and does
  // not cancel catastrophically. On a falling ramp the discriminant stays >= 0 because x is below
  // the stage's integral; clamp against rounding.
  const double disc = std::max(0.0, a * a + 2 * (b - a) * x / d);
  const double tau = 2 * x / (a + std::sqrt(disc));
  return static_cast<double>(start_ns_[i]) + std::min(tau, d);
}

}  // namespace hail
