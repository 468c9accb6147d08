// Helpers for the script tests: temporary script files, the test scripts' directory, and a
// ScriptTarget like the CLI builds for http://127.0.0.1:8080/. Test code only; any thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "script/script.h"

namespace hail::script_test {

inline std::string script_path(const std::string& name) {
  return std::string(HAIL_TEST_SCRIPT_DIR) + "/" + name;
}

// A file holding `code`, removed with its directory when the object goes away.
class TempScript {
 public:
  explicit TempScript(std::string_view code, const char* name = "inline.lua") {
    char pattern[] = "/tmp/hail-script-XXXXXX";
    const char* dir = mkdtemp(pattern);
    EXPECT_NE(dir, nullptr);
    dir_ = dir != nullptr ? dir : "/tmp";
    path_ = dir_ + "/" + name;
    FILE* file = std::fopen(path_.c_str(), "wb");
    EXPECT_NE(file, nullptr);
    if (file != nullptr) {
      std::fwrite(code.data(), 1, code.size(), file);
      std::fclose(file);
    }
  }
  ~TempScript() {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

inline ScriptTarget local_target() {
  ScriptTarget target;
  target.scheme = "http";
  target.host = "127.0.0.1";
  target.port = "8080";
  target.path = "/";
  return target;
}

inline const std::vector<std::string>& url_args() {
  static const std::vector<std::string> args = {"http://127.0.0.1:8080/"};
  return args;
}

// A request's pieces, for checks that must not depend on Lua's table order (wrk.format writes
// headers in pairs() order).
struct ParsedRequest {
  std::string request_line;
  std::map<std::string, std::vector<std::string>> headers;
  std::string body;
  bool complete = false;
};

inline ParsedRequest parse_request(std::string_view bytes) {
  ParsedRequest parsed;
  const size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return parsed;
  std::string_view head = bytes.substr(0, head_end);
  parsed.body = std::string(bytes.substr(head_end + 4));
  parsed.complete = true;
  size_t line_end = head.find("\r\n");
  parsed.request_line = std::string(head.substr(0, line_end));
  while (line_end != std::string_view::npos) {
    head = head.substr(line_end + 2);
    line_end = head.find("\r\n");
    const std::string_view line = head.substr(0, line_end);
    const size_t colon = line.find(": ");
    if (colon == std::string_view::npos) continue;
    parsed.headers[std::string(line.substr(0, colon))].emplace_back(line.substr(colon + 2));
  }
  return parsed;
}

}  // namespace hail::script_test
