// TagTable: request outcomes split by tag — one tag per --urls line (its label) or per Lua
// hail.tag(name) — for the per-tag table of the reports. Each worker owns one and is its only
// writer, like its Recorder; RunResult::add_tags merges it by name after the worker has stopped.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stats/error_class.h"
#include "stats/histogram.h"
#include "stats/status_counts.h"

namespace hail {

class TagTable {
 public:
  // A tag costs its latency histogram (264 KiB of address space, resident only where written:
  // ~50 KiB for latencies between 20 us and 2 ms) and its status counts (800 bytes per hundred of
  // codes seen). So that a script that tags by user id cannot grow a worker without bound, names
  // past the 64th share one "(other)" tag.
  static constexpr size_t kMaxNamedTags = 64;
  static constexpr uint16_t kOtherTag = static_cast<uint16_t>(kMaxNamedTags);
  static constexpr std::string_view kOtherName = "(other)";
  static constexpr int kMaxStatus = StatusCounts::kMaxStatus;  // as Recorder: others have no code

  struct Tag {
    std::string name;
    uint64_t completed = 0;  // full responses, whatever their status
    std::array<uint64_t, kErrorClassCount> errors{};
    StatusCounts status_counts;  // exact per code
    Histogram latency;
  };

  TagTable() = default;
  TagTable(const TagTable&) = delete;
  TagTable& operator=(const TagTable&) = delete;
  TagTable(TagTable&&) = default;
  TagTable& operator=(TagTable&&) = default;

  // The tag of `name`: ids count from 0 in interning order, so --urls lines interned in file order
  // get their line index. Allocates only the first time a name is seen (or "(other)" is first
  // needed); later lookups compare a hash, then the name.
  uint16_t intern(std::string_view name);

  // A tag that was never interned (a worker's "no tag" marker, e.g. 0xFFFF) is ignored, so callers
  // need no branch of their own.
  void on_complete(uint16_t tag, int status, uint64_t latency_ns) {
    if (tag >= tags_.size()) return;
    Tag& t = *tags_[tag];
    ++t.completed;
    if (status >= 0 && status <= kMaxStatus) t.status_counts.add(status);
    t.latency.record(latency_ns);
  }
  void on_error(uint16_t tag, ErrorClass c) {
    if (tag >= tags_.size()) return;
    ++tags_[tag]->errors[static_cast<size_t>(c)];
  }

  size_t size() const { return tags_.size(); }
  bool empty() const { return tags_.empty(); }
  // In id order; tag(id) for id < size().
  const Tag& tag(uint16_t id) const { return *tags_[id]; }

 private:
  static uint64_t hash(std::string_view name);

  // Behind pointers: tag() hands out references that must survive interning more names.
  std::vector<std::unique_ptr<Tag>> tags_;
  std::vector<uint64_t> hashes_;  // per id
};

}  // namespace hail
