// BlockCache: a 16-byte header before each block records its size class (or kLarge), because
// free() is not told the size. A class's blocks are all the same size, so any cached block of a
// class serves any request that rounds up to it.
#include "http/block_cache.h"

#include <cstdlib>
#include <cstring>

namespace hail {

namespace {

constexpr size_t kHeaderBytes = 16;  // keeps the block after it 16-byte aligned
constexpr uint32_t kLarge = UINT32_MAX;

struct Header {
  uint32_t size_class;  // index, or kLarge: allocated for exactly its size, never cached
  uint32_t unused;
  size_t bytes;  // what the block can hold (the class's size, or the large request)
};
static_assert(sizeof(Header) <= kHeaderBytes);

Header* header_of(void* block) {
  return reinterpret_cast<Header*>(static_cast<char*>(block) - kHeaderBytes);
}

void* from_malloc(uint32_t size_class, size_t bytes) {
  if (bytes > SIZE_MAX - kHeaderBytes) return nullptr;
  void* raw = std::malloc(kHeaderBytes + bytes);
  if (raw == nullptr) return nullptr;
  auto* header = static_cast<Header*>(raw);
  header->size_class = size_class;
  header->bytes = bytes;
  return static_cast<char*>(raw) + kHeaderBytes;
}

}  // namespace

BlockCache::~BlockCache() {
  for (FreeBlock* head : free_) {
    while (head != nullptr) {
      FreeBlock* next = head->next;
      std::free(header_of(head));
      head = next;
    }
  }
}

void* BlockCache::allocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > kMaxCachedBytes) {
    ++malloc_calls_;
    return from_malloc(kLarge, bytes);
  }
  const auto size_class = static_cast<uint32_t>((bytes - 1) / kGranuleBytes);
  if (FreeBlock* block = free_[size_class]) {
    free_[size_class] = block->next;
    free_bytes_ -= (size_class + 1) * kGranuleBytes;
    return block;
  }
  ++malloc_calls_;
  return from_malloc(size_class, (size_class + 1) * kGranuleBytes);
}

void* BlockCache::allocate_zeroed(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* block = allocate(count * size);
  if (block != nullptr) std::memset(block, 0, count * size);
  return block;
}

void* BlockCache::reallocate(void* block, size_t bytes) {
  if (block == nullptr) return allocate(bytes);
  const size_t held = header_of(block)->bytes;
  if (bytes <= held) return block;
  void* moved = allocate(bytes);
  if (moved == nullptr) return nullptr;  // realloc's contract: the old block stays valid
  std::memcpy(moved, block, held);
  release(block);
  return moved;
}

void BlockCache::release(void* block) {
  if (block == nullptr) return;
  Header* header = header_of(block);
  const uint32_t size_class = header->size_class;
  if (size_class == kLarge || free_bytes_ + header->bytes > kMaxFreeBytes) {
    std::free(header);
    return;
  }
  auto* entry = static_cast<FreeBlock*>(block);
  entry->next = free_[size_class];
  free_[size_class] = entry;
  free_bytes_ += header->bytes;
}

size_t BlockCache::cached_blocks() const {
  size_t total = 0;
  for (const FreeBlock* head : free_) {
    for (; head != nullptr; head = head->next) ++total;
  }
  return total;
}

}  // namespace hail
