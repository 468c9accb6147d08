// BlockCache: keeps the heap blocks a library frees, by size class, and hands them back on its
// next allocations, so that a library that allocates per request (nghttp2: the stream, its
// outbound item, each decoded header's buffer) costs no malloc/free in steady state. Shared by the
// HTTP/2 sessions of one worker (its SessionFactory makes them), so what one connection frees, the
// next one reuses while it is still in cache. That worker's thread only; no locks.
//
// Written by hand because no Debian allocator is per-object: jemalloc or tcmalloc would replace
// malloc for the whole process (a larger baseline RSS) to save what a free list per class saves.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace hail {

class BlockCache {
 public:
  // Blocks up to this size are cached (in kClassCount classes of kGranuleBytes); larger ones go
  // straight to malloc/free.
  static constexpr size_t kGranuleBytes = 64;
  static constexpr size_t kClassCount = 32;
  static constexpr size_t kMaxCachedBytes = kGranuleBytes * kClassCount;
  // At most this much waits in free blocks: frees beyond it go back to malloc, so the cache holds
  // a bounded working set, never the peak of its history.
  static constexpr size_t kMaxFreeBytes = 512 * 1024;

  BlockCache() = default;
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache();

  // malloc/calloc/realloc/free semantics (nullptr on exhaustion; release(nullptr) does nothing).
  // Every block comes 16-byte aligned, like malloc's.
  void* allocate(size_t bytes);
  void* allocate_zeroed(size_t count, size_t size);
  void* reallocate(void* block, size_t bytes);
  void release(void* block);

  // Free blocks currently cached (counted by walking the lists), and the bytes they can hold
  // (tests).
  size_t cached_blocks() const;
  size_t cached_bytes() const { return free_bytes_; }
  // Allocations that had to go to malloc: flat in steady state (tests).
  uint64_t malloc_calls() const { return malloc_calls_; }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };

  std::array<FreeBlock*, kClassCount> free_{};
  size_t free_bytes_ = 0;
  uint64_t malloc_calls_ = 0;
};

}  // namespace hail
