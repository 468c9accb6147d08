#include "load/url_mix.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "core/ascii.h"
#include "http/request.h"

namespace hail {
namespace {

constexpr const char* kLineShape = "expected [weight] [METHOD] URL-or-path [@bodyfile]";

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

Error line_error(std::string_view file_name, size_t line, const std::string& problem) {
  return make_error(std::string(file_name) + ":" + std::to_string(line) + ": " + problem);
}

// A '#' starts a comment only at the start or after whitespace: "/a#frag" is a URL's fragment.
std::string_view strip_comment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_blank(line[i - 1]))) return line.substr(0, i);
  }
  return line;
}

void split_blanks(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
}

constexpr uint64_t kMillionths = 1'000'000;
constexpr auto kMaxWeightWhole = static_cast<uint64_t>(kMaxMixWeight);

// Digits with an optional fraction of at most kMaxMixWeightDecimals digits.
Result<double> parse_weight(std::string_view text) {
  const std::string shown = "bad weight " + quote(text);
  uint64_t whole = 0;
  size_t i = 0;
  for (; i < text.size() && ascii::is_digit(text[i]); ++i) {
    whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
    if (whole > kMaxWeightWhole) {
      return make_error(shown + ": at most " + std::to_string(kMaxWeightWhole));
    }
  }
  bool digits = i > 0;
  uint64_t fraction = 0;
  int decimals = 0;
  if (digits && i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && ascii::is_digit(text[i]); ++i) {
      if (++decimals > kMaxMixWeightDecimals) {
        return make_error(shown + ": at most " + std::to_string(kMaxMixWeightDecimals) +
                          " decimals");
      }
      fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
    }
    digits = decimals > 0;
  }
  if (!digits || i != text.size()) {
    return make_error(shown + ": expected a positive number such as 2 or 0.5");
  }
  for (int d = decimals; d < kMaxMixWeightDecimals; ++d) fraction *= 10;
  const uint64_t millionths = whole * kMillionths + fraction;
  if (millionths == 0) return make_error(shown + ": must be greater than 0");
  if (millionths > kMaxWeightWhole * kMillionths) {
    return make_error(shown + ": at most " + std::to_string(kMaxWeightWhole));
  }
  return static_cast<double>(millionths) / static_cast<double>(kMillionths);
}

// One non-blank, comment-free line. Returns the problem (without file:line) on failure.
Result<MixLine> parse_line(const std::vector<std::string_view>& tokens,
                           const std::filesystem::path& directory, const Url* base) {
  MixLine out;
  size_t first = 0;
  size_t last = tokens.size();  // one past the URL
  const char lead = tokens[0][0];
  if (ascii::is_digit(lead) || lead == '.' || lead == '-' || lead == '+') {
    auto weight = parse_weight(tokens[0]);
    if (!weight) return weight.error();
    out.weight = weight.value();
    first = 1;
  }
  std::string_view body;
  bool has_body = false;
  if (last > first && tokens[last - 1][0] == '@') {
    body = tokens[last - 1].substr(1);
    if (body.empty()) return make_error("missing file name after \"@\"");
    has_body = true;
    --last;
  }
  if (last == first) return make_error(std::string("missing URL or path (") + kLineShape + ")");
  if (last - first > 2) {
    return make_error("unexpected " + quote(tokens[first + 2]) + " (" + kLineShape + ")");
  }
  const std::string_view target = tokens[last - 1];
  if (last - first == 2) {
    const std::string_view method = tokens[first];
    if (method[0] == '@') {
      return make_error("the @bodyfile goes last (" + std::string(kLineShape) + ")");
    }
    if (!validate_method(method).ok()) {
      return make_error("invalid method " + quote(method) + " (a token such as GET or POST)");
    }
    out.method = std::string(method);
  } else if (has_body) {
    out.method = "POST";  // as -m's default with --body-file
  }

  if (target[0] == '/') {
    if (base == nullptr) {
      return make_error("path " + quote(target) +
                        " has no base URL: give a URL on the command line or make every line "
                        "absolute");
    }
    for (char c : target) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte >= 0x7f) {
        return make_error("path " + quote(target) +
                          " contains a control or non-ASCII character (percent-encode it)");
      }
    }
    out.url = *base;
    out.url.path = std::string(target.substr(0, target.find('#')));  // never sent: as parse_url
  } else if (target.find("://") != std::string_view::npos) {
    auto url = parse_url(target);
    if (!url) return url.error();
    out.url = std::move(url.value());
  } else {
    return make_error("expected a URL (http:// or https://) or a path starting with \"/\", got " +
                      quote(target));
  }

  if (has_body) {
    const std::filesystem::path file(body);
    out.body_path = (file.is_absolute() ? file : directory / file).string();
  }
  out.label.reserve(out.method.size() + 1 + target.size());
  out.label.append(out.method).append(1, ' ').append(target);
  return out;
}

// Whole-file read with read(2), so that a directory fails (EISDIR) instead of reading as empty.
Result<std::string> read_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(std::strerror(errno));
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int err = errno;
    close(fd);
    if (n < 0) return make_error(std::strerror(err));
    return out;
  }
}

// Back to the exact integer a parsed weight came from; anything else is clamped into [1, max]
// millionths, so sums over kMaxMixLines lines cannot overflow.
uint64_t to_millionths(double weight, double max = kMaxMixWeight) {
  if (!(weight > 0)) return 1;  // NaN too
  const double clamped = std::min(weight, max) * static_cast<double>(kMillionths);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(clamped)));
}

uint64_t mul_high(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

}  // namespace

Result<std::vector<MixLine>> parse_url_mix(std::string_view text, std::string_view file_name,
                                           const Url* base) {
  const std::filesystem::path directory = std::filesystem::path(file_name).parent_path();
  std::vector<MixLine> lines;
  std::set<std::string, std::less<>> labels;
  std::vector<std::string_view> tokens;
  size_t line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF files
    split_blanks(strip_comment(line), tokens);
    if (tokens.empty()) continue;
    if (lines.size() == kMaxMixLines) {
      return line_error(file_name, line_number,
                        "too many request lines (at most " + std::to_string(kMaxMixLines) + ")");
    }
    auto parsed = parse_line(tokens, directory, base);
    if (!parsed) return line_error(file_name, line_number, parsed.error().message);
    MixLine& mix_line = parsed.value();
    mix_line.line = static_cast<uint32_t>(line_number);
    if (labels.contains(mix_line.label)) {
      mix_line.label += " (line " + std::to_string(line_number) + ")";
    }
    labels.insert(mix_line.label);
    lines.push_back(std::move(mix_line));
  }
  if (lines.empty()) {
    return make_error(std::string(file_name) +
                      ": no requests (the file is empty or only comments)");
  }
  return lines;
}

Result<std::vector<MixLine>> read_url_mix_file(const std::string& path, const Url* base) {
  auto text = read_file(path);
  if (!text) {
    return make_error("cannot read urls file " + quote(path) + ": " + text.error().message);
  }
  auto lines = parse_url_mix(text.value(), path, base);
  if (!lines) return lines;
  std::map<std::string, std::string> bodies;  // a file several lines send is read once
  for (MixLine& line : lines.value()) {
    if (line.body_path.empty()) continue;
    auto it = bodies.find(line.body_path);
    if (it == bodies.end()) {
      auto body = read_file(line.body_path);
      if (!body) {
        return line_error(
            path, line.line,
            "cannot read body file " + quote(line.body_path) + ": " + body.error().message);
      }
      it = bodies.emplace(line.body_path, std::move(body.value())).first;
    }
    line.body = it->second;
  }
  return lines;
}

Result<MixOrder> parse_mix_order(std::string_view text) {
  if (text == "random") return MixOrder::kRandom;
  if (text == "round-robin") return MixOrder::kRoundRobin;
  return make_error("invalid --mix " + quote(text) + " (expected random or round-robin)");
}

const char* mix_order_name(MixOrder order) {
  return order == MixOrder::kRandom ? "random" : "round-robin";
}

MixChooser::MixChooser(const std::vector<double>& weights, MixOrder order, uint64_t seed)
    : order_(order), rng_state_(seed) {
  const size_t n = weights.size();
  uint64_t divisor = 0;
  weight_.reserve(n);
  for (double w : weights) {
    weight_.push_back(to_millionths(w));
    divisor = std::gcd(divisor, weight_.back());
  }
  for (uint64_t& w : weight_) {
    w /= divisor;
    total_weight_ += w;
  }

  if (order_ == MixOrder::kRandom) {
    // Vose's alias method in integers: each column holds total_weight_ units of probability
    // mass, taken from its own line up to `threshold` and from its alias beyond.
    std::vector<uint64_t> scaled(n);
    std::vector<uint32_t> small;
    std::vector<uint32_t> large;
    for (size_t i = 0; i < n; ++i) {
      scaled[i] = weight_[i] * n;
      (scaled[i] < total_weight_ ? small : large).push_back(static_cast<uint32_t>(i));
    }
    threshold_.assign(n, total_weight_);
    alias_.resize(n);
    std::iota(alias_.begin(), alias_.end(), uint32_t{0});
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back();
      small.pop_back();
      const uint32_t l = large.back();
      threshold_[s] = scaled[s];
      alias_[s] = l;
      scaled[l] -= total_weight_ - scaled[s];
      if (scaled[l] < total_weight_) {
        large.pop_back();
        small.push_back(l);
      }
    }
    return;
  }
  picks_.assign(n, 0);
  heap_.resize(n);
  std::iota(heap_.begin(), heap_.end(), uint32_t{0});
  for (size_t i = n / 2; i-- > 0;) sift_down(i);
}

namespace {
constexpr uint64_t kSplitmixGamma = 0x9e3779b97f4a7c15;
}

uint64_t MixChooser::next_u64() {
  // splitmix64: tiny state, good statistical quality, any seed (0 included) is fine.
  uint64_t z = (rng_state_ += kSplitmixGamma);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

uint32_t MixChooser::next_random() {
  const auto column = static_cast<uint32_t>(mul_high(next_u64(), weight_.size()));
  const uint64_t unit = mul_high(next_u64(), total_weight_);
  // Two draws per pick: the other slices' picks are the next 2 (stride - 1) draws.
  rng_state_ += 2 * (stride_ - 1) * kSplitmixGamma;
  return unit < threshold_[column] ? column : alias_[column];
}

void MixChooser::set_slice(uint64_t index, uint64_t count) {
  stride_ = std::max<uint64_t>(1, count);
  if (order_ == MixOrder::kRandom) {
    rng_state_ += 2 * index * kSplitmixGamma;
  } else {
    skip_round_robin(index);
  }
}

// The round-robin order repeats every cycle (each line's picks grow by its weight, which leaves
// every comparison in earlier() unchanged), so only the picks past whole cycles are made.
void MixChooser::skip_round_robin(uint64_t picks) {
  for (uint64_t i = picks % total_weight_; i > 0; --i) next_round_robin();
}

uint32_t MixChooser::next_strided() {
  const uint32_t line = next_round_robin();
  if (stride_ > 1) skip_round_robin(stride_ - 1);
  return line;
}

bool MixChooser::earlier(uint32_t a, uint32_t b) const {
  // (2 picks_a + 1) / (2 w_a) < (2 picks_b + 1) / (2 w_b), cross-multiplied: exact in 128 bits.
  const auto lhs = static_cast<unsigned __int128>(2 * picks_[a] + 1) * weight_[b];
  const auto rhs = static_cast<unsigned __int128>(2 * picks_[b] + 1) * weight_[a];
  return lhs != rhs ? lhs < rhs : a < b;
}

void MixChooser::sift_down(size_t at) {
  const size_t n = heap_.size();
  for (;;) {
    size_t best = at;
    const size_t left = 2 * at + 1;
    if (left < n && earlier(heap_[left], heap_[best])) best = left;
    if (left + 1 < n && earlier(heap_[left + 1], heap_[best])) best = left + 1;
    if (best == at) return;
    std::swap(heap_[at], heap_[best]);
    at = best;
  }
}

uint32_t MixChooser::next_round_robin() {
  const uint32_t line = heap_[0];
  ++picks_[line];
  sift_down(0);
  return line;
}

std::string HostGroup::name() const {
  std::string out = scheme + "://";
  if (host_is_ipv6) out.append(1, '[');
  out.append(host);
  if (host_is_ipv6) out.append(1, ']');
  out.append(1, ':').append(std::to_string(port));
  return out;
}

std::vector<HostGroup> group_by_host(const std::vector<MixLine>& mix) {
  std::vector<HostGroup> groups;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < mix.size(); ++i) {
    const Url& url = mix[i].url;
    HostGroup key;
    key.scheme = url.scheme;
    key.host.reserve(url.host.size());
    for (char c : url.host) key.host += ascii::to_lower(c);
    key.host_is_ipv6 = url.host_is_ipv6;
    key.port = url.port;
    auto [it, inserted] = by_name.emplace(key.name(), groups.size());
    if (inserted) groups.push_back(std::move(key));
    HostGroup& group = groups[it->second];
    group.lines.push_back(static_cast<uint32_t>(i));
    group.weight += mix[i].weight;
  }
  return groups;
}

Status split_connections(std::vector<HostGroup>& groups, uint32_t connections) {
  const size_t count = groups.size();
  if (count == 0) return ok_status();
  if (connections < count) {
    return make_error("the urls file names " + std::to_string(count) +
                      " hosts (scheme, host and port) but there are only " +
                      std::to_string(connections) +
                      " connections: each host needs at least one (raise -c)");
  }
  // Exact integer shares: weights in millionths, as the chooser takes them.
  std::vector<uint64_t> weight(count);
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    weight[i] = to_millionths(groups[i].weight, kMaxMixWeight * kMaxMixLines);
    total += weight[i];
  }
  // Largest remainder: floors of the exact shares, then one more for the largest remainders.
  std::vector<uint64_t> remainder(count);
  uint64_t given = 0;
  for (size_t i = 0; i < count; ++i) {
    const auto share = static_cast<unsigned __int128>(connections) * weight[i];
    groups[i].connections = static_cast<uint32_t>(share / total);
    remainder[i] = static_cast<uint64_t>(share % total);
    given += groups[i].connections;
  }
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t k = 0; given < connections; ++k, ++given) ++groups[order[k]].connections;

  // Every server gets a connection: take it from the group served most above its exact share
  // (connections*total - share, compared in the same units). One always has two or more, since
  // there are at least as many connections as groups.
  for (HostGroup& starved : groups) {
    if (starved.connections > 0) continue;
    size_t donor = count;
    __int128 donor_surplus = 0;
    for (size_t i = 0; i < count; ++i) {
      if (groups[i].connections < 2) continue;
      const __int128 surplus = static_cast<__int128>(groups[i].connections) * total -
                               static_cast<__int128>(connections) * weight[i];
      if (donor == count || surplus > donor_surplus) {
        donor = i;
        donor_surplus = surplus;
      }
    }
    --groups[donor].connections;
    ++starved.connections;
  }
  return ok_status();
}

}  // namespace hail
