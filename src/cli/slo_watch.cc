#include "cli/slo_watch.h"

namespace hail {

SloWatch::SloWatch(const std::vector<std::string>& thresholds) {
  std::vector<SloThreshold> parsed;
  for (const std::string& text : thresholds) {
    if (auto t = parse_slo(text)) parsed.push_back(std::move(t.value()));
  }
  if (!parsed.empty()) evaluator_.emplace(std::move(parsed));
}

std::optional<std::string> SloWatch::check(const std::vector<WindowStats>& windows,
                                           uint32_t workers) {
  if (!evaluator_) return std::nullopt;
  // In order, and only whole windows: a window still missing a worker's share would judge a part.
  while (fed_ < windows.size() && windows[fed_].sources >= workers) {
    evaluator_->add_window(windows[fed_]);
    ++fed_;
  }
  if (auto stop = evaluator_->abort()) return stop->reason;
  return std::nullopt;
}

}  // namespace hail
