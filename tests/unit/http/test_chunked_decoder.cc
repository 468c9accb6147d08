// ChunkedDecoder: every input decoded whole, at every split, one byte at a time, next to a guard
// page, and with chunk data skipped instead of fed; all must agree on status, consumed bytes and
// data.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "http/chunked_decoder.h"
#include "unit/http/response_trace.h"

namespace hail::test {
namespace {

using Status = ChunkedDecoder::Status;

struct Outcome {
  Status status = Status::kNeedMore;
  size_t consumed = 0;  // total over all pieces
  std::string data;     // data fed through the callback (skipped bytes are counted, not kept)
  uint64_t data_bytes = 0;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << "{status=" << static_cast<int>(o.status) << " consumed=" << o.consumed
            << " data_bytes=" << o.data_bytes << " data=\"" << o.data << "\"}";
}

void append(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

Outcome decode(const std::string& input, const std::vector<size_t>& cuts, bool skip) {
  static GuardedBuffer guard(1 << 18);
  ChunkedDecoder d;
  Outcome o;
  size_t start = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    size_t stop = i < cuts.size() ? cuts[i] : input.size();
    const char* piece = guard.place(input.data() + start, stop - start);
    size_t len = stop - start;
    size_t off = 0;
    while (off < len) {
      if (skip && d.data_remaining() > 0) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(d.data_remaining(), len - off));
        d.skip_data(n);
        o.data.append(input, start + off, n);  // what a feeding caller would have seen
        off += n;
        o.consumed += n;
        continue;
      }
      ChunkedDecoder::Result r = d.feed(piece + off, len - off, &append, &o.data);
      EXPECT_LE(r.consumed, len - off);
      if (r.status == Status::kNeedMore) {
        EXPECT_EQ(r.consumed, len - off);
      }
      off += r.consumed;
      o.consumed += r.consumed;
      if (r.status != Status::kNeedMore) {
        o.status = r.status;
        o.data_bytes = d.data_bytes();
        EXPECT_EQ(d.feed(piece, len, nullptr, nullptr).consumed, 0u) << "not sticky";
        return o;
      }
    }
    start = stop;
  }
  o.data_bytes = d.data_bytes();
  return o;
}

// Checks `expected` for the whole input, then that every other way of delivering it agrees.
void check(const std::string& input, const Outcome& expected) {
  SCOPED_TRACE(testing::PrintToString(input));
  Outcome whole = decode(input, {}, false);
  EXPECT_EQ(whole, expected);
  // Data is only compared when decoding succeeded or stopped at the same byte: after an error the
  // bytes already handed out are the same whatever the split, and so is `consumed`.
  for (bool skip : {false, true}) {
    EXPECT_EQ(decode(input, {}, skip), whole) << "skip=" << skip;
    for (size_t i = 1; i < input.size(); ++i) {
      Outcome o = decode(input, {i}, skip);
      if (!(o == whole)) {
        ADD_FAILURE() << "split at " << i << " skip=" << skip << ": " << o;
        break;
      }
    }
    std::vector<size_t> bytes(input.empty() ? 0 : input.size() - 1);
    std::iota(bytes.begin(), bytes.end(), size_t{1});
    EXPECT_EQ(decode(input, bytes, skip), whole) << "one byte at a time, skip=" << skip;
  }
}

Outcome Done(size_t consumed, std::string data) {
  return {Status::kDone, consumed, data, data.size()};
}
Outcome More(size_t consumed, std::string data) {
  return {Status::kNeedMore, consumed, data, data.size()};
}
Outcome Error(size_t consumed, std::string data) {
  return {Status::kError, consumed, data, data.size()};
}

TEST(ChunkedDecoder, Simple) {
  std::string s = "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  check(s, Done(s.size(), "hello world"));
}

TEST(ChunkedDecoder, StopsRightAfterTheLastCrlf) {
  std::string s = "3\r\nabc\r\n0\r\n\r\n";
  check(s + "HTTP/1.1 200 OK\r\n", Done(s.size(), "abc"));
}

TEST(ChunkedDecoder, HexCaseAndLeadingZeros) {
  std::string s =
      "00000000000000000000000000000000000A\r\n0123456789\r\n0f\r\n0123456789abcde\r\n"
      "1F\r\n0123456789abcdef0123456789abcde\r\n000\r\n\r\n";
  check(s, Done(s.size(),
                "0123456789"
                "0123456789abcde"
                "0123456789abcdef0123456789abcde"));
}

TEST(ChunkedDecoder, ExtensionsAreSkipped) {
  std::string s =
      "3;name=value\r\nabc\r\n2 ; a ; b=\"q;uo\\\"te\\\\d\" ;c=\r\nde\r\n"
      "1;\"odd\"\r\nf\r\n0;last=\"x\"\r\n\r\n";
  check(s, Done(s.size(), "abcdef"));
}

TEST(ChunkedDecoder, SizePaddedWithWhitespace) {
  std::string s = "3 \t\r\nabc\r\n0  \r\n\r\n";
  check(s, Done(s.size(), "abc"));
}

TEST(ChunkedDecoder, TrailersAreSkipped) {
  std::string s = "2\r\nhi\r\n0\r\nExpires: never\r\nX-Checksum: abc\tdef\r\n\r\n";
  check(s, Done(s.size(), "hi"));
}

TEST(ChunkedDecoder, BareLfLineEnds) {
  std::string s = "2\nhi\n3;x=y\nabc\r\n0\nTrailer: t\n\n";
  check(s, Done(s.size(), "hiabc"));
}

TEST(ChunkedDecoder, Incomplete) {
  check("", More(0, ""));
  check("5\r\nhel", More(6, "hel"));
  check("5\r\nhello", More(8, "hello"));
  check("5\r\nhello\r\n0\r\n", More(13, "hello"));
  check("5\r\nhello\r\n0\r\nTrailer: x\r\n", More(25, "hello"));
}

TEST(ChunkedDecoder, BadSizes) {
  check("\r\n", Error(0, ""));
  check("g\r\n", Error(0, ""));
  check("-1\r\n", Error(0, ""));
  check("+1\r\n", Error(0, ""));
  check(" 1\r\n", Error(0, ""));
  check("0x10\r\n", Error(1, ""));
  check("1 2\r\n", Error(2, ""));
  check(";ext\r\n", Error(0, ""));
}

TEST(ChunkedDecoder, SizeOverflow) {
  check("4000000000000000\r\n", More(18, ""));  // exactly 2^62 is accepted
  check("4000000000000001\r\n", Error(15, ""));
  check("10000000000000000\r\n", Error(16, ""));
  check("ffffffffffffffffffff\r\n", Error(15, ""));
  check("0000000000000000000004000000000000001\r\n", Error(36, ""));
}

TEST(ChunkedDecoder, MissingCrlfAfterData) {
  check("5\r\nhelloX", Error(8, "hello"));
  check("5\r\nhello\rX", Error(9, "hello"));
  check("5\r\nhello0\r\n\r\n", Error(8, "hello"));
}

TEST(ChunkedDecoder, BareCrInFraming) {
  check("5\rhello\r\n", Error(2, ""));
  check("5;a=b\rX\r\n", Error(6, ""));
  check("0\r\n\rX", Error(4, ""));
  check("0\r\nA: b\rX\r\n\r\n", Error(8, ""));
}

TEST(ChunkedDecoder, BadExtensions) {
  check("1;a=\"unterminated\r\nx\r\n0\r\n\r\n", Error(17, ""));
  check("1;a=\"esc\\\r\nx\r\n0\r\n\r\n", Error(9, ""));
  check(std::string("1;a\0b\r\nx\r\n", 10), Error(3, ""));
  check("1;a\x7f\r\nx\r\n", Error(3, ""));
}

TEST(ChunkedDecoder, TrailerObsFoldAndEmptyValue) {
  std::string s = "1\r\nx\r\n0\r\nX-Long: a\r\n  b\r\n\tc\r\nEmpty:\r\n\r\n";
  check(s, Done(s.size(), "x"));
}

TEST(ChunkedDecoder, BadTrailer) {
  check(std::string("0\r\nA: \0\r\n\r\n", 11), Error(6, ""));
  check("0\r\n\x01\r\n\r\n", Error(3, ""));
  check("0\r\nno colon\r\n\r\n", Error(5, ""));
  check("0\r\n: empty name\r\n\r\n", Error(3, ""));
  check("0\r\n folded first\r\n\r\n", Error(3, ""));
  check("0\r\nName : v\r\n\r\n", Error(7, ""));
  // A server that forgets the final CRLF: the next response's head is not taken for trailers.
  check("0\r\nHTTP/1.1 200 OK\r\n\r\n", Error(7, ""));
}

TEST(ChunkedDecoder, SizeLineLimit) {
  std::string ok =
      "1;" + std::string(ChunkedDecoder::kMaxSizeLineBytes - 3, 'e') + "\nx\r\n0\r\n\r\n";
  check(ok, Done(ok.size(), "x"));
  std::string bad = "1;" + std::string(ChunkedDecoder::kMaxSizeLineBytes - 2, 'e') + "\nx\r\n";
  check(bad, Error(ChunkedDecoder::kMaxSizeLineBytes, ""));
  std::string zeros = std::string(ChunkedDecoder::kMaxSizeLineBytes + 10, '0') + "1\r\n";
  check(zeros, Error(ChunkedDecoder::kMaxSizeLineBytes, ""));
}

TEST(ChunkedDecoder, TrailerLimit) {
  // Trailer bytes are counted from the first byte after "0\r\n" through the final empty line.
  std::string ok = "0\r\nt:" + std::string(ChunkedDecoder::kMaxTrailerBytes - 6, 'v') + "\r\n\r\n";
  ChunkedDecoder d;
  EXPECT_EQ(d.feed(ok.data(), ok.size()).status, Status::kDone);
  std::string bad = "0\r\nt:" + std::string(ChunkedDecoder::kMaxTrailerBytes, 'v') + "\r\n\r\n";
  ChunkedDecoder e;
  ChunkedDecoder::Result r = e.feed(bad.data(), bad.size());
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.consumed, 3 + ChunkedDecoder::kMaxTrailerBytes);
  EXPECT_STREQ(e.error_reason(), "trailer section too large");
}

TEST(ChunkedDecoder, SkipDataAccounting) {
  ChunkedDecoder d;
  std::string head = "10\r\n";
  d.feed(head.data(), head.size());
  EXPECT_EQ(d.data_remaining(), 16u);
  d.skip_data(10);
  EXPECT_EQ(d.data_remaining(), 6u);
  EXPECT_EQ(d.data_bytes(), 10u);
  d.skip_data(6);
  EXPECT_EQ(d.data_remaining(), 0u);
  std::string rest = "\r\n0\r\n\r\n";
  EXPECT_EQ(d.feed(rest.data(), rest.size()).status, Status::kDone);
  EXPECT_EQ(d.data_bytes(), 16u);
  EXPECT_TRUE(d.done());
  d.reset();
  EXPECT_FALSE(d.done());
  EXPECT_EQ(d.data_bytes(), 0u);
}

TEST(ChunkedDecoder, ErrorReasons) {
  struct {
    const char* input;
    const char* reason;
  } cases[] = {
      {"x", "bad chunk size"},
      {"4000000000000001", "chunk size too large"},
      {"1\rx", "expected LF after chunk size"},
      {"1;\"\r", "bad chunk extension"},
      {"1\r\naX", "missing CRLF after chunk data"},
      {"0\r\n\x01", "bad trailer field"},
      {"0\r\nA:\rX", "expected LF in trailer section"},
      {"0\r\n\rX", "expected LF after trailer section"},
  };
  for (const auto& c : cases) {
    ChunkedDecoder d;
    std::string s = c.input;
    EXPECT_EQ(d.feed(s.data(), s.size()).status, Status::kError) << s;
    EXPECT_TRUE(d.failed());
    EXPECT_STREQ(d.error_reason(), c.reason) << s;
  }
}

}  // namespace
}  // namespace hail::test
