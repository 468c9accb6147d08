#include "unit/http/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace hail::test {
namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void count_allocations(bool on) {
  g_counting.store(on, std::memory_order_relaxed);
}

uint64_t allocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace hail::test

// Not inlined: GCC would otherwise pair its own operator new with this free() and warn.
__attribute__((noinline)) void* operator new(size_t bytes) {
  if (hail::test::g_counting.load(std::memory_order_relaxed)) {
    hail::test::g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void* p) noexcept {
  std::free(p);
}
__attribute__((noinline)) void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
