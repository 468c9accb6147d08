#include <gtest/gtest.h>
#include <unistd.h>

#include "server/session.h"
#include "server/static_root.h"
#include "server_test_util.h"
#include "temp_root.h"

namespace hail {
namespace {

using test::TempRoot;

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = pread(fd, buf, sizeof buf, static_cast<off_t>(out.size()))) > 0) {
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(StaticRoot, OpenErrorsNameTheProblem) {
  auto missing = StaticRoot::open("/nonexistent/hail/dir");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "--root /nonexistent/hail/dir: No such file or directory");
  auto file = StaticRoot::open("/etc/passwd");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, "--root /etc/passwd: Not a directory");
}

TEST(StaticRoot, Table) {
  TempRoot tree;
  auto root = StaticRoot::open(tree.path());
  ASSERT_TRUE(root.ok()) << root.error().message;
  struct Case {
    const char* path;
    int status;
    const char* content;  // expected content when 200 (nullptr: don't check)
  };
  const Case cases[] = {
      {"/", 200, "<h1>home</h1>\n"},
      {"/index.html", 200, "<h1>home</h1>\n"},
      {"/a.txt", 200, "alpha\n"},
      {"//a.txt", 200, "alpha\n"},
      {"/./a.txt", 200, "alpha\n"},
      {"/sub", 200, "<p>sub</p>\n"},
      {"/sub/", 200, "<p>sub</p>\n"},
      {"/sub/b.css", 200, "b{}\n"},
      {"/sub/deeper/c.json", 200, "{}\n"},
      {"/with space.txt", 200, "space\n"},
      {"/a_link.txt", 200, "alpha\n"},       // symlink inside the root: served
      {"/sub/up_link.txt", 200, "alpha\n"},  // climbs, but stays inside
      {"/sub_link/b.css", 200, "b{}\n"},
      {"/sub/deeper", 404, nullptr},  // directory without index.html: no listing
      {"/noindex/", 404, nullptr},
      {"/missing", 404, nullptr},
      {"/a.txt/x", 404, nullptr},
      {"/fifo", 404, nullptr},             // not a regular file (and open did not block)
      {"/etc_link/passwd", 403, nullptr},  // symlinks leaving the root
      {"/passwd_link", 403, nullptr},
      {"/secret_link", 403, nullptr},
      {"/abs_inside_link.txt", 403, nullptr},  // absolute symlinks are refused even when inside
      {"/../secret.txt", 403, nullptr},        // ".." is caught earlier; the kernel refuses it too
  };
  for (const Case& c : cases) {
    StaticRoot::File file;
    const int status = root.value()->open_file(c.path, &file);
    EXPECT_EQ(status, c.status) << c.path;
    if (status == 200) {
      ASSERT_GE(file.fd, 0);
      if (c.content != nullptr) {
        EXPECT_EQ(read_all(file.fd), c.content) << c.path;
      }
      EXPECT_EQ(file.size, read_all(file.fd).size());
      close(file.fd);
    } else {
      EXPECT_EQ(file.fd, -1) << c.path;
    }
  }
}

TEST(StaticRoot, SessionServesFiles) {
  TempRoot tree;
  auto root = StaticRoot::open(tree.path());
  ASSERT_TRUE(root.ok());
  SessionEnv env;
  env.root = root.value().get();
  ServerSession session(&env);
  const std::string input =
      "GET /a.txt HTTP/1.1\r\n\r\n"
      "GET /large.bin HTTP/1.1\r\n\r\n"
      "HEAD /large.bin HTTP/1.1\r\n\r\n"
      "GET / HTTP/1.1\r\n\r\n"
      "GET /sub/b.css?x=1 HTTP/1.1\r\n\r\n"
      "GET /passwd_link HTTP/1.1\r\n\r\n"
      "POST /a.txt HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz"
      "GET /with%20space.txt HTTP/1.1\r\n\r\n";
  EXPECT_EQ(session.feed(input.data(), input.size(), 0), input.size());
  auto r = test::parse_responses(test::drain_output(session.output(), 0, nullptr, 5000),
                                 {false, false, true});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].body, "alpha\n");
  EXPECT_EQ(r[0].header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r[1].body, tree.read("large.bin"));
  EXPECT_EQ(r[1].header("content-type"), "application/octet-stream");
  EXPECT_EQ(r[2].header("content-length"), std::to_string(TempRoot::kLargeBytes));
  EXPECT_EQ(r[3].body, "<h1>home</h1>\n");
  EXPECT_EQ(r[3].header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(r[4].body, "b{}\n");
  EXPECT_EQ(r[5].status, 403);
  EXPECT_EQ(r[6].body, "alpha\n");
  EXPECT_EQ(r[7].body, "space\n");
}

}  // namespace
}  // namespace hail
