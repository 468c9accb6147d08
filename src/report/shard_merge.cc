#include "report/shard_merge.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/strings.h"
#include "core/units.h"
#include "load/shard.h"
#include "report/json_shard.h"

namespace hail {

namespace {

std::string ms_text(uint64_t ns) {
  return string_printf("%.1f ms", static_cast<double>(ns) / 1e6);
}

// Whole numbers as integers ("1000"), others with two decimals ("333.33").
std::string amount_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return string_printf("%.0f", v);
  return string_printf("%.2f", v);
}

std::string shard_text(const RunResult& r) {
  return is_shard(r) && r.shard_count > 1
             ? "shard " + std::to_string(r.shard_index) + " of " + std::to_string(r.shard_count)
             : "not a shard";
}

// When the shard's load really started: the instant asked for plus how late it was, or (without
// --start-at) its own start.
uint64_t actual_start_ns(const RunResult& r) {
  return r.start_at_unix_ns != 0 ? r.start_at_unix_ns + r.start_late_ns : r.start_unix_ns;
}

std::string skew_note(const ShardSummary& s) {
  const auto latest = std::max_element(
      s.inputs.begin(), s.inputs.end(),
      [](const ShardInput& a, const ShardInput& b) { return a.start_unix_ns < b.start_unix_ns; });
  std::string line = "shards started within " + ms_text(s.start_skew_ns) +
                     " of each other (latest: shard " + std::to_string(latest->index);
  if (s.start_at) line += ", " + ms_text(latest->late_ns) + " after --start-at";
  return line + ")";
}

// Interrupted shards, and (in runs bounded by -d) shards that measured under 90% of the longest.
void note_cut_short(const std::vector<MergeInput>& inputs, const std::vector<size_t>& members,
                    std::vector<std::string>& notes) {
  uint64_t longest = 0;
  for (size_t i : members) longest = std::max(longest, inputs[i].document.result.duration_ns);
  for (size_t i : members) {
    const RunResult& r = inputs[i].document.result;
    const std::string who = "shard " + std::to_string(r.shard_index) + " (" + inputs[i].name + ")";
    const std::string ran = format_duration_ns(static_cast<double>(r.duration_ns));
    if (r.interrupted) {
      notes.push_back(who + " was interrupted after " + ran);
    } else if (r.duration_target_ns != 0 && r.duration_ns / 9 < longest / 10) {
      notes.push_back(who + " measured " + ran + ", the longest shard " +
                      format_duration_ns(static_cast<double>(longest)));
    }
  }
}

}  // namespace

NotOffered not_offered_load(const RunResult& reference, uint32_t count,
                            const std::vector<uint32_t>& missing) {
  NotOffered out;
  if (count == 0 || missing.empty()) return out;
  const auto slices = [&](uint64_t total) {
    uint64_t sum = 0;
    for (uint32_t i : missing) sum += slice_share(total, count, i);
    return static_cast<double>(sum);
  };
  const double m = static_cast<double>(missing.size());
  const double n = static_cast<double>(count);
  if (reference.whole_requests > 0) {
    out.unit = "requests";
    out.whole = static_cast<double>(reference.whole_requests);
    out.amount = slices(reference.whole_requests);
  } else if (reference.whole_rate_per_s > 0) {
    out.unit = "req/s";
    out.whole = reference.whole_rate_per_s;
    out.amount = reference.whole_rate_per_s * m / n;
  } else if (reference.whole_connections > 0) {
    out.unit = "connections";
    out.whole = reference.whole_connections;
    out.amount = slices(reference.whole_connections);
  } else {
    out.unit = "shards";
    out.whole = n;
    out.amount = m;
  }
  out.share = out.amount / out.whole;
  return out;
}

std::string missing_shards_text(uint32_t count, const std::vector<uint32_t>& missing,
                                const NotOffered& lost) {
  std::string list;
  for (uint32_t i : missing) list += (list.empty() ? "" : ", ") + std::to_string(i);
  return string_printf("shard%s %s of %u missing: %.1f%% of the load was not offered (%s of %s %s)",
                       missing.size() == 1 ? "" : "s", list.c_str(), count, lost.share * 100,
                       amount_text(lost.amount).c_str(), amount_text(lost.whole).c_str(),
                       lost.unit.c_str());
}

Result<std::optional<ShardCheck>> check_shards(const std::vector<MergeInput>& inputs) {
  const auto first = std::find_if(inputs.begin(), inputs.end(), [](const MergeInput& in) {
    return in.document.result.shard_count > 1;
  });
  if (first == inputs.end()) return std::optional<ShardCheck>();
  const RunResult& ref = first->document.result;
  ShardCheck check;
  ShardSummary& s = check.summary;
  s.count = ref.shard_count;

  std::vector<size_t> members;  // inputs counted as shards of the test, in input order
  std::map<uint32_t, size_t> by_index;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MergeInput& in = inputs[i];
    const RunResult& r = in.document.result;
    if (r.shard_count != ref.shard_count) {
      check.warnings.push_back(in.name + " is " + shard_text(r) + ", " + first->name + " " +
                               shard_text(ref) + ": not one test (merged, not counted as a shard)");
      continue;
    }
    if (r.run_id != ref.run_id) {
      check.warnings.push_back(in.name + " has run id " + quote(r.run_id) + ", " + first->name +
                               " " + quote(ref.run_id) + ": not one test?");
    }
    const auto [at, fresh] = by_index.emplace(r.shard_index, i);
    if (!fresh) {
      return make_error(inputs[at->second].name + " and " + in.name + " are both " + shard_text(r) +
                        ": its load would count twice (merge one of them)");
    }
    members.push_back(i);
  }

  for (uint32_t k = 0; k < s.count; ++k) {
    (by_index.contains(k) ? s.present : s.missing).push_back(k);
  }
  const NotOffered lost = not_offered_load(ref, s.count, s.missing);
  s.not_offered_share = lost.share;
  s.not_offered_amount = lost.amount;
  s.whole_amount = lost.whole;
  s.unit = lost.unit;

  uint64_t earliest = 0, latest = 0;
  for (size_t i : members) {
    const RunResult& r = inputs[i].document.result;
    s.start_at = s.start_at || r.start_at_unix_ns != 0;
    const uint64_t start = actual_start_ns(r);
    s.inputs.push_back(ShardInput{r.shard_index, inputs[i].name, start,
                                  r.start_at_unix_ns != 0 ? r.start_late_ns : 0, r.duration_ns,
                                  r.interrupted});
    earliest = s.inputs.size() == 1 ? start : std::min(earliest, start);
    latest = std::max(latest, start);
  }
  s.start_skew_ns = latest - earliest;

  if (s.inputs.size() > 1) check.notes.push_back(skew_note(s));
  if (!s.missing.empty()) {
    const std::string line = missing_shards_text(s.count, s.missing, lost);
    check.notes.push_back(line);
    check.warnings.push_back(line);
  }
  note_cut_short(inputs, members, check.notes);
  return std::optional<ShardCheck>(std::move(check));
}

}  // namespace hail
