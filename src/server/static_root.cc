#include "server/static_root.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace hail {

namespace {

constexpr size_t kMaxPathBytes = 4096;  // PATH_MAX: longer names cannot exist anyway

int openat2_beneath(int dir_fd, const char* path, uint64_t flags) {
  open_how how{};
  how.flags = flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename raced the lookup (the kernel refuses to guess); try again.
    if (errno != EINTR && errno != EAGAIN) return -1;
  }
}

int status_for_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ELOOP:
    case ENAMETOOLONG:
    case EISDIR:
    case ENXIO:  // a socket or a FIFO without writer
      return 404;
    case EXDEV:  // RESOLVE_BENEATH: the path (through a symlink) leads outside the root
    case EACCES:
    case EPERM:
      return 403;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return 503;
    default:
      return 500;
  }
}

// Opens `relative` beneath the root as a regular file: O_NONBLOCK so a FIFO placed under the root
// cannot block a reactor in open(); the type check below then refuses it.
int open_regular(int dir_fd, const char* relative, StaticRoot::File* out, bool* is_dir) {
  const int fd = openat2_beneath(dir_fd, relative, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return status_for_errno(errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return status_for_errno(err);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    *is_dir = true;
    return 404;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return 404;
  }
  out->fd = fd;
  out->size = static_cast<uint64_t>(st.st_size);
  return 200;
}

}  // namespace

Result<std::unique_ptr<StaticRoot>> StaticRoot::open(const std::string& dir) {
  const std::string prefix = "--root " + dir + ": ";
  if (dir.empty()) return make_error("--root: empty directory name");
  const int fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return make_error(prefix + std::strerror(errno));
  // Probe openat2 once so an old kernel is a start-up error rather than a 500 on every request.
  const int probe = openat2_beneath(fd, ".", O_PATH | O_CLOEXEC);
  if (probe < 0) {
    const int err = errno;
    ::close(fd);
    return make_error(prefix + "openat2: " + std::strerror(err));
  }
  ::close(probe);
  return std::unique_ptr<StaticRoot>(new StaticRoot(fd));
}

StaticRoot::~StaticRoot() {
  ::close(dir_fd_);
}

int StaticRoot::open_file(std::string_view path, File* out) const {
  *out = File{};
  size_t start = 0;
  while (start < path.size() && path[start] == '/') ++start;
  const std::string_view relative = path.substr(start);
  constexpr std::string_view kIndex = "/index.html";
  if (relative.size() + kIndex.size() >= kMaxPathBytes) return 404;

  char name[kMaxPathBytes];
  size_t len = relative.size();
  if (len == 0) {
    name[len++] = '.';
  } else {
    std::memcpy(name, relative.data(), len);
  }
  name[len] = '\0';

  bool is_dir = false;
  const int status = open_regular(dir_fd_, name, out, &is_dir);
  if (!is_dir) return status;
  // A directory: its index.html, resolved from the root again so that an index.html symlink to a
  // sibling inside the root works while one climbing out is still refused.
  std::memcpy(name + len, kIndex.data(), kIndex.size());
  name[len + kIndex.size()] = '\0';
  bool index_is_dir = false;
  const int index_status = open_regular(dir_fd_, name, out, &index_is_dir);
  out->is_index = index_status == 200;
  return index_status;
}

}  // namespace hail
