// Fuzzes parse_url_mix and what is built on its result: it never crashes, errors are one printable
// line naming the file, accepted lines are well-formed with unique labels, round-robin counts are
// exact over a cycle, and every host gets a connection when there are enough.
// Input: byte 0 picks whether a base URL is given (bit 0) and the connection count (the rest).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.h"
#include "load/url_mix.h"

namespace {

void check(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_urls: %s for input %s\n", what, hail::quote(input).c_str());
  std::abort();
}

bool is_one_printable_line(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return !s.empty();
}

uint64_t millionths(double weight) {
  return static_cast<uint64_t>(std::llround(weight * 1e6));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t control = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const hail::Url base = hail::parse_url("http://base.test:8080/").value();
  auto parsed = hail::parse_url_mix(input, "dir/urls.txt", (control & 1) ? &base : nullptr);
  if (!parsed) {
    const std::string& message = parsed.error().message;
    check(is_one_printable_line(message), "error is not one printable line", input);
    check(message.starts_with("dir/urls.txt:"), "error does not name the file", input);
    return 0;
  }
  const std::vector<hail::MixLine>& lines = parsed.value();
  check(!lines.empty() && lines.size() <= hail::kMaxMixLines, "line count", input);
  std::set<std::string> labels;
  uint32_t previous_line = 0;
  std::vector<double> weights;
  for (const hail::MixLine& l : lines) {
    check(l.weight > 0 && l.weight <= hail::kMaxMixWeight, "weight out of range", input);
    check(std::fabs(static_cast<double>(millionths(l.weight)) - l.weight * 1e6) < 1e-3,
          "weight has more than 6 decimals", input);
    check(hail::validate_method(l.method).ok(), "invalid method accepted", input);
    check(l.url.scheme == "http" || l.url.scheme == "https", "bad scheme", input);
    check(!l.url.host.empty() && l.url.port != 0, "bad host or port", input);
    check(!l.url.path.empty() && l.url.path[0] == '/', "path does not start with '/'", input);
    check(l.url.path.find('#') == std::string::npos, "fragment kept", input);
    for (char c : l.url.path) check(c > 0x20 && c < 0x7f, "space or control in path", input);
    check(l.line > previous_line, "line numbers not increasing", input);
    previous_line = l.line;
    check(l.label.starts_with(l.method + " "), "label does not start with the method", input);
    check(labels.insert(l.label).second, "duplicate label", input);
    check(l.body.empty(), "parse read a body", input);
    check(l.body_path.empty() || l.body_path.starts_with("dir/") || l.body_path[0] == '/',
          "body path not relative to the file's directory", input);
    weights.push_back(l.weight);
  }

  hail::MixChooser random_order(weights, hail::MixOrder::kRandom, size);
  for (int i = 0; i < 64; ++i)
    check(random_order.next() < weights.size(), "random pick range", input);
  hail::MixChooser round_robin(weights, hail::MixOrder::kRoundRobin, 0);
  const uint64_t cycle = round_robin.cycle_length();
  if (cycle <= 20'000) {
    std::vector<uint64_t> counts(weights.size());
    for (uint64_t i = 0; i < cycle; ++i) ++counts[round_robin.next()];
    // counts_i / cycle == w_i / sum(w), in integers.
    uint64_t total = 0;
    for (double w : weights) total += millionths(w);
    for (size_t i = 0; i < weights.size(); ++i) {
      check(static_cast<unsigned __int128>(counts[i]) * total ==
                static_cast<unsigned __int128>(cycle) * millionths(weights[i]),
            "round-robin counts not proportional over a cycle", input);
    }
  }

  std::vector<hail::HostGroup> groups = hail::group_by_host(lines);
  size_t grouped = 0;
  for (const hail::HostGroup& g : groups) grouped += g.lines.size();
  check(grouped == lines.size(), "grouping lost lines", input);
  const uint32_t connections = static_cast<uint32_t>(groups.size()) + (control >> 1);
  check(hail::split_connections(groups, connections).ok(), "split failed", input);
  uint64_t sum = 0;
  for (const hail::HostGroup& g : groups) {
    check(g.connections >= 1, "a host without a connection", input);
    sum += g.connections;
  }
  check(sum == connections, "connections lost in the split", input);
  check(!hail::split_connections(groups, static_cast<uint32_t>(groups.size()) - 1).ok(),
        "too few connections accepted", input);
  return 0;
}
