#include "stats/tag_stats.h"

namespace hail {

uint64_t TagTable::hash(std::string_view name) {
  // FNV-1a: cheap on short names, and enough to skip almost every string compare.
  uint64_t h = 0xcbf29ce484222325;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3;
  }
  return h;
}

uint16_t TagTable::intern(std::string_view name) {
  const uint64_t h = hash(name);
  for (size_t i = 0; i < kMaxNamedTags && i < tags_.size(); ++i) {
    if (hashes_[i] == h && tags_[i]->name == name) return static_cast<uint16_t>(i);
  }
  if (tags_.size() >= kMaxNamedTags) {
    if (tags_.size() == kMaxNamedTags) {
      tags_.push_back(std::make_unique<Tag>());
      tags_.back()->name = std::string(kOtherName);
      hashes_.push_back(hash(kOtherName));
    }
    return kOtherTag;
  }
  tags_.push_back(std::make_unique<Tag>());
  tags_.back()->name = std::string(name);
  hashes_.push_back(h);
  return static_cast<uint16_t>(tags_.size() - 1);
}

}  // namespace hail
