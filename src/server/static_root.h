// StaticRoot: the --root directory of `hail serve`, held as an O_PATH descriptor. Files are opened
// beneath it with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), so neither "..", absolute
// symlinks nor symlinks climbing out can reach anything outside it, whatever the request path
// checks missed. Owner: server. Immutable after open(): every reactor thread uses the same one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

class StaticRoot {
 public:
  // "--root /x: No such file or directory", "--root /x: Not a directory".
  static Result<std::unique_ptr<StaticRoot>> open(const std::string& dir);
  ~StaticRoot();
  StaticRoot(const StaticRoot&) = delete;
  StaticRoot& operator=(const StaticRoot&) = delete;

  struct File {
    int fd = -1;  // owned by the caller on success
    uint64_t size = 0;
    bool is_index = false;  // a directory's index.html was opened
  };
  // `path` is a decoded request path ("/a/b.html") without ".." segments. A directory serves its
  // index.html, never a listing. Returns 200 with out->fd open (read-only, close-on-exec), or the
  // status to answer: 404 (missing, not a regular file, too long), 403 (outside the root or no
  // permission), 503 (out of file descriptors), 500 (anything else).
  int open_file(std::string_view path, File* out) const;

 private:
  explicit StaticRoot(int dir_fd) : dir_fd_(dir_fd) {}
  int dir_fd_;
};

}  // namespace hail
