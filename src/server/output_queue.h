// OutputQueue: what one server connection still has to send, in order — rendered heads and small
// bodies in one contiguous buffer, /bytes bodies as references to a static pattern, large files as
// (fd, offset, length), plus delay and close markers. gather() turns the front into an iovec batch
// so a connection sends everything ready with one sendmsg. Owner: server. Single-threaded (its
// connection's reactor).
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hail {

// /bytes/N bodies: byte i of every body is kBodyPattern[i % kBodyPatternPeriod] (63 printable
// characters and a newline, so a body is readable and any slip in the stream is visible).
inline constexpr size_t kBodyPatternPeriod = 64;
extern const char kBodyPattern[kBodyPatternPeriod + 1];
// kBodyPatternBufferBytes bytes of the repeated pattern, shared read-only by every connection.
inline constexpr size_t kBodyPatternBufferBytes = 64 * 1024;
const char* body_pattern_buffer();

class OutputQueue {
 public:
  enum class Stop : uint8_t {
    kEmpty,  // everything queued is in the batch
    kFull,   // the batch hit max_iov or max_bytes: send it and gather again
    kFile,   // a file body follows the batch: send the batch (MSG_MORE), then sendfile front_file()
    kDelay,  // a /delay response follows the batch; it becomes ready at delay_until_ns
    kClose,  // the connection closes after the batch
  };
  struct Batch {
    size_t iov_count = 0;
    uint64_t bytes = 0;
    Stop stop = Stop::kEmpty;
    uint64_t delay_until_ns = 0;
  };
  struct FileChunk {
    int fd = -1;
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  // Position for rollback(): undoes appends made after mark() (e.g. when a file read comes up
  // short).
  struct Mark {
    size_t segments = 0;
    size_t buffer_bytes = 0;
    uint64_t last_length = 0;
  };

  OutputQueue() = default;
  ~OutputQueue();
  OutputQueue(const OutputQueue&) = delete;
  OutputQueue& operator=(const OutputQueue&) = delete;

  // `counted` bytes add to the server's bytes_sent once sent (false for /stats, which must not
  // disturb what it measures).
  void append(std::string_view bytes, bool counted);
  // Appends `n` bytes to fill in place (e.g. by pread); valid until the next call on the queue.
  char* append_space(size_t n, bool counted);
  void add_pattern(uint64_t bytes, bool counted);
  void add_file(int fd, uint64_t offset, uint64_t length, bool counted);  // takes ownership of fd
  void add_delay(uint64_t not_before_ns);
  void add_close();
  Mark mark() const;
  void rollback(const Mark& mark);

  // Fills `iov` from the front up to the first file, pending delay or close marker. Delays whose
  // time has come (now_ns) are passed over.
  Batch gather(iovec* iov, size_t max_iov, uint64_t max_bytes, uint64_t now_ns);
  // The file at the front; only after gather() returned kFile with an empty batch.
  FileChunk front_file() const;
  // Drops `bytes` sent bytes from the front; returns how many of them were `counted`.
  uint64_t consume(uint64_t bytes);

  bool empty() const { return count_ == 0; }
  size_t segments() const { return count_; }
  // Bytes held in the buffer (heads, small and echoed bodies): the memory a client can make us
  // hold.
  size_t buffered_bytes() const { return buffer_.size() - buffer_head_; }
  bool closing() const { return closing_; }

 private:
  enum class Kind : uint8_t { kBuffer, kPattern, kFile, kDelay, kClose };
  struct Segment {
    Kind kind;
    bool counted;
    int fd;
    uint64_t length;  // bytes (0 for markers)
    uint64_t value;   // kFile: offset of the first byte; kDelay: not_before_ns
  };

  Segment& at(size_t i) { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  const Segment& at(size_t i) const { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  void push(const Segment& segment);
  void pop_front();

  // Power-of-two ring: pushes and pops are index arithmetic, no allocation once grown.
  std::vector<Segment> ring_;
  size_t head_ = 0;
  size_t count_ = 0;
  uint64_t front_sent_ = 0;  // bytes of the front segment already sent
  std::string buffer_;
  size_t buffer_head_ = 0;  // first unsent byte of buffer_
  bool closing_ = false;
};

}  // namespace hail
