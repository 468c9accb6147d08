// Counting replacement of the global operator new (allocation_counter.cc, linked into the test
// binaries that need it), for tests asserting that a steady-state path allocates nothing. Counting
// is off until a test turns it on, so that test servers and gtest allocate freely in between.
// Any thread: the switch and the count are atomics. nghttp2 and OpenSSL allocate with malloc,
// which this does not see.
#pragma once

#include <cstdint>

namespace hail::test {

void count_allocations(bool on);
uint64_t allocations();  // operator new calls made while counting was on

}  // namespace hail::test
