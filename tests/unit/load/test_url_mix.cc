// --urls files and --mix: the parser against tables of good and bad lines (exact messages), body
// files, the chooser's proportions (round-robin exact per cycle, random within 2%), and the
// grouping of lines by host with the split of connections between hosts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "load/url_mix.h"

namespace hail {
namespace {

Url url_of(const char* text) {
  auto url = parse_url(text);
  EXPECT_TRUE(url.ok()) << text;
  return url.ok() ? url.value() : Url{};
}

struct GoodCase {
  const char* text;
  double weight;
  const char* method;
  const char* url;
  const char* body_path;
  const char* label;
};

TEST(ParseUrlMix, GoodLines) {
  const Url base = url_of("http://base:8080/root");
  const GoodCase cases[] = {
      {"/a", 1, "GET", "http://base:8080/a", "", "GET /a"},
      {"3 /a?x=1", 3, "GET", "http://base:8080/a?x=1", "", "GET /a?x=1"},
      {"0.5 POST /api @body.json", 0.5, "POST", "http://base:8080/api", "dir/body.json",
       "POST /api"},
      {"/api @/abs/b.json", 1, "POST", "http://base:8080/api", "/abs/b.json", "POST /api"},
      {"PATCH /api @sub/b.json", 1, "PATCH", "http://base:8080/api", "dir/sub/b.json",
       "PATCH /api"},
      {"PUT https://h:8443/x", 1, "PUT", "https://h:8443/x", "", "PUT https://h:8443/x"},
      {"GET http://[::1]:8080/v6", 1, "GET", "http://[::1]:8080/v6", "",
       "GET http://[::1]:8080/v6"},
      {"HTTP://H:80/x", 1, "GET", "http://H/x", "", "GET HTTP://H:80/x"},
      {"  /a   # a comment", 1, "GET", "http://base:8080/a", "", "GET /a"},
      {"/a#frag", 1, "GET", "http://base:8080/a", "", "GET /a#frag"},
      {"2.25\tDELETE\t/t", 2.25, "DELETE", "http://base:8080/t", "", "DELETE /t"},
      {"/crlf\r", 1, "GET", "http://base:8080/crlf", "", "GET /crlf"},
      {"0.000001 /tiny", 0.000001, "GET", "http://base:8080/tiny", "", "GET /tiny"},
      {"1000000 /huge", 1'000'000, "GET", "http://base:8080/huge", "", "GET /huge"},
      {"007 get /lower", 7, "get", "http://base:8080/lower", "", "get /lower"},
  };
  for (const GoodCase& c : cases) {
    auto lines = parse_url_mix(c.text, "dir/urls.txt", &base);
    ASSERT_TRUE(lines.ok()) << c.text << ": " << lines.error().message;
    ASSERT_EQ(lines->size(), 1u) << c.text;
    const MixLine& l = lines->front();
    EXPECT_EQ(l.weight, c.weight) << c.text;
    EXPECT_EQ(l.method, c.method) << c.text;
    EXPECT_EQ(l.url.to_string(), c.url) << c.text;
    EXPECT_EQ(l.body_path, c.body_path) << c.text;
    EXPECT_TRUE(l.body.empty()) << c.text;
    EXPECT_EQ(l.label, c.label) << c.text;
    EXPECT_EQ(l.line, 1u) << c.text;
  }
}

TEST(ParseUrlMix, CommentsBlankLinesLineNumbersAndDuplicateLabels) {
  const Url base = url_of("http://base/");
  const char* text =
      "# a mix\n"
      "\n"
      "   \t\n"
      "3 /a\n"
      "  # indented comment\n"
      "1 /a\n"
      "POST /a\n"
      "/a # same request again\n"
      "http://other:81/b";  // no final newline
  auto lines = parse_url_mix(text, "urls.txt", &base);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 5u);
  const char* labels[] = {"GET /a", "GET /a (line 6)", "POST /a", "GET /a (line 8)",
                          "GET http://other:81/b"};
  const uint32_t numbers[] = {4, 6, 7, 8, 9};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*lines)[i].label, labels[i]);
    EXPECT_EQ((*lines)[i].line, numbers[i]);
  }
  EXPECT_EQ((*lines)[4].url.host, "other");
}

TEST(ParseUrlMix, EveryLineAbsoluteNeedsNoBase) {
  auto lines = parse_url_mix("http://a/x\n2 https://b:444/y\n", "urls.txt", nullptr);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  EXPECT_EQ((*lines)[0].url.to_string(), "http://a/x");
  EXPECT_EQ((*lines)[1].url.to_string(), "https://b:444/y");
}

struct BadCase {
  const char* text;
  bool with_base;
  const char* message;
};

TEST(ParseUrlMix, BadLinesTable) {
  const Url base = url_of("http://base/");
  const BadCase cases[] = {
      {"1x /a", true, "u.txt:1: bad weight \"1x\": expected a positive number such as 2 or 0.5"},
      {"0 /a", true, "u.txt:1: bad weight \"0\": must be greater than 0"},
      {"0.0 /a", true, "u.txt:1: bad weight \"0.0\": must be greater than 0"},
      {"-1 /a", true, "u.txt:1: bad weight \"-1\": expected a positive number such as 2 or 0.5"},
      {"+1 /a", true, "u.txt:1: bad weight \"+1\": expected a positive number such as 2 or 0.5"},
      {"1e3 /a", true, "u.txt:1: bad weight \"1e3\": expected a positive number such as 2 or 0.5"},
      {".5 /a", true, "u.txt:1: bad weight \".5\": expected a positive number such as 2 or 0.5"},
      {"1. /a", true, "u.txt:1: bad weight \"1.\": expected a positive number such as 2 or 0.5"},
      {"2000000 /a", true, "u.txt:1: bad weight \"2000000\": at most 1000000"},
      {"1000000.5 /a", true, "u.txt:1: bad weight \"1000000.5\": at most 1000000"},
      {"99999999999999999999999 /a", true,
       "u.txt:1: bad weight \"99999999999999999999999\": at most 1000000"},
      {"0.1234567 /a", true, "u.txt:1: bad weight \"0.1234567\": at most 6 decimals"},
      {"ftp://h/x", true,
       "u.txt:1: invalid URL \"ftp://h/x\": unsupported scheme \"ftp\" (use http or https)"},
      {"GET http://[::1/x", true,
       "u.txt:1: invalid URL \"http://[::1/x\": missing ']' after IPv6 address"},
      {"http://h:0/", true, "u.txt:1: invalid URL \"http://h:0/\": port 0 is not allowed"},
      {"/a", false,
       "u.txt:1: path \"/a\" has no base URL: give a URL on the command line or make every line "
       "absolute"},
      {"example.com/a", true,
       "u.txt:1: expected a URL (http:// or https://) or a path starting with \"/\", got "
       "\"example.com/a\""},
      {"GET", true,
       "u.txt:1: expected a URL (http:// or https://) or a path starting with \"/\", got "
       "\"GET\""},
      {"G(T /a", true, "u.txt:1: invalid method \"G(T\" (a token such as GET or POST)"},
      {"G\x01T /a", true, "u.txt:1: invalid method \"G\\x01T\" (a token such as GET or POST)"},
      {"GET /a /b", true,
       "u.txt:1: unexpected \"/b\" (expected [weight] [METHOD] URL-or-path [@bodyfile])"},
      {"2", true,
       "u.txt:1: missing URL or path (expected [weight] [METHOD] URL-or-path [@bodyfile])"},
      {"@b.json", true,
       "u.txt:1: missing URL or path (expected [weight] [METHOD] URL-or-path [@bodyfile])"},
      {"/a @", true, "u.txt:1: missing file name after \"@\""},
      {"@b /a", true,
       "u.txt:1: the @bodyfile goes last (expected [weight] [METHOD] URL-or-path [@bodyfile])"},
      {"/a\x7f", true,
       "u.txt:1: path \"/a\\x7f\" contains a control or non-ASCII character (percent-encode it)"},
      {"/caf\xc3\xa9", true,
       "u.txt:1: path \"/caf\\xc3\\xa9\" contains a control or non-ASCII character "
       "(percent-encode it)"},
      {"/ok\n\n# c\n3 GET /a /b", true,
       "u.txt:4: unexpected \"/b\" (expected [weight] [METHOD] URL-or-path [@bodyfile])"},
      {"", true, "u.txt: no requests (the file is empty or only comments)"},
      {"# only\n\n  # comments\n", true, "u.txt: no requests (the file is empty or only comments)"},
  };
  for (const BadCase& c : cases) {
    auto lines = parse_url_mix(c.text, "u.txt", c.with_base ? &base : nullptr);
    ASSERT_FALSE(lines.ok()) << c.text;
    EXPECT_EQ(lines.error().message, c.message) << c.text;
  }
}

TEST(ParseUrlMix, AtMostTenThousandRequestLines) {
  const Url base = url_of("http://h/");
  std::string text = "# generated\n";
  for (size_t i = 0; i < kMaxMixLines; ++i) text += "/x\n\n";
  auto ok = parse_url_mix(text, "u.txt", &base);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size(), kMaxMixLines);
  EXPECT_EQ(ok->back().label, "GET /x (line 20000)");
  text += "/one-too-many\n";
  auto bad = parse_url_mix(text, "u.txt", &base);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "u.txt:20002: too many request lines (at most 10000)");
}

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/hail_url_mix_XXXXXX";
    path_ = mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ReadUrlMixFile, ReadsBodiesRelativeToTheFile) {
  TempDir dir;
  dir.write("a.json", "{\"a\":1}");
  std::filesystem::create_directory(dir.path() + "/sub");
  dir.write("sub/b.bin", std::string("b\0b", 3));
  const std::string abs_body = dir.write("abs.txt", "absolute");
  const std::string urls = dir.write("urls.txt", "POST /a @a.json\nPUT /b @sub/b.bin\n/c @" +
                                                     abs_body + "\n2 /d\nPOST /e @a.json\n");
  const Url base = url_of("http://h/");
  auto lines = read_url_mix_file(urls, &base);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 5u);
  EXPECT_EQ((*lines)[0].body, "{\"a\":1}");
  EXPECT_EQ((*lines)[1].body, std::string("b\0b", 3));
  EXPECT_EQ((*lines)[2].body, "absolute");
  EXPECT_EQ((*lines)[2].method, "POST");
  EXPECT_EQ((*lines)[3].body, "");
  EXPECT_EQ((*lines)[4].body, "{\"a\":1}");
}

TEST(ReadUrlMixFile, ErrorsNameTheFileAndLine) {
  TempDir dir;
  const Url base = url_of("http://h/");
  const std::string urls = dir.write("urls.txt", "/ok\nPOST /a @missing.json\n");
  auto missing_body = read_url_mix_file(urls, &base);
  ASSERT_FALSE(missing_body.ok());
  EXPECT_EQ(missing_body.error().message, urls + ":2: cannot read body file \"" + dir.path() +
                                              "/missing.json\": No such file or directory");

  std::filesystem::create_directory(dir.path() + "/adir");
  const std::string urls2 = dir.write("urls2.txt", "POST /a @adir\n");
  auto directory_body = read_url_mix_file(urls2, &base);
  ASSERT_FALSE(directory_body.ok());
  EXPECT_EQ(directory_body.error().message,
            urls2 + ":1: cannot read body file \"" + dir.path() + "/adir\": Is a directory");

  auto no_file = read_url_mix_file(dir.path() + "/nope.txt", &base);
  ASSERT_FALSE(no_file.ok());
  EXPECT_EQ(no_file.error().message,
            "cannot read urls file \"" + dir.path() + "/nope.txt\": No such file or directory");

  const std::string bad = dir.write("bad.txt", "/a\n0 /b\n");
  auto bad_line = read_url_mix_file(bad, &base);
  ASSERT_FALSE(bad_line.ok());
  EXPECT_EQ(bad_line.error().message, bad + ":2: bad weight \"0\": must be greater than 0");
}

TEST(MixOrder, ParsesNames) {
  EXPECT_EQ(parse_mix_order("random").value(), MixOrder::kRandom);
  EXPECT_EQ(parse_mix_order("round-robin").value(), MixOrder::kRoundRobin);
  auto bad = parse_mix_order("rr");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "invalid --mix \"rr\" (expected random or round-robin)");
  EXPECT_STREQ(mix_order_name(MixOrder::kRoundRobin), "round-robin");
}

TEST(MixChooser, RoundRobinIsSmoothAndExact) {
  MixChooser rr({5, 1, 1}, MixOrder::kRoundRobin, 0);
  EXPECT_EQ(rr.cycle_length(), 7u);
  std::vector<uint32_t> sequence;
  for (int i = 0; i < 14; ++i) sequence.push_back(rr.next());
  // The light lines sit in the middle of the cycle, not bunched at its end; the cycle repeats.
  EXPECT_EQ(sequence, (std::vector<uint32_t>{0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 1, 2, 0, 0}));

  MixChooser even({1, 1, 1}, MixOrder::kRoundRobin, 0);
  for (uint32_t expected : {0u, 1u, 2u, 0u, 1u, 2u}) EXPECT_EQ(even.next(), expected);
}

TEST(MixChooser, RoundRobinCountsAreExactEveryCycle) {
  // Decimal weights reduce to integers: 0.5 : 1 : 1.5 is 1 : 2 : 3.
  MixChooser decimals({0.5, 1, 1.5}, MixOrder::kRoundRobin, 0);
  ASSERT_EQ(decimals.cycle_length(), 6u);
  for (int cycle = 0; cycle < 5; ++cycle) {
    std::vector<int> counts(3);
    for (int i = 0; i < 6; ++i) ++counts[decimals.next()];
    EXPECT_EQ(counts, (std::vector<int>{1, 2, 3})) << "cycle " << cycle;
  }

  std::vector<double> weights;
  uint64_t total = 0;
  for (int i = 0; i < 50; ++i) {
    weights.push_back((i * 37) % 100 + 1);
    total += (i * 37) % 100 + 1;
  }
  MixChooser rr(weights, MixOrder::kRoundRobin, 0);
  ASSERT_EQ(rr.cycle_length(), total);
  for (int cycle = 0; cycle < 3; ++cycle) {
    std::vector<double> counts(weights.size());
    for (uint64_t i = 0; i < total; ++i) ++counts[rr.next()];
    EXPECT_EQ(counts, weights) << "cycle " << cycle;
  }
}

TEST(MixChooser, RandomIsWithinTwoPercentAndSeeded) {
  const std::vector<double> weights{1, 2, 3, 4};
  MixChooser chooser(weights, MixOrder::kRandom, 42);
  constexpr int kPicks = 100'000;
  std::vector<int> counts(weights.size());
  for (int i = 0; i < kPicks; ++i) ++counts[chooser.next()];
  for (size_t i = 0; i < weights.size(); ++i) {
    const double expected = kPicks * weights[i] / 10.0;
    EXPECT_NEAR(counts[i], expected, 0.02 * expected) << "line " << i;
  }
  MixChooser same(weights, MixOrder::kRandom, 42);
  MixChooser other(weights, MixOrder::kRandom, 43);
  MixChooser again(weights, MixOrder::kRandom, 42);
  int differences = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint32_t a = same.next();
    EXPECT_EQ(a, again.next());
    differences += a != other.next();
  }
  EXPECT_GT(differences, 100);
}

TEST(MixChooser, RandomHandlesExtremeWeights) {
  MixChooser chooser({0.000001, 1'000'000, 1}, MixOrder::kRandom, 7);
  std::vector<int> counts(3);
  for (int i = 0; i < 100'000; ++i) ++counts[chooser.next()];
  EXPECT_GT(counts[1], 99'000);
  MixChooser single({2.5}, MixOrder::kRandom, 1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(single.next(), 0u);
}

TEST(HostGroups, GroupByServerInOrderOfFirstAppearance) {
  const Url base = url_of("http://a/");
  auto lines =
      parse_url_mix("/1\n2 http://A:80/2\nhttps://a/3\nhttp://a:8080/4\n0.5 http://[::1]/5\n3 /6\n",
                    "u.txt", &base);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  const std::vector<HostGroup> groups = group_by_host(*lines);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].name(), "http://a:80");
  EXPECT_EQ(groups[0].lines, (std::vector<uint32_t>{0, 1, 5}));
  EXPECT_EQ(groups[0].weight, 6);
  EXPECT_EQ(groups[1].name(), "https://a:443");
  EXPECT_EQ(groups[2].name(), "http://a:8080");
  EXPECT_EQ(groups[3].name(), "http://[::1]:80");
  EXPECT_EQ(groups[3].weight, 0.5);
  EXPECT_EQ(groups[3].lines, (std::vector<uint32_t>{4}));
}

std::vector<uint32_t> split(const std::vector<double>& weights, uint32_t connections) {
  std::vector<HostGroup> groups(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) groups[i].weight = weights[i];
  Status s = split_connections(groups, connections);
  EXPECT_TRUE(s.ok()) << s.error().message;
  std::vector<uint32_t> out;
  for (const HostGroup& g : groups) out.push_back(g.connections);
  return out;
}

TEST(HostGroups, SplitsConnectionsByWeight) {
  EXPECT_EQ(split({1}, 7), (std::vector<uint32_t>{7}));
  EXPECT_EQ(split({99, 1}, 100), (std::vector<uint32_t>{99, 1}));
  EXPECT_EQ(split({1, 1, 1}, 10), (std::vector<uint32_t>{4, 3, 3}));  // ties: the first
  EXPECT_EQ(split({1, 2, 1}, 8), (std::vector<uint32_t>{2, 4, 2}));
  EXPECT_EQ(split({0.5, 1.5}, 4), (std::vector<uint32_t>{1, 3}));
  // Every host gets one, taken from the most over-served.
  EXPECT_EQ(split({1000, 1, 1}, 3), (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(split({1000, 10, 1, 1}, 6), (std::vector<uint32_t>{3, 1, 1, 1}));
  for (uint32_t c = 5; c < 200; c += 7) {
    const std::vector<uint32_t> got = split({5, 0.25, 3, 1, 1000}, c);
    EXPECT_EQ(std::accumulate(got.begin(), got.end(), 0u), c);
    for (uint32_t n : got) EXPECT_GE(n, 1u);
  }
}

TEST(HostGroups, TooFewConnectionsIsAnError) {
  std::vector<HostGroup> groups(3);
  for (HostGroup& g : groups) g.weight = 1;
  Status s = split_connections(groups, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "the urls file names 3 hosts (scheme, host and port) but there are only 2 "
            "connections: each host needs at least one (raise -c)");
}

}  // namespace
}  // namespace hail
