// RequestSource (what each connection sends next) and connection_groups (which host each
// connection of a several-host --urls run talks to), without sockets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "load/request_source.h"
#include "load/targets.h"

namespace hail {
namespace {

RequestTemplate tmpl(const std::string& path) {
  RequestSpec spec;
  spec.path = path;
  spec.authority = "h";
  return make_request_template(spec, "http");
}

// A script from `text`, loaded and init()ed as a worker's state would be.
std::unique_ptr<ThreadScript> load_script(const std::string& text) {
  char path[] = "/tmp/hail-source-XXXXXX.lua";
  const int fd = mkstemps(path, 4);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  ScriptTarget target;
  target.scheme = "http";
  target.host = "h";
  auto script = ThreadScript::load(path, target);
  std::remove(path);
  EXPECT_TRUE(script.ok()) << (script.ok() ? "" : script.error().message);
  if (!script.ok()) return nullptr;
  EXPECT_TRUE(script.value()->init({"http://h/"}).ok());
  return std::move(script.value());
}

TEST(RequestSource, OneRequestEveryTime) {
  RequestSource source(tmpl("/a"));
  RequestTemplate scratch;
  uint16_t tag = 0;
  for (int i = 0; i < 3; ++i) {
    const RequestTemplate* r = source.next(0, 0, &scratch, &tag);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->path, "/a");
    EXPECT_EQ(tag, RequestSource::kNoTag);
    EXPECT_NE(r, &scratch);  // shared, never copied per request
  }
}

TEST(RequestSource, MixPicksWithinTheConnectionsGroup) {
  std::vector<MixLine> lines(3);
  lines[0].weight = 1;
  lines[1].weight = 3;
  lines[2].weight = 1;
  // Group 0: lines 0 and 1 (weights 1:3); group 1: line 2 only.
  RequestSource source({tmpl("/a"), tmpl("/b"), tmpl("/c")}, lines, {{0, 1}, {2}},
                       MixOrder::kRoundRobin, 1);
  RequestTemplate scratch;
  std::map<std::string, int> group0, group1;
  for (int i = 0; i < 400; ++i) {
    uint16_t tag = 0;
    const RequestTemplate* r = source.next(0, 0, &scratch, &tag);
    ++group0[r->path];
    EXPECT_EQ(tag, r->path == "/a" ? 0 : 1);  // tags are line indices
    ++group1[source.next(1, 1, &scratch, &tag)->path];
    EXPECT_EQ(tag, 2);
  }
  EXPECT_EQ(group0, (std::map<std::string, int>{{"/a", 100}, {"/b", 300}}));
  EXPECT_EQ(group1, (std::map<std::string, int>{{"/c", 400}}));
}

// A dynamic script: every call of request() gives the next path; three requests returned at
// once are handed out one by one on the same connection before request() runs again.
TEST(RequestSource, ScriptRequestsAndPipelinedBatches) {
  auto script = load_script(
      "n = 0\n"
      "function request()\n"
      "  n = n + 1\n"
      "  if n == 2 then\n"
      "    return hail.tag('batch', wrk.format(nil, '/x1') .. wrk.format(nil, '/x2') ..\n"
      "                               wrk.format(nil, '/x3'))\n"
      "  end\n"
      "  return wrk.format(nil, '/n' .. n)\n"
      "end\n");
  ASSERT_NE(script, nullptr);
  TagTable tags;
  RequestSource source(script.get(), "http", 2);
  source.set_tag_table(&tags);
  std::vector<RequestTemplate> slots(6);
  std::vector<std::string> paths;
  std::vector<uint16_t> got_tags;
  for (int i = 0; i < 5; ++i) {
    uint16_t tag = 0;
    const RequestTemplate* r = source.next(0, 0, &slots[i], &tag);
    ASSERT_NE(r, nullptr) << source.error();
    EXPECT_EQ(r, &slots[i]);  // parsed into the slot's own template
    paths.push_back(r->path);
    got_tags.push_back(tag);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"/n1", "/x1", "/x2", "/x3", "/n3"}));
  const uint16_t batch = tags.intern("batch");
  EXPECT_EQ(got_tags, (std::vector<uint16_t>{RequestSource::kNoTag, batch, batch, batch,
                                             RequestSource::kNoTag}));
  // Earlier slots keep their requests while later ones are handed out.
  EXPECT_EQ(slots[1].path, "/x1");
  EXPECT_NE(slots[1].http1.find("GET /x1 HTTP/1.1\r\n"), std::string::npos);
}

TEST(RequestSource, ScriptErrorsStopWithAMessage) {
  auto script = load_script("function request() return 'not http' end\n");
  ASSERT_NE(script, nullptr);
  RequestSource source(script.get(), "http", 1);
  RequestTemplate scratch;
  uint16_t tag = 0;
  EXPECT_EQ(source.next(0, 0, &scratch, &tag), nullptr);
  EXPECT_NE(source.error().find("request() returned a bad request"), std::string::npos)
      << source.error();
}

TEST(ConnectionGroups, SplitByWeightAcrossWorkers) {
  std::vector<TargetGroup> groups(2);
  groups[0].weight = 1;
  groups[1].weight = 3;
  auto per_worker = connection_groups(groups, 8, 2, 4);
  ASSERT_EQ(per_worker.size(), 2u);
  int count[2] = {0, 0};
  for (const auto& w : per_worker) {
    ASSERT_EQ(w.size(), 4u);
    for (uint16_t g : w) ++count[g];
  }
  EXPECT_EQ(count[0], 2);
  EXPECT_EQ(count[1], 6);
}

TEST(ConnectionGroups, EveryGroupGetsOneAndPrefixesFollowTheWeights) {
  std::vector<TargetGroup> groups(3);
  groups[0].weight = 100;
  groups[1].weight = 1;
  groups[2].weight = 1;
  // 3 connections on one worker: a light group still gets one.
  auto one = connection_groups(groups, 3, 1, 3);
  std::vector<int> count(3, 0);
  for (uint16_t g : one[0]) ++count[g];
  EXPECT_EQ(count, (std::vector<int>{1, 1, 1}));
  // 102 connections: exactly the weights; the first 51 about half of each share.
  auto many = connection_groups(groups, 102, 1, 102);
  std::vector<int> all(3, 0), half(3, 0);
  for (size_t i = 0; i < many[0].size(); ++i) {
    ++all[many[0][i]];
    if (i < 51) ++half[many[0][i]];
  }
  EXPECT_EQ(all, (std::vector<int>{100, 1, 1}));
  EXPECT_NEAR(half[0], 50, 1);
}

TEST(ConnectionGroups, OneGroupIsAllZeros) {
  std::vector<TargetGroup> groups(1);
  auto g = connection_groups(groups, 5, 2, 3);
  for (const auto& w : g) EXPECT_EQ(w, (std::vector<uint16_t>{0, 0, 0}));
}

}  // namespace
}  // namespace hail
