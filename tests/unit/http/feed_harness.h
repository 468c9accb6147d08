// Split-invariance check for the response parser: the same stream delivered whole, at every split,
// one byte at a time and in random pieces (all next to a guard page), with and without skipping
// body bytes, must give the same trace. Test-only (gtest); single-threaded.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "unit/http/response_trace.h"

namespace hail::test {

// Runs `input` whole, cut at every offset (sampled for long inputs), one byte at a time and at a
// few random multi-piece splits, with and without skipping body bytes: every run must give
// `expected`.
inline void check_every_split(const std::string& input, FeedOptions opt, const Trace& expected) {
  std::vector<std::string> violations;
  const Trace whole = run_parser(input, {}, opt, &violations);
  EXPECT_EQ(whole, expected) << "whole input";
  const size_t n = input.size();
  const size_t step = n <= 4096 ? 1 : n / 1024 + 1;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      if (opt.capture) break;  // capture keeps every byte; skipping is off then anyway
      opt.skip = true;
      EXPECT_EQ(run_parser(input, {}, opt, &violations), expected) << "whole input, skipping";
    }
    const char* mode = pass == 0 ? "" : " (skipping body bytes)";
    for (size_t i = 1; i < n; i += step) {
      Trace t = run_parser(input, {i}, opt, &violations);
      if (!(t == whole)) {
        ADD_FAILURE() << "split at " << i << mode << ": " << t << "\n  whole: " << whole;
        break;
      }
    }
    std::vector<size_t> bytes(n > 0 ? n - 1 : 0);
    std::iota(bytes.begin(), bytes.end(), size_t{1});
    EXPECT_EQ(run_parser(input, bytes, opt, &violations), whole) << "one byte at a time" << mode;
    std::mt19937 rng(12345);
    for (int r = 0; r < 20 && n > 2; ++r) {
      std::vector<size_t> cuts;
      for (int k = 0; k < 4; ++k) cuts.push_back(1 + rng() % (n - 1));
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      EXPECT_EQ(run_parser(input, cuts, opt, &violations), whole) << "random split" << mode;
    }
  }
  EXPECT_TRUE(violations.empty()) << violations.size() << " contract violations, first: "
                                  << (violations.empty() ? "" : violations.front());
}

}  // namespace hail::test
