// StatusCounts: how many responses had each HTTP status code 0..999, in blocks of 100 codes
// allocated when a code of that hundred first occurs, so a tag that only sees 200 and 404 holds
// two 800-byte blocks instead of 8 KiB. One writer (its worker); read after the worker stopped.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace hail {

class StatusCounts {
 public:
  static constexpr int kMaxStatus = 999;

  // status in 0..kMaxStatus (callers skip the others). Allocates only for the first code of its
  // hundred; after that a count is one increment.
  void add(int status) {
    std::unique_ptr<Block>& block = blocks_[static_cast<size_t>(status) / kBlockCodes];
    if (block == nullptr) [[unlikely]] {
      block = std::make_unique<Block>();
    }
    ++(*block)[static_cast<size_t>(status) % kBlockCodes];
  }
  uint64_t operator[](size_t status) const {
    const std::unique_ptr<Block>& block = blocks_[status / kBlockCodes];
    return block == nullptr ? 0 : (*block)[status % kBlockCodes];
  }
  // Calls f(code, count) for every code seen, in increasing order.
  template <class F>
  void for_each(F f) const {
    for (size_t b = 0; b < kBlocks; ++b) {
      if (blocks_[b] == nullptr) continue;
      for (size_t i = 0; i < kBlockCodes; ++i) {
        if ((*blocks_[b])[i] != 0) f(static_cast<int>(b * kBlockCodes + i), (*blocks_[b])[i]);
      }
    }
  }

 private:
  static constexpr size_t kBlockCodes = 100;
  static constexpr size_t kBlocks = (kMaxStatus + 1) / kBlockCodes;
  using Block = std::array<uint64_t, kBlockCodes>;
  std::array<std::unique_ptr<Block>, kBlocks> blocks_;
};

}  // namespace hail
