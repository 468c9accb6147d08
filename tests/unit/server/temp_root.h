// A throw-away --root tree for the static-file tests: files, an index, a large file, a FIFO and
// symlinks pointing inside and outside the root. Test code only.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace hail::test {

class TempRoot {
 public:
  static constexpr size_t kLargeBytes = 300 * 1000;

  TempRoot() {
    char tmpl[] = "/tmp/hail_root_XXXXXX";
    base_ = mkdtemp(tmpl);
    root_ = base_ + "/root";
    std::filesystem::create_directories(root_ + "/sub/deeper");
    std::filesystem::create_directories(root_ + "/noindex");
    write(root_ + "/index.html", "<h1>home</h1>\n");
    write(root_ + "/a.txt", "alpha\n");
    write(root_ + "/sub/index.html", "<p>sub</p>\n");
    write(root_ + "/sub/b.css", "b{}\n");
    write(root_ + "/sub/deeper/c.json", "{}\n");
    write(root_ + "/with space.txt", "space\n");
    write(base_ + "/secret.txt", "outside the root\n");
    std::string large(kLargeBytes, '\0');
    for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>('A' + (i * 7) % 26);
    write(root_ + "/large.bin", large);
    mkfifo((root_ + "/fifo").c_str(), 0600);
    symlink("/etc", (root_ + "/etc_link").c_str());              // absolute, outside
    symlink("/etc/passwd", (root_ + "/passwd_link").c_str());    // absolute, outside
    symlink("../secret.txt", (root_ + "/secret_link").c_str());  // relative, climbs out
    symlink("a.txt", (root_ + "/a_link.txt").c_str());           // relative, inside
    symlink("../a.txt", (root_ + "/sub/up_link.txt").c_str());  // relative, climbs but stays inside
    symlink("sub", (root_ + "/sub_link").c_str());              // directory inside
    symlink((root_ + "/a.txt").c_str(), (root_ + "/abs_inside_link.txt").c_str());  // absolute
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(base_, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::string& path() const { return root_; }
  std::string read(const std::string& relative) const {
    std::ifstream in(root_ + "/" + relative, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  static void write(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }

  std::string base_;
  std::string root_;
};

}  // namespace hail::test
