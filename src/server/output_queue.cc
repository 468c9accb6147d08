#include "server/output_queue.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace hail {

const char kBodyPattern[kBodyPatternPeriod + 1] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n";
static_assert(sizeof kBodyPattern == kBodyPatternPeriod + 1);
static_assert(kBodyPatternBufferBytes % kBodyPatternPeriod == 0);

namespace {

// Above this an emptied buffer gives its memory back: one large /echo must not pin megabytes for
// the rest of a keep-alive connection.
constexpr size_t kKeepBufferCapacity = 256 * 1024;

struct PatternBuffer {
  char bytes[kBodyPatternBufferBytes];
  PatternBuffer() {
    for (size_t i = 0; i < kBodyPatternBufferBytes; ++i)
      bytes[i] = kBodyPattern[i % kBodyPatternPeriod];
  }
};

}  // namespace

const char* body_pattern_buffer() {
  static const PatternBuffer buffer;  // thread-safe static init; reactors only read it
  return buffer.bytes;
}

OutputQueue::~OutputQueue() {
  for (size_t i = 0; i < count_; ++i) {
    if (at(i).kind == Kind::kFile) close(at(i).fd);
  }
}

void OutputQueue::push(const Segment& segment) {
  if (count_ == ring_.size()) {
    std::vector<Segment> grown(ring_.empty() ? 8 : ring_.size() * 2);
    for (size_t i = 0; i < count_; ++i) grown[i] = at(i);
    ring_.swap(grown);
    head_ = 0;
  }
  ring_[(head_ + count_) & (ring_.size() - 1)] = segment;
  ++count_;
}

void OutputQueue::pop_front() {
  Segment& front = at(0);
  if (front.kind == Kind::kFile) close(front.fd);
  head_ = (head_ + 1) & (ring_.size() - 1);
  --count_;
  front_sent_ = 0;
}

void OutputQueue::append(std::string_view bytes, bool counted) {
  if (bytes.empty()) return;
  std::memcpy(append_space(bytes.size(), counted), bytes.data(), bytes.size());
}

char* OutputQueue::append_space(size_t n, bool counted) {
  const size_t old_size = buffer_.size();
  buffer_.resize(old_size + n);
  if (n > 0) {
    Segment* last = count_ > 0 ? &at(count_ - 1) : nullptr;
    if (last != nullptr && last->kind == Kind::kBuffer && last->counted == counted) {
      last->length += n;
    } else {
      push(Segment{Kind::kBuffer, counted, -1, n, 0});
    }
  }
  return buffer_.data() + old_size;
}

void OutputQueue::add_pattern(uint64_t bytes, bool counted) {
  if (bytes == 0) return;
  push(Segment{Kind::kPattern, counted, -1, bytes, 0});
}

void OutputQueue::add_file(int fd, uint64_t offset, uint64_t length, bool counted) {
  if (length == 0) {
    close(fd);
    return;
  }
  push(Segment{Kind::kFile, counted, fd, length, offset});
}

void OutputQueue::add_delay(uint64_t not_before_ns) {
  push(Segment{Kind::kDelay, false, -1, 0, not_before_ns});
}

void OutputQueue::add_close() {
  if (closing_) return;
  closing_ = true;
  push(Segment{Kind::kClose, false, -1, 0, 0});
}

OutputQueue::Mark OutputQueue::mark() const {
  Mark m;
  m.segments = count_;
  m.buffer_bytes = buffer_.size();
  m.last_length = count_ > 0 ? at(count_ - 1).length : 0;
  return m;
}

void OutputQueue::rollback(const Mark& m) {
  while (count_ > m.segments) {
    Segment& last = at(count_ - 1);
    if (last.kind == Kind::kFile) close(last.fd);
    if (last.kind == Kind::kClose) closing_ = false;
    --count_;
  }
  if (count_ > 0) at(count_ - 1).length = m.last_length;
  buffer_.resize(m.buffer_bytes);
}

OutputQueue::Batch OutputQueue::gather(iovec* iov, size_t max_iov, uint64_t max_bytes,
                                       uint64_t now_ns) {
  Batch batch;
  while (count_ > 0 && at(0).kind == Kind::kDelay && at(0).value <= now_ns) pop_front();

  // Adds up to `len` bytes at `data` to the batch, joining them to the previous iovec when
  // contiguous; returns how many fit (fewer than `len` means the batch is full).
  auto add = [&](const char* data, uint64_t len) -> uint64_t {
    len = std::min(len, max_bytes - batch.bytes);
    if (len == 0) return 0;
    if (batch.iov_count > 0) {
      iovec& prev = iov[batch.iov_count - 1];
      if (static_cast<const char*>(prev.iov_base) + prev.iov_len == data) {
        prev.iov_len += len;
        batch.bytes += len;
        return len;
      }
    }
    if (batch.iov_count == max_iov) return 0;
    iov[batch.iov_count].iov_base = const_cast<char*>(data);
    iov[batch.iov_count].iov_len = len;
    ++batch.iov_count;
    batch.bytes += len;
    return len;
  };

  size_t buffer_pos = buffer_head_;
  for (size_t i = 0; i < count_; ++i) {
    const Segment& segment = at(i);
    const uint64_t skip = i == 0 ? front_sent_ : 0;
    switch (segment.kind) {
      case Kind::kBuffer: {
        const uint64_t len = segment.length - skip;
        if (add(buffer_.data() + buffer_pos, len) < len) {
          batch.stop = Stop::kFull;
          return batch;
        }
        buffer_pos += len;
        break;
      }
      case Kind::kPattern: {
        const char* pattern = body_pattern_buffer();
        for (uint64_t offset = skip; offset < segment.length;) {
          // Every chunk starts at the pattern phase of its body offset, so the body stays one
          // unbroken repetition however it is split across batches.
          const size_t phase = offset % kBodyPatternPeriod;
          const uint64_t chunk =
              std::min<uint64_t>(segment.length - offset, kBodyPatternBufferBytes - phase);
          const uint64_t taken = add(pattern + phase, chunk);
          if (taken < chunk) {
            batch.stop = Stop::kFull;
            return batch;
          }
          offset += taken;
        }
        break;
      }
      case Kind::kFile:
        batch.stop = Stop::kFile;
        return batch;
      case Kind::kDelay:
        if (segment.value <= now_ns) break;
        batch.stop = Stop::kDelay;
        batch.delay_until_ns = segment.value;
        return batch;
      case Kind::kClose:
        batch.stop = Stop::kClose;
        return batch;
    }
  }
  batch.stop = Stop::kEmpty;
  return batch;
}

OutputQueue::FileChunk OutputQueue::front_file() const {
  FileChunk chunk;
  if (count_ == 0 || at(0).kind != Kind::kFile) return chunk;
  const Segment& front = at(0);
  chunk.fd = front.fd;
  chunk.offset = front.value + front_sent_;
  chunk.length = front.length - front_sent_;
  return chunk;
}

uint64_t OutputQueue::consume(uint64_t bytes) {
  uint64_t counted = 0;
  while (bytes > 0 && count_ > 0) {
    Segment& front = at(0);
    if (front.kind == Kind::kDelay) {
      // Bytes behind it were sent, so gather() found its time had come.
      pop_front();
      continue;
    }
    if (front.kind == Kind::kClose) break;
    const uint64_t take = std::min(bytes, front.length - front_sent_);
    if (front.kind == Kind::kBuffer) buffer_head_ += take;
    if (front.counted) counted += take;
    bytes -= take;
    front_sent_ += take;
    if (front_sent_ == front.length) pop_front();
  }
  if (buffer_head_ == buffer_.size() && buffer_head_ > 0) {
    buffer_head_ = 0;
    if (buffer_.capacity() > kKeepBufferCapacity) {
      std::string().swap(buffer_);
    } else {
      buffer_.clear();
    }
  }
  return counted;
}

}  // namespace hail
