// Request mixes (--urls FILE): the urls file parsed into weighted request lines, the per-worker
// chooser that picks each request's line (--mix), and the split of connections across the hosts
// the lines name. Parsing and splitting are pure (read_url_mix_file alone reads files) and run once
// at setup; a MixChooser belongs to one worker and is touched only by that worker's thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/url.h"

namespace hail {

// More lines than this is a generated file gone wrong, not a mix anyone reads a table of.
inline constexpr size_t kMaxMixLines = 10'000;
inline constexpr double kMaxMixWeight = 1'000'000;
// Weights have at most 6 decimals, so that weight x 10^6 is an exact integer: the chooser and the
// connection split work on those integers, and round-robin counts come out exact.
inline constexpr int kMaxMixWeightDecimals = 6;

struct MixLine {
  double weight = 1;           // > 0, at most 6 decimals
  std::string method = "GET";  // as written; POST when only a body is given (as -m's default)
  Url url;                     // relative paths resolved against the base
  std::string body_path;       // @bodyfile resolved against the urls file's directory; "" = no body
  std::string body;            // its content (read_url_mix_file; parse_url_mix leaves it empty)
  uint32_t line = 0;           // 1-based line number in the urls file
  // "GET /a", "POST http://h:1/x": the method and the target as written; a later line with the
  // same label gets " (line N)" appended, so labels are unique and can name per-tag statistics.
  std::string label;
};

// Parses a urls file's content. One request per line: `[weight] [METHOD] URL-or-path [@bodyfile]`;
// `#` starts a comment at the start of a line or after whitespace (so `/a#frag` keeps its '#').
// file_name: named in every message ("urls.txt:3: bad weight ...") and the directory @bodyfile is
// relative to. base: the command-line URL, which paths starting with '/' are relative to; nullptr
// when none was given (then every line must be absolute, and the first line's URL is the run's).
// Bodies are not read here: body_path is set and body left empty.
Result<std::vector<MixLine>> parse_url_mix(std::string_view text, std::string_view file_name,
                                           const Url* base);

// Reads `path`, parses it and reads every body file (errors name the urls file's line).
Result<std::vector<MixLine>> read_url_mix_file(const std::string& path, const Url* base);

// --mix: random picks in proportion to the weights (the default), or a deterministic interleaving
// whose counts are exactly proportional over every cycle of sum(weights) picks.
enum class MixOrder : uint8_t { kRandom, kRoundRobin };

// "random" or "round-robin".
Result<MixOrder> parse_mix_order(std::string_view text);
const char* mix_order_name(MixOrder order);

// Picks each request's line among weighted lines. Construction allocates its tables; next() is
// O(1) (random: Vose's alias method) or O(log n) (round-robin) and never allocates. Weights are
// taken in millionths, rounded (so the 6-decimal weights of a urls file are exact); a weight below
// one millionth counts as one millionth.
//
// Round-robin serves line i for the k-th time at virtual time (k - 1/2) / w_i, earliest first
// (ties: the line listed first). That is nginx's smooth weighted round-robin in effect — within
// every cycle of W = sum(w) picks each line gets exactly w_i picks, spread evenly — without
// nginx's O(n) scan per pick, which a 10,000-line file would pay on every request.
class MixChooser {
 public:
  // weights must be non-empty. `seed` only matters for kRandom (give each worker its own).
  MixChooser(const std::vector<double>& weights, MixOrder order, uint64_t seed);

  // The index (into the weights) of the next request's line.
  uint32_t next() { return order_ == MixOrder::kRandom ? next_random() : next_strided(); }

  // From now on, pick only the picks index, index + count, index + 2 count, ... of the one
  // sequence a chooser of the same weights and seed makes: the workers of every shard, each
  // with its slice (RunPlan::slice) and one seed, pick together exactly the lines one chooser
  // would. Random picks jump there in O(1) (splitmix64 is a counter); round-robin skips the
  // others' picks, at most one cycle's worth. Call once, before the first next().
  void set_slice(uint64_t index, uint64_t count);

  MixOrder order() const { return order_; }
  size_t size() const { return weight_.size(); }
  // Picks per round-robin cycle: the sum of the weights in millionths, divided by their gcd.
  uint64_t cycle_length() const { return total_weight_; }

 private:
  uint32_t next_random();
  uint32_t next_round_robin();
  uint32_t next_strided();
  void skip_round_robin(uint64_t picks);
  uint64_t next_u64();
  // Round-robin heap order: line a's next virtual time is earlier than b's.
  bool earlier(uint32_t a, uint32_t b) const;
  void sift_down(size_t at);

  MixOrder order_;
  std::vector<uint64_t> weight_;  // in millionths, divided by their gcd
  uint64_t total_weight_ = 0;
  // Random: column -> (threshold, alias); a draw u in [0, total_weight_) keeps the column when
  // u < threshold, else takes its alias. Integer thresholds make the probabilities exact.
  std::vector<uint64_t> threshold_;
  std::vector<uint32_t> alias_;
  uint64_t rng_state_ = 0;
  uint64_t stride_ = 1;  // set_slice's count
  // Round-robin: picks so far per line, and a binary min-heap of lines by next virtual time.
  std::vector<uint64_t> picks_;
  std::vector<uint32_t> heap_;
};

// The lines that connect to one server (same scheme, host and port: host names compare without
// case), and the connections it gets.
struct HostGroup {
  std::string scheme;
  std::string host;  // lower case, without IPv6 brackets
  bool host_is_ipv6 = false;
  uint16_t port = 0;
  std::vector<uint32_t> lines;  // mix indices, in file order
  double weight = 0;            // sum over its lines
  uint32_t connections = 0;     // set by split_connections

  // "http://h:8080", "https://[::1]:443": for messages and reports.
  std::string name() const;
};

// Groups the mix's lines by server, groups in order of first appearance.
std::vector<HostGroup> group_by_host(const std::vector<MixLine>& mix);

// Splits `connections` across the groups in proportion to their weights (largest remainder), then
// moves connections from the most over-served groups so that each gets at least one. Fails when
// there are fewer connections than groups.
Status split_connections(std::vector<HostGroup>& groups, uint32_t connections);

}  // namespace hail
