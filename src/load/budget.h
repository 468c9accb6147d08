// RequestBudget: a worker's share of -n (an exact number of measured requests), shared by every
// load model: requests are taken from it when granted and returned as outcomes, and it says when
// the last one is done. Warm-up requests never touch it. Owned by one Pacer; its thread only. Pure.
#pragma once

#include <cstdint>

namespace hail {

class RequestBudget {
 public:
  RequestBudget() = default;  // unlimited
  explicit RequestBudget(uint64_t requests) : limited_(true), left_(requests) {}

  bool limited() const { return limited_; }
  // Measured requests not granted yet (unlimited: never 0).
  uint64_t left() const { return limited_ ? left_ : UINT64_MAX; }
  // Grants one measured request; false when the share is spent.
  bool take() {
    if (limited_) {
      if (left_ == 0) return false;
      --left_;
    }
    ++outstanding_;
    return true;
  }
  // A measured request's outcome. True when that was the last one: every request of the share was
  // granted and has its outcome, so the worker's run is over.
  bool on_outcome() {
    --outstanding_;
    return done();
  }
  bool done() const { return limited_ && left_ == 0 && outstanding_ == 0; }
  // Room for one more connection to be opened: the ones connecting will each take a request.
  bool room_for_connection(uint64_t connecting) const { return !limited_ || left_ > connecting; }

 private:
  bool limited_ = false;
  uint64_t left_ = 0;
  uint64_t outstanding_ = 0;  // granted measured requests without an outcome yet
};

}  // namespace hail
