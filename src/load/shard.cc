#include "load/shard.h"

#include <cctype>
#include <cstdlib>

#include "core/units.h"

namespace hail {
namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000ull;

std::optional<uint64_t> parse_u64(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse, by eras of
// 400 years so that no table is needed).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// Digits at [pos, pos+n) of s as a number, or -1.
int64_t digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return -1;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// ".123456789" (1-9 digits) at pos: ns, and the position after it.
std::optional<uint64_t> fraction_ns(std::string_view s, size_t* pos) {
  if (*pos >= s.size() || s[*pos] != '.') return 0;
  size_t i = *pos + 1;
  uint64_t ns = 0;
  uint64_t scale = kNsPerSecond;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (scale > 1) {
      scale /= 10;
      ns += static_cast<uint64_t>(s[i] - '0') * scale;
    }
    ++i;
  }
  if (i == *pos + 1) return std::nullopt;
  *pos = i;
  return ns;
}

std::optional<uint64_t> parse_rfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  const int64_t y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2);
  const int64_t h = digits(s, 11, 2), mi = digits(s, 14, 2), sec = digits(s, 17, 2);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 ||
      sec > 60) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int64_t month_days = kDays[mo - 1] + (mo == 2 && leap(y) ? 1 : 0);
  if (d > month_days) return std::nullopt;
  size_t pos = 19;
  const std::optional<uint64_t> frac = fraction_ns(s, &pos);
  if (!frac) return std::nullopt;
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int64_t oh = digits(s, pos + 1, 2), om = digits(s, pos + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59 || pos + 3 >= s.size() || s[pos + 3] != ':') {
      return std::nullopt;
    }
    offset_s = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;  // RFC 3339 needs the offset: a local time would differ per machine
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t unix_s =
      days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
      mi * 60 + std::min<int64_t>(sec, 59) - offset_s;
  if (unix_s < 0) return std::nullopt;
  return static_cast<uint64_t>(unix_s) * kNsPerSecond + *frac;
}

std::optional<uint64_t> parse_unix_seconds(std::string_view s) {
  const size_t dot = s.find('.');
  const std::optional<uint64_t> whole = parse_u64(s.substr(0, dot));
  if (!whole || *whole > 1'000'000'000'000ull) return std::nullopt;  // far past year 9999
  size_t pos = dot == std::string_view::npos ? s.size() : dot;
  const std::optional<uint64_t> frac = fraction_ns(s, &pos);
  if (!frac || pos != s.size()) return std::nullopt;
  const uint64_t ns = *whole * kNsPerSecond + *frac;
  if (ns > 253402300799ull * kNsPerSecond) return std::nullopt;
  return ns;
}

std::optional<uint64_t> parse_instant(std::string_view s) {
  if (s.find('-') != std::string_view::npos && s.size() >= 20) return parse_rfc3339(s);
  return parse_unix_seconds(s);
}

// rank/size variables of one engine: nullopt when the rank is not set.
Result<std::optional<ShardSpec>> from_pair(const EnvLookup& env, const char* rank_name,
                                           const char* size_name, const char* source) {
  const std::optional<std::string> rank = env(rank_name);
  if (!rank) return std::optional<ShardSpec>{};
  const std::optional<std::string> size = env(size_name);
  if (!size) {
    return make_error(std::string(rank_name) + " is set but " + size_name +
                      " is not: cannot tell how many shards there are");
  }
  const std::optional<uint64_t> i = parse_u64(*rank);
  const std::optional<uint64_t> n = parse_u64(*size);
  if (!n || *n == 0 || *n > kMaxShards) {
    return make_error(std::string(size_name) + "='" + *size + "' is not a shard count (1.." +
                      std::to_string(kMaxShards) + ")");
  }
  if (!i || *i >= *n) {
    return make_error(std::string(rank_name) + "='" + *rank + "' is not a shard index below " +
                      size_name + "=" + std::to_string(*n));
  }
  return std::optional<ShardSpec>(
      ShardSpec{static_cast<uint32_t>(*i), static_cast<uint32_t>(*n), source});
}

}  // namespace

Result<ShardSpec> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  const auto bad = [&](const std::string& why) {
    return make_error("--shard '" + std::string(text) + "': " + why);
  };
  if (slash == std::string_view::npos) return bad("expected I/N, e.g. 0/4 (I counts from 0)");
  const std::optional<uint64_t> i = parse_u64(text.substr(0, slash));
  const std::optional<uint64_t> n = parse_u64(text.substr(slash + 1));
  if (!i || !n) return bad("expected I/N with whole numbers, e.g. 0/4");
  if (*n == 0 || *n > kMaxShards) {
    return bad("N must be 1.." + std::to_string(kMaxShards));
  }
  if (*i >= *n) return bad("I counts from 0 and must be below N");
  return ShardSpec{static_cast<uint32_t>(*i), static_cast<uint32_t>(*n), "--shard"};
}

EnvLookup process_env() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<std::optional<ShardSpec>> detect_shard(const EnvLookup& env, uint32_t shards) {
  struct Engine {
    const char* rank;
    const char* size;
    const char* source;
  };
  static constexpr Engine kEngines[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
      {"PMI_RANK", "PMI_SIZE", "PMI"},
      {"SLURM_PROCID", "SLURM_NTASKS", "Slurm"},
  };
  for (const Engine& e : kEngines) {
    auto found = from_pair(env, e.rank, e.size, e.source);
    if (!found) return found.error();
    if (found.value()) return found;
  }
  const std::optional<std::string> index = env("JOB_COMPLETION_INDEX");
  if (!index) return std::optional<ShardSpec>{};
  uint64_t n = shards;
  if (n == 0) {
    const std::optional<std::string> from_env = env("HAIL_SHARDS");
    if (!from_env) {
      return make_error(
          "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the shard count is not: "
          "give --shards N or HAIL_SHARDS (the Job's completions)");
    }
    const std::optional<uint64_t> parsed = parse_u64(*from_env);
    if (!parsed || *parsed == 0 || *parsed > kMaxShards) {
      return make_error("HAIL_SHARDS='" + *from_env + "' is not a shard count (1.." +
                        std::to_string(kMaxShards) + ")");
    }
    n = *parsed;
  }
  const std::optional<uint64_t> i = parse_u64(*index);
  if (!i || *i >= n) {
    return make_error("JOB_COMPLETION_INDEX='" + *index + "' is not a shard index below " +
                      std::to_string(n));
  }
  return std::optional<ShardSpec>(
      ShardSpec{static_cast<uint32_t>(*i), static_cast<uint32_t>(n), "Kubernetes"});
}

Result<uint64_t> parse_start_at(std::string_view text, const EnvLookup& env) {
  const auto bad = [&](const std::string& why) {
    return make_error("--start-at '" + std::string(text) + "': " + why);
  };
  if (!text.empty() && text[0] == '+') {
    auto offset = parse_duration_ns(text.substr(1));
    if (!offset) return bad(offset.error().message);
    const char* ref_name = "HAIL_START_REF";
    std::optional<std::string> ref = env(ref_name);
    if (!ref) {
      ref_name = "SLURM_JOB_START_TIME";
      ref = env(ref_name);
    }
    if (!ref) {
      return bad(
          "+DURATION counts from a shared reference: set HAIL_START_REF (Unix seconds or "
          "RFC 3339) in every shard's environment");
    }
    const std::optional<uint64_t> ref_ns = parse_instant(*ref);
    if (!ref_ns) {
      return bad(std::string(ref_name) + "='" + *ref +
                 "' is neither Unix seconds nor an RFC 3339 time");
    }
    return *ref_ns + offset.value();
  }
  const std::optional<uint64_t> at = parse_instant(text);
  if (!at) {
    return bad(
        "expected Unix seconds (1767225600.5), an RFC 3339 time with its offset "
        "(2026-12-02T12:00:00Z) or +DURATION");
  }
  return *at;
}

}  // namespace hail
