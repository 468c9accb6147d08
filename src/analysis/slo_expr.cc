#include "analysis/slo_expr.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/slo_names.h"
#include "core/ascii.h"
#include "core/numbers.h"
#include "core/units.h"

namespace hail {

namespace {

using slo_names::kDistributions;
using slo_names::kKnownMetrics;
using slo_names::kScalars;
using slo_names::metric_name;
using slo_names::NamedMetric;
using slo_names::NamedScalar;

std::string_view trim(std::string_view s) {
  while (!s.empty() && ascii::is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii::is_space(s.back())) s.remove_suffix(1);
  return s;
}

// digits and points only: a number whose unit may follow as the next word ("10 ms").
bool is_bare_number(std::string_view word) {
  if (word.empty()) return false;
  for (char c : word) {
    if (!ascii::is_digit(c) && c != '.') return false;
  }
  return true;
}

// The parse of one expression; every failure is a message naming the bad part.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(trim(text)) {}

  Result<SloThreshold> run() {
    SloThreshold t;
    t.text = std::string(text_);
    if (text_.empty()) return fail("empty threshold (e.g. \"p(99)<10ms\")");
    size_t op_at = 0, op_len = 0;
    if (auto s = find_operator(op_at, op_len); !s.ok()) return Error{s.error()};
    t.op = op_of(text_.substr(op_at, op_len));
    if (auto s = parse_lhs(trim(text_.substr(0, op_at)), t); !s.ok()) return Error{s.error()};
    if (auto s = parse_rhs(trim(text_.substr(op_at + op_len)), t); !s.ok()) {
      return Error{s.error()};
    }
    if (auto s = check_combination(t); !s.ok()) return Error{s.error()};
    return t;
  }

 private:
  Error fail(const std::string& why) const { return make_error(quote(text_) + ": " + why); }

  static SloOp op_of(std::string_view op) {
    if (op == "<") return SloOp::kLess;
    if (op == "<=") return SloOp::kLessEqual;
    if (op == ">") return SloOp::kGreater;
    if (op == ">=") return SloOp::kGreaterEqual;
    if (op == "!=") return SloOp::kNotEqual;
    return SloOp::kEqual;  // == and k6's ===
  }

  // The first comparison outside a {...} filter and its quotes.
  Status find_operator(size_t& at, size_t& len) const {
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (quoted) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quoted = false;
        }
        continue;
      }
      if (c == '"' && depth > 0) {
        quoted = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (depth == 0) return fail("\"}\" without a \"{\" before it");
        --depth;
      } else if (depth == 0 && (c == '<' || c == '>' || c == '=' || c == '!')) {
        at = i;
        const std::string_view rest = text_.substr(i);
        for (std::string_view op : {"===", "<=", ">=", "==", "!=", "<", ">"}) {
          if (rest.substr(0, op.size()) == op) {
            len = op.size();
            return ok_status();
          }
        }
        return fail("unknown operator " + quote(rest.substr(0, 1)) +
                    ": use one of < <= > >= == !=");
      }
    }
    if (quoted) return fail("unclosed quote in the filter");
    if (depth > 0) return fail("unclosed \"{\" in the filter");
    return fail("no comparison: expected one of < <= > >= == != (e.g. \"p(99)<10ms\")");
  }

  Status parse_lhs(std::string_view lhs, SloThreshold& t) const {
    if (!lhs.empty() && lhs.back() == '?') {
      t.optional = true;
      lhs = trim(lhs.substr(0, lhs.size() - 1));
    }
    if (lhs.empty()) return fail("nothing before the operator: name a statistic, e.g. p(99)");
    std::string_view name, stat;
    bool has_separator = false;
    if (const size_t brace = lhs.find('{'); brace != std::string_view::npos) {
      name = trim(lhs.substr(0, brace));
      if (name.empty()) return fail("name the metric before \"{\", e.g. latency{tag=checkout}");
      size_t close = 0;
      if (auto s = parse_filter(lhs.substr(brace), close, t); !s.ok()) return s;
      std::string_view rest = trim(lhs.substr(brace + close));
      if (!rest.empty()) {
        if (rest.front() != ':' && rest.front() != '.') {
          return fail("unexpected " + quote(rest) +
                      " after the filter: use \":\" or \".\" before "
                      "the statistic, e.g. latency{tag=checkout}: p(99)");
        }
        has_separator = true;
        stat = trim(rest.substr(1));
      }
    } else if (const size_t colon = lhs.find(':'); colon != std::string_view::npos) {
      name = trim(lhs.substr(0, colon));
      stat = trim(lhs.substr(colon + 1));
      has_separator = true;
    } else if (const size_t dot = lhs.find('.');
               dot != std::string_view::npos && find_distribution(lhs.substr(0, dot))) {
      name = lhs.substr(0, dot);
      stat = trim(lhs.substr(dot + 1));
      has_separator = true;
    } else {
      stat = lhs;  // a statistic of latency, or a scalar
    }
    // Outside the filter (whose quoted tag name may hold anything), "?" has one place.
    if (name.find('?') != std::string_view::npos || stat.find('?') != std::string_view::npos) {
      return fail("\"?\" goes right before the operator, as in \"service.p(99)?<5ms\"");
    }
    if (has_separator && stat.empty()) {
      return fail("no statistic after " + quote(name) + ": use p(N), med, avg, min or max");
    }
    return resolve(name, stat, t);
  }

  static std::optional<SloMetric> find_distribution(std::string_view name) {
    for (const NamedMetric& m : kDistributions) {
      if (m.name == name) return m.metric;
    }
    return std::nullopt;
  }
  static const NamedScalar* find_scalar(std::string_view name) {
    for (const NamedScalar& s : kScalars) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }

  Status resolve(std::string_view name, std::string_view stat, SloThreshold& t) const {
    if (name.empty()) {
      if (const NamedScalar* s = find_scalar(stat)) {
        t.metric = s->metric;
        t.errors = s->errors;
        return ok_status();
      }
      if (find_distribution(stat)) {
        return fail(quote(stat) + " needs a statistic: " + std::string(stat) +
                    ".p(99), .med, .avg, .min or .max");
      }
      // "name.stat" whose name is no distribution (p(99.9) has a dot too, but no name before it).
      const bool percentile_form =
          stat.size() >= 2 && stat[0] == 'p' && (stat[1] == '(' || ascii::is_digit(stat[1]));
      if (const size_t dot = stat.find('.'); dot != std::string_view::npos && !percentile_form) {
        return resolve(stat.substr(0, dot), stat.substr(dot + 1), t);
      }
      t.metric = SloMetric::kLatency;
      return parse_stat(stat, t);
    }
    if (auto m = find_distribution(name)) {
      t.metric = *m;
      if (stat.empty()) {
        return fail(quote(name) + " needs a statistic: " + std::string(name) +
                    ".p(99), .med, .avg, .min or .max");
      }
      return parse_stat(stat, t);
    }
    if (const NamedScalar* s = find_scalar(name)) {
      if (!stat.empty()) {
        return fail(quote(name) + " is a single number and takes no statistic " + quote(stat));
      }
      t.metric = s->metric;
      t.errors = s->errors;
      return ok_status();
    }
    // k6's rate and counter metrics, which name their statistic.
    if (name == "http_req_failed") {
      if (stat != "rate") return fail("http_req_failed takes \"rate\" (the error rate)");
      t.metric = SloMetric::kErrorRate;
      return ok_status();
    }
    if (name == "http_reqs") {
      if (stat == "rate") {
        t.metric = SloMetric::kRps;
      } else if (stat == "count") {
        t.metric = SloMetric::kRequests;
      } else {
        return fail("http_reqs takes \"rate\" (requests/s) or \"count\"");
      }
      return ok_status();
    }
    return fail("unknown metric " + quote(name) + " (known: " + std::string(kKnownMetrics) + ")");
  }

  Status parse_stat(std::string_view stat, SloThreshold& t) const {
    if (stat == "avg") {
      t.stat = SloStat::kAvg;
    } else if (stat == "min") {
      t.stat = SloStat::kMin;
    } else if (stat == "max") {
      t.stat = SloStat::kMax;
    } else if (stat == "med") {
      t.stat = SloStat::kPercentile;
      t.percentile = 50;
    } else if (stat.size() >= 2 && stat.front() == 'p' &&
               (stat[1] == '(' || ascii::is_digit(stat[1]))) {
      std::string_view number = stat.substr(1);
      if (number.front() == '(') {
        const size_t close = number.find(')');
        if (close == std::string_view::npos)
          return fail("unclosed " + quote(stat) + ": write p(99)");
        if (close + 1 != number.size()) {
          return fail("unexpected " + quote(number.substr(close + 1)) + " after " +
                      quote(stat.substr(0, close + 2)));
        }
        number = trim(number.substr(1, number.size() - 2));
      }
      const std::optional<double> p = parse_scaled_decimal(number);
      if (!p || (!number.empty() && !ascii::is_digit(number.back()))) {
        return fail("bad percentile " + quote(stat) + ": write p(99) or p99.9");
      }
      if (*p > 100) {
        return fail("percentile " + quote(number) + " is not within 0..100 (p99.9 is p(99.9))");
      }
      t.stat = SloStat::kPercentile;
      t.percentile = *p;
    } else if (stat == "rate" || stat == "count" || stat == "value") {
      return fail(quote(stat) +
                  " applies to k6's counters; for latency use p(N), med, avg, min or "
                  "max, or a scalar such as error_rate, rps or requests");
    } else {
      return fail(
          "unknown statistic " + quote(stat) +
          " (use p(N), pN, med, avg, min or max; or a metric: " + std::string(kKnownMetrics) + ")");
    }
    return ok_status();
  }

  // `in` starts at "{"; sets `consumed` to the length through the matching "}".
  Status parse_filter(std::string_view in, size_t& consumed, SloThreshold& t) const {
    size_t i = 1;
    const size_t key_end = in.find_first_of("=:}", i);
    if (key_end == std::string_view::npos || in[key_end] == '}') {
      return fail("a filter is {tag=NAME} (or k6's {name:NAME})");
    }
    const std::string_view key = trim(in.substr(i, key_end - i));
    if (key != "tag" && key != "name") {
      return fail("unknown filter key " + quote(key) +
                  ": hail tags have one name, write {tag=NAME} (k6's {name:NAME} works too)");
    }
    i = key_end + 1;
    while (i < in.size() && ascii::is_space(in[i])) ++i;
    std::string value;
    if (i < in.size() && in[i] == '"') {
      ++i;
      bool closed = false;
      for (; i < in.size(); ++i) {
        if (in[i] == '\\' && i + 1 < in.size()) {
          value += in[++i];
        } else if (in[i] == '"') {
          closed = true;
          ++i;
          break;
        } else {
          value += in[i];
        }
      }
      if (!closed) return fail("unclosed quote in the filter");
      while (i < in.size() && ascii::is_space(in[i])) ++i;
      if (i >= in.size() || in[i] != '}') return fail("expected \"}\" after the quoted tag name");
    } else {
      const size_t close = in.find('}', i);
      if (close == std::string_view::npos) return fail("unclosed \"{\" in the filter");
      value = std::string(trim(in.substr(i, close - i)));
      i = close;
    }
    if (value.empty()) return fail("empty tag name in the filter");
    t.tag = std::move(value);
    consumed = i + 1;
    return ok_status();
  }

  Status parse_rhs(std::string_view rhs, SloThreshold& t) const {
    std::vector<std::string_view> words;
    while (!rhs.empty()) {
      size_t end = 0;
      while (end < rhs.size() && !ascii::is_space(rhs[end])) ++end;
      words.push_back(rhs.substr(0, end));
      rhs = trim(rhs.substr(end));
    }
    if (words.empty()) return fail("no value after the operator");
    const auto keyword_at = [&words](size_t i) { return words[i] == "over" || words[i] == "for"; };
    // "10 ms": a unit written apart from its number.
    const auto joined = [&](size_t i, size_t& used) {
      std::string word(words[i]);
      used = 1;
      if (is_bare_number(words[i]) && i + 1 < words.size() && !keyword_at(i + 1) &&
          !ascii::is_digit(words[i + 1].front())) {
        word += words[i + 1];
        used = 2;
      }
      return word;
    };
    size_t next = 0;
    const std::string value = joined(0, next);
    if (auto s = parse_value(value, t); !s.ok()) return s;
    bool seen_over = false, seen_for = false;
    while (next < words.size()) {
      const std::string_view keyword = words[next];
      if (keyword != "over" && keyword != "for") {
        return fail("unexpected " + quote(keyword) +
                    " after the value: expected \"over DURATION\" or \"for DURATION\"");
      }
      bool& seen = keyword == "over" ? seen_over : seen_for;
      if (seen) return fail(quote(keyword) + " given twice");
      seen = true;
      if (next + 1 >= words.size()) {
        return fail(quote(keyword) + " needs a duration, e.g. \"" + std::string(keyword) +
                    " 10s\"");
      }
      size_t used = 0;
      const std::string duration = joined(next + 1, used);
      auto d = parse_window(keyword, duration);
      if (!d.ok()) return Error{d.error()};
      (keyword == "over" ? t.over_ns : t.for_ns) = *d;
      next += 1 + used;
    }
    return ok_status();
  }

  Result<uint64_t> parse_window(std::string_view keyword, std::string_view word) const {
    if (word.empty() || !ascii::is_alpha(word.back())) {
      return fail(quote(keyword) + " needs a duration with its unit, e.g. \"" +
                  std::string(keyword) + " 10s\", not " + quote(word));
    }
    auto d = parse_duration_ns(word);
    if (!d.ok()) return fail("bad duration " + quote(word) + " after " + quote(keyword));
    if (*d == 0) return fail(quote(keyword) + " needs a duration above 0");
    return *d;
  }

  // Splits "12.5ms" into its number and what follows.
  Status split_number(std::string_view word, double& number, std::string_view& suffix) const {
    size_t end = 0;
    while (end < word.size() && (ascii::is_digit(word[end]) || word[end] == '.')) ++end;
    const std::string_view digits = word.substr(0, end);
    suffix = word.substr(end);
    if (digits.empty()) {
      if (!word.empty() && word.front() == '-') return fail("negative value " + quote(word));
      return fail("expected a number after the operator, got " + quote(word));
    }
    const std::optional<double> v = parse_scaled_decimal(digits);
    if (!v) return fail("bad number " + quote(digits));
    number = *v;
    return ok_status();
  }

  Status parse_value(std::string_view word, SloThreshold& t) const {
    double number = 0;
    std::string_view unit;
    if (auto s = split_number(word, number, unit); !s.ok()) return s;
    if (t.is_distribution()) {
      // A bare number is milliseconds, as k6's trend thresholds (`p(95)<500`).
      double scale = 1e6;
      if (unit.empty() || ascii::iequals(unit, "ms")) {
        scale = 1e6;
      } else if (ascii::iequals(unit, "ns")) {
        scale = 1;
      } else if (ascii::iequals(unit, "us") || unit == "\xc2\xb5s") {
        scale = 1e3;
      } else if (ascii::iequals(unit, "s")) {
        scale = 1e9;
      } else if (ascii::iequals(unit, "m")) {
        scale = 60e9;
      } else if (ascii::iequals(unit, "h")) {
        scale = 3600e9;
      } else {
        return fail("unknown unit " + quote(unit) +
                    ": use ns, us, ms, s, m or h (a bare number is milliseconds)");
      }
      t.limit = number * scale;
      return ok_status();
    }
    switch (t.metric) {
      case SloMetric::kServerCpu:
      case SloMetric::kServerCpuMax:
        if (!unit.empty() && unit != "%") {
          return fail("unknown unit " + quote(unit) + ": " + metric_name(t.metric) +
                      " is a percentage of one core (90% or 90)");
        }
        t.limit = number;
        return ok_status();
      case SloMetric::kServerRss:
      case SloMetric::kServerRssGrowth:
        return parse_bytes(word, number, unit, t);
      case SloMetric::kErrorRate:
        if (unit == "%") {
          if (number > 100) return fail("error_rate " + quote(word) + " is above 100%");
          t.limit = number / 100;
        } else if (unit.empty()) {
          if (number > 1) {
            return fail("error_rate is a fraction (0.05) or a percentage (5%), and " + quote(word) +
                        " is above 1");
          }
          t.limit = number;
        } else {
          return fail("unknown unit " + quote(unit) +
                      ": error_rate is a fraction (0.001) or a percentage (0.1%)");
        }
        return ok_status();
      case SloMetric::kRps:
        if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "/s") {
          unit.remove_suffix(2);
        }
        [[fallthrough]];
      default:
        if (unit == "k" || unit == "K") {
          number *= 1e3;
        } else if (unit == "M") {
          number *= 1e6;
        } else if (!unit.empty()) {
          return fail("unknown unit " + quote(unit) + ": " + metric_name(t.metric) +
                      " takes a number, optionally with k (x1000) or M (x10^6)");
        }
        t.limit = number;
        return ok_status();
    }
  }

  // server.rss (bytes) and server.rss_growth (bytes per hour): powers of 1024 either way.
  Status parse_bytes(std::string_view word, double number, std::string_view unit,
                     SloThreshold& t) const {
    if (t.metric == SloMetric::kServerRssGrowth) {
      if (unit.ends_with("/h")) {
        unit.remove_suffix(2);
      } else if (!unit.empty() && unit.find('/') != std::string_view::npos) {
        return fail("server.rss_growth is per hour: " + quote(word) + " (write 10MiB/h)");
      }
    }
    double scale = 0;
    if (unit.empty() || unit == "B") {
      scale = 1;
    } else if (ascii::iequals(unit, "KiB") || ascii::iequals(unit, "KB") || unit == "k") {
      scale = 1024.0;
    } else if (ascii::iequals(unit, "MiB") || ascii::iequals(unit, "MB") || unit == "M") {
      scale = 1024.0 * 1024;
    } else if (ascii::iequals(unit, "GiB") || ascii::iequals(unit, "GB") || unit == "G") {
      scale = 1024.0 * 1024 * 1024;
    } else {
      return fail("unknown unit " + quote(unit) + ": " + metric_name(t.metric) +
                  " takes B, KiB, MiB or GiB" +
                  (t.metric == SloMetric::kServerRssGrowth ? " per hour (10MiB/h)" : ""));
    }
    t.limit = number * scale;
    return ok_status();
  }

  Status check_combination(const SloThreshold& t) const {
    if (slo_names::is_server_metric(t.metric) && !t.tag.empty()) {
      return fail(std::string(metric_name(t.metric)) +
                  " is the server's (--monitor), not a tag's: drop the filter");
    }
    if (!t.tag.empty()) {
      if (t.is_distribution() && t.metric != SloMetric::kLatency) {
        return fail(std::string("per-tag thresholds have latency but not ") +
                    metric_name(t.metric) +
                    " (tags keep latency, error_rate, rps, requests and "
                    "errors)");
      }
      if (t.windowed()) {
        return fail(
            "per-tag thresholds are whole-run only (the time series has no per-tag "
            "windows): drop \"over\"/\"for\"");
      }
    }
    if (t.windowed() && !slo_metric_in_windows(t.metric)) {
      return fail(std::string(metric_name(t.metric)) +
                  " has no per-window data: \"over\" and \"for\" take latency, service, lag, "
                  "error_rate, rps, requests and errors");
    }
    return ok_status();
  }

  std::string_view text_;
};

}  // namespace

Result<SloThreshold> parse_slo(std::string_view text) {
  return Parser(text).run();
}

}  // namespace hail
