// BlockCache: reuse by size class, malloc's contracts (alignment, zeroing, realloc keeping the
// old block on failure paths), the bound on what it keeps, and large blocks passed through.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "http/block_cache.h"

namespace hail {
namespace {

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

TEST(BlockCache, ReleasedBlockServesTheNextRequestOfItsClass) {
  BlockCache cache;
  void* a = cache.allocate(100);
  ASSERT_NE(a, nullptr);
  std::memset(a, 0xab, 100);
  cache.release(a);
  EXPECT_EQ(cache.cached_blocks(), 1u);
  // 100 and 128 round up to the same 128-byte class; 129 does not.
  void* c = cache.allocate(129);
  EXPECT_NE(c, a);
  void* b = cache.allocate(128);
  EXPECT_EQ(b, a);
  EXPECT_EQ(cache.cached_blocks(), 0u);
  EXPECT_EQ(cache.malloc_calls(), 2u);  // a and c; b came from the cache
  cache.release(b);
  cache.release(c);
}

TEST(BlockCache, EveryClassAndLargeBlockIsAlignedAndUsable) {
  BlockCache cache;
  std::vector<void*> blocks;
  for (size_t bytes :
       {size_t{0}, size_t{1}, size_t{15}, size_t{64}, size_t{65}, size_t{2047},
        BlockCache::kMaxCachedBytes, BlockCache::kMaxCachedBytes + 1, size_t{1} << 20}) {
    void* p = cache.allocate(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_TRUE(aligned16(p)) << bytes;
    std::memset(p, 0x5a, bytes);  // ASan: the whole size is ours
    blocks.push_back(p);
  }
  for (void* p : blocks) cache.release(p);
  cache.release(nullptr);
  // Large blocks went back to malloc; the seven class-sized ones wait.
  EXPECT_EQ(cache.cached_blocks(), 7u);
}

TEST(BlockCache, ZeroedEvenWhenReused) {
  BlockCache cache;
  auto* dirty = static_cast<unsigned char*>(cache.allocate(200));
  std::memset(dirty, 0xff, 200);
  cache.release(dirty);
  auto* z = static_cast<unsigned char*>(cache.allocate_zeroed(50, 4));
  ASSERT_EQ(static_cast<void*>(z), static_cast<void*>(dirty));
  for (int i = 0; i < 200; ++i) ASSERT_EQ(z[i], 0) << i;
  cache.release(z);
  EXPECT_EQ(cache.allocate_zeroed(SIZE_MAX / 2, 3), nullptr);  // count * size overflows
}

TEST(BlockCache, ReallocateKeepsTheContents) {
  BlockCache cache;
  auto* p = static_cast<char*>(cache.reallocate(nullptr, 10));  // like allocate
  ASSERT_NE(p, nullptr);
  std::memcpy(p, "0123456789", 10);
  EXPECT_EQ(cache.reallocate(p, 60), p);                    // still fits its 64-byte class
  auto* q = static_cast<char*>(cache.reallocate(p, 5000));  // grows into a large block
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::memcmp(q, "0123456789", 10), 0);
  EXPECT_EQ(cache.cached_blocks(), 1u);  // the old block
  auto* r = static_cast<char*>(cache.reallocate(q, 6000));
  EXPECT_EQ(std::memcmp(r, "0123456789", 10), 0);
  cache.release(r);
  EXPECT_EQ(cache.cached_blocks(), 1u);
}

TEST(BlockCache, KeepsAtMostItsBoundAndTheRestGoesBackToMalloc) {
  BlockCache cache;
  std::vector<void*> blocks;
  const size_t n = 2 * BlockCache::kMaxFreeBytes / BlockCache::kMaxCachedBytes;
  for (size_t i = 0; i < n; ++i) blocks.push_back(cache.allocate(BlockCache::kMaxCachedBytes));
  for (void* p : blocks) cache.release(p);
  EXPECT_EQ(cache.cached_bytes(), BlockCache::kMaxFreeBytes);
  EXPECT_EQ(cache.cached_blocks(), n / 2);
  // The bound is on bytes over all classes: a small block finds no room either.
  void* small = cache.allocate(10);
  cache.release(small);
  EXPECT_EQ(cache.cached_bytes(), BlockCache::kMaxFreeBytes);
}

}  // namespace
}  // namespace hail
