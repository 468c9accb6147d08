#include "http/head_parser.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hail {

namespace {

// Byte classes, one table lookup per byte in the name loop.
constexpr uint8_t kTchar = 1;  // RFC 9110 §5.6.2 tchar
constexpr uint8_t kCtl = 2;    // control byte other than HTAB, or DEL (llhttp: not a token char)

struct ByteClasses {
  uint8_t of[256];
};

constexpr ByteClasses make_byte_classes() {
  ByteClasses t{};
  for (int c = 0; c < 256; ++c) {
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool tchar_punct = false;
    for (char p : {'!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~'}) {
      if (c == p) tchar_punct = true;
    }
    uint8_t v = 0;
    if (alnum || tchar_punct) v |= kTchar;
    if ((c < 0x20 && c != '\t') || c == 0x7f) v |= kCtl;
    t.of[c] = v;
  }
  return t;
}

constexpr ByteClasses kClasses = make_byte_classes();

inline uint8_t byte_class(char c) {
  return kClasses.of[static_cast<unsigned char>(c)];
}

inline bool is_tchar(char c) {
  return (byte_class(c) & kTchar) != 0;
}

inline bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

inline uint64_t load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint16_t load2(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint32_t load4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Case-insensitive compare of n bytes (4 <= n <= 16) against `lower`, which holds lower-case
// letters and '-' only. OR-ing 0x20 folds exactly the upper-case letters onto those letters; onto
// '-' it folds only CR besides '-', and no CR is ever compared (names are tchar, values end before
// their CR).
inline bool eq_ci(const char* s, const char* lower, size_t n) {
  if (n >= 8) {
    return ((load8(s) | 0x2020202020202020ULL) == load8(lower)) &&
           ((load8(s + n - 8) | 0x2020202020202020ULL) == load8(lower + n - 8));
  }
  return ((load4(s) | 0x20202020U) == load4(lower)) &&
         ((load4(s + n - 4) | 0x20202020U) == load4(lower + n - 4));
}

// How many of the 16 bytes from p are letters, digits or '-', before the first that is not: what
// nearly every field name is made of, and the colon after it is the first byte outside the set. 16
// bytes must be readable at p.
inline unsigned common_name_run(const char* p) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // Signed compares: bytes >= 0x80 are negative, outside every range. OR 0x20 maps exactly the
  // letters into 'a'..'z'.
  const __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20));
  const __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                      _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
  const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
  const __m128i dash = _mm_cmpeq_epi8(x, _mm_set1_epi8('-'));
  const unsigned in_set =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digit), dash)));
  return static_cast<unsigned>(__builtin_ctz(~in_set));  // bit 16 and up of ~in_set are set
#else
  unsigned n = 0;
  while (n < 16 && (((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
                    (p[n] >= '0' && p[n] <= '9') || p[n] == '-')) {
    ++n;
  }
  return n;
#endif
}

// Finds line ends (CR or LF) from the start of the status line on. SIMD compares fill a bitmap for
// 64 bytes at a time, so each line costs a shift and a count of trailing zeros rather than a scan.
// Never reads outside [buf, end): the tests place `end` next to a guard page.
class LineEnds {
 public:
  LineEnds(const char* buf, const char* end) : buf_(buf), end_(end) {}

  // The first CR or LF at or after p, or end. Calls must not go backwards.
  const char* next(const char* p) {
    for (;;) {
      const size_t off = static_cast<size_t>(p - chunk_);
      if (off < 64) {
        const uint64_t m = bits_ >> off;
        if (m != 0) return p + __builtin_ctzll(m);
        p = chunk_ + 64;
      }
      if (p >= end_) return end_;
      load(p);
    }
  }

 private:
  void load(const char* p) {
    chunk_ = p;
    const size_t left = static_cast<size_t>(end_ - p);
    if (left >= 64) {
      bits_ = mask64(p);
    } else if (end_ - buf_ >= 64) {
      // The 64 bytes ending at end_: all inside the buffer; the shift drops those before p.
      bits_ = mask64(end_ - 64) >> (64 - left);
    } else {
      bits_ = 0;
      for (size_t i = 0; i < left; ++i) {
        if (p[i] == '\r' || p[i] == '\n') bits_ |= uint64_t{1} << i;
      }
    }
  }

  static uint64_t mask64(const char* p) {
#if defined(__SSE2__)
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i lf = _mm_set1_epi8('\n');
    uint64_t bits = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf));
      bits |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(hit))) << (16 * i);
    }
    return bits;
#else
    uint64_t bits = 0;
    for (int i = 0; i < 64; ++i) {
      if (p[i] == '\r' || p[i] == '\n') bits |= uint64_t{1} << i;
    }
    return bits;
#endif
  }

  const char* buf_;
  const char* end_;
  const char* chunk_ = nullptr;  // bits_ covers [chunk_, chunk_ + 64) (nothing past end_)
  uint64_t bits_ = 0;
};

// Element of a Transfer-Encoding or Connection list, trimmed the way llhttp trimmed it: SP/HTAB
// before, SP only after.
inline bool list_element_is(const char* b, const char* e, const char* lower, size_t n) {
  while (b < e && is_ows(*b)) ++b;
  while (e > b && e[-1] == ' ') --e;
  if (static_cast<size_t>(e - b) != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if ((b[i] | 0x20) != lower[i]) return false;  // lower holds letters and '-' only
  }
  return true;
}

// Transfer-Encoding value [v, eol), non-empty: is its last coding "chunked"? A control byte
// anywhere makes it not chunked (llhttp stopped interpreting the value there).
bool last_coding_is_chunked(const char* v, const char* eol) {
  if (eol - v == 7) return eq_ci(v, "chunked", 7);  // the usual value, and the same answer
  const char* last = v;
  for (const char* q = v; q < eol; ++q) {
    if (*q == ',') last = q + 1;
    if ((byte_class(*q) & kCtl) != 0) return false;
  }
  return list_element_is(last, eol, "chunked", 7);
}

// Connection value [v, eol), non-empty. Elements count once a ',' or the line end closes them; a
// control byte drops the element holding it and the rest of the value (as llhttp did).
void scan_connection(const char* v, const char* eol, ResponseHead* h) {
  // The usual values first: a lone token of exactly that length is all the loop below would see.
  if (eol - v == 10 && eq_ci(v, "keep-alive", 10)) {
    h->connection_keep_alive = true;
    return;
  }
  if (eol - v == 5 && eq_ci(v, "close", 5)) {
    h->connection_close = true;
    return;
  }
  const char* elem = v;
  auto commit = [&](const char* e) {
    if (list_element_is(elem, e, "close", 5)) h->connection_close = true;
    if (list_element_is(elem, e, "keep-alive", 10)) h->connection_keep_alive = true;
  };
  for (const char* q = v; q < eol; ++q) {
    if (*q == ',') {
      commit(q);
      elem = q + 1;
    } else if ((byte_class(*q) & kCtl) != 0) {
      return;
    }
  }
  commit(eol);
}

enum class Field : uint8_t { kOther, kContentLength, kTransferEncoding, kConnection };

// Only the framing fields matter; the length test rejects nearly every other name at once.
inline Field classify(const char* name, size_t len) {
  switch (len) {
    case 10:
      if (eq_ci(name, "connection", 10)) return Field::kConnection;
      break;
    case 14:
      if (eq_ci(name, "content-length", 14)) return Field::kContentLength;
      break;
    case 16:
      if (eq_ci(name, "proxy-connection", 16)) return Field::kConnection;
      break;
    case 17:
      if (name[0] == 't' || name[0] == 'T') {
        if (eq_ci(name + 1, "ransfer-encoding", 16)) return Field::kTransferEncoding;
      }
      break;
    default:
      break;
  }
  return Field::kOther;
}

HeadParseResult error(HeadError kind, const char* reason, const char* at, const char* buf) {
  return {HeadParseStatus::kError, kind, static_cast<size_t>(at - buf), reason, false};
}

// Status line up to its 13th byte ("HTTP/1.1 200" and what follows the code), byte by byte: for
// heads cut short, and to name what is wrong. Returns nullptr with *r set unless the prefix is
// complete and valid; then p + 12.
const char* status_prefix_slow(const char* buf, const char* p, const char* end, ResponseHead* h,
                               HeadParseResult* r) {
  static constexpr char kHttp[] = "HTTP/";
  for (int i = 0; i < 13; ++i) {
    if (p + i == end) {
      *r = {HeadParseStatus::kIncomplete, HeadError::kNone, 0, "", false};
      return nullptr;
    }
    const char c = p[i];
    const bool digit = c >= '0' && c <= '9';
    const char* bad = nullptr;
    if (i < 5) {
      if (c != kHttp[i]) bad = "malformed status line";
    } else if (i == 5 || i == 7) {
      if (!digit) {
        bad = "malformed status line";
      } else if (i == 5 && c != '1') {
        bad = "unsupported HTTP version";
      }
    } else if (i == 6) {
      if (c != '.') bad = "malformed status line";
    } else if (i == 8) {
      if (c != ' ') bad = "malformed status line";
    } else if (i < 12) {
      // RFC 9110 §15: status codes are 100..599; another three digits are no status.
      if (!digit || (i == 9 && (c == '0' || c > '5'))) bad = "invalid status code";
    } else if (c != ' ' && c != '\r' && c != '\n') {
      bad = "invalid status code";
    }
    if (bad != nullptr) {
      *r = error(HeadError::kSyntax, bad, p + i, buf);
      return nullptr;
    }
  }
  // RFC 9110 §2.5: a higher HTTP/1.x minor version is processed as the highest one understood.
  h->http_minor = static_cast<uint8_t>(p[7] > '1' ? 1 : p[7] - '0');
  h->status = static_cast<uint16_t>((p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0'));
  return p + 12;
}

// Content-Length value [v, eol): 1+ digits, then SP only (llhttp refused HTAB there).
bool parse_content_length(const char* v, const char* eol, ResponseHead* h, const char** bad,
                          const char** reason) {
  if (v == eol) {
    *bad = v;
    *reason = "Empty Content-Length";
    return false;
  }
  if (h->has_content_length) {
    *bad = v;
    *reason = "Duplicate Content-Length";
    return false;
  }
  uint64_t n = 0;
  const char* q = v;
  // 19 digits cannot overflow 64 bits; only longer values need the checked loop.
  const char* unchecked_end = eol - v > 19 ? v + 19 : eol;
  for (; q < unchecked_end && static_cast<unsigned char>(*q - '0') <= 9; ++q) {
    n = n * 10 + static_cast<unsigned>(*q - '0');
  }
  for (; q < eol && *q >= '0' && *q <= '9'; ++q) {
    if (__builtin_mul_overflow(n, 10u, &n) || __builtin_add_overflow(n, *q - '0', &n)) {
      *bad = q;
      *reason = "Content-Length overflow";
      return false;
    }
  }
  const bool digits = q != v;
  while (q < eol && *q == ' ') ++q;
  if (!digits || q != eol) {
    *bad = q;
    *reason = "Invalid character in Content-Length";
    return false;
  }
  h->has_content_length = true;
  h->content_length = n;
  return true;
}

// Where a line that starts at p ends: *next is the start of the following line. Returns false
// with *r set when the line is not complete yet or ends in a bare CR.
inline bool end_line(const char* eol, const char* end, const char* buf, const char** next,
                     HeadParseResult* r) {
  if (eol == end) {
    r->waiting_for_line_end = true;  // only a CR or LF can take this further
    return false;
  }
  const char* n = eol + 1;
  if (*eol == '\r') {
    if (n == end) return false;
    if (*n != '\n') {
      *r = error(HeadError::kSyntax, "bare CR in header section", eol, buf);
      return false;
    }
    ++n;
  }
  *next = n;
  return true;
}

template <bool kFields>
HeadParseResult parse(const char* buf, size_t len, ResponseHead* h, const HeadFieldSink* sink) {
  *h = ResponseHead{};
  const char* const end = buf + std::min(len, kMaxResponseHeadBytes);
  const char* p = buf;
  HeadParseResult r{HeadParseStatus::kIncomplete, HeadError::kNone, 0, "", false};

  // Empty lines before the status line.
  while (p < end && (*p == '\r' || *p == '\n')) {
    if (*p == '\n') {
      ++p;
    } else if (p + 1 == end) {
      goto incomplete;
    } else if (p[1] != '\n') {
      return error(HeadError::kSyntax, "bare CR in header section", p, buf);
    } else {
      p += 2;
    }
  }

  {
    LineEnds line_ends(buf, end);

    // Status line. The common shape is checked in a few compares; anything else goes byte by byte.
    const char* after_code;
    if (end - p >= 13 && (load8(p) == load8("HTTP/1.1") || load8(p) == load8("HTTP/1.0")) &&
        p[8] == ' ' && static_cast<unsigned char>(p[9] - '1') <= 4 &&
        static_cast<unsigned char>(p[10] - '0') <= 9 &&
        static_cast<unsigned char>(p[11] - '0') <= 9 &&
        (p[12] == ' ' || p[12] == '\r' || p[12] == '\n')) {
      h->http_minor = static_cast<uint8_t>(p[7] - '0');
      h->status = static_cast<uint16_t>((p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0'));
      after_code = p + 12;
    } else {
      after_code = status_prefix_slow(buf, p, end, h, &r);
      if (after_code == nullptr) {
        if (r.status == HeadParseStatus::kError) return r;
        goto incomplete;
      }
    }
    h->http_major = 1;
    if (!end_line(line_ends.next(after_code), end, buf, &p, &r)) {
      if (r.status == HeadParseStatus::kError) return r;
      goto incomplete;
    }

    // Field lines. The field before the current line may still be continued by obs-fold, so in
    // field mode it is handed out only once the next line shows it is complete.
    bool any_field = false;
    bool last_is_framing = false;
    const char* f_name = nullptr;
    size_t f_name_len = 0;
    const char* f_value = nullptr;
    const char* f_value_end = nullptr;
    auto flush = [&] {
      if constexpr (kFields) {
        if (f_name != nullptr) {
          sink->on_field(sink->ctx, std::string_view(f_name, f_name_len),
                         std::string_view(f_value, static_cast<size_t>(f_value_end - f_value)));
        }
      }
    };

    for (;;) {
      if (p == end) goto incomplete;
      const char first = *p;
      if (static_cast<unsigned char>(first) <= ' ') {
        if (first == '\r' || first == '\n') {
          // The empty line ending the head.
          if (first == '\r') {
            if (p + 1 == end) goto incomplete;
            if (p[1] != '\n') return error(HeadError::kSyntax, "bare CR in header section", p, buf);
            ++p;
          }
          ++p;
          break;
        }
        if (is_ows(first)) {
          if (!any_field) {
            return error(HeadError::kSyntax, "whitespace before the first field line", p, buf);
          }
          if (last_is_framing) {
            return error(HeadError::kSyntax, "obs-fold in a framing field", p, buf);
          }
          // obs-fold: more of the previous value.
          const char* eol = line_ends.next(p + 1);
          const char* next;
          if (!end_line(eol, end, buf, &next, &r)) {
            if (r.status == HeadParseStatus::kError) return r;
            goto incomplete;
          }
          if constexpr (kFields) {
            const char* v = p;
            while (is_ows(*v)) ++v;  // the CR or LF at eol stops it
            const char* ve = eol;
            while (ve > v && is_ows(ve[-1])) --ve;
            if (ve > v) {
              if (f_value == f_value_end) f_value = v;
              f_value_end = ve;
            }
          }
          p = next;
          continue;
        }
        // Any other control byte: not a tchar, rejected as a field name below.
      }
      const char* eol = line_ends.next(p + 1);
      const char* next;
      if (end - eol >= 2 && load2(eol) == load2("\r\n")) {  // the usual line end
        next = eol + 2;
      } else {
        if (!end_line(eol, end, buf, &next, &r)) {
          if (r.status == HeadParseStatus::kError) return r;
          goto incomplete;
        }
      }

      // name ':' OWS value OWS. The CR or LF at eol is neither tchar nor OWS: it bounds the loops.
      const char* colon = p;
      if (end - p >= 16) colon += common_name_run(p);  // stops at eol at the latest
      if (*colon != ':') [[unlikely]] {
        while (is_tchar(colon[0]) && is_tchar(colon[1]) && is_tchar(colon[2]) &&
               is_tchar(colon[3])) {
          colon += 4;
        }
        while (is_tchar(*colon)) ++colon;
        if (*colon != ':') {
          return error(HeadError::kSyntax, "invalid character in field name", colon, buf);
        }
      }
      if (colon == p) return error(HeadError::kSyntax, "empty field name", colon, buf);
      const size_t name_len = static_cast<size_t>(colon - p);

      last_is_framing = false;
      if (name_len >= 10) {
        const Field f = classify(p, name_len);
        if (f != Field::kOther) {
          last_is_framing = true;
          const char* v = colon + 1;
          while (is_ows(*v)) ++v;
          if (f == Field::kContentLength) {
            // The usual value first: digits right up to the line end (whose CR or LF stops the
            // loop), few enough not to overflow. Anything else gets the full rules.
            uint64_t n = 0;
            const char* q = v;
            while (static_cast<unsigned char>(*q - '0') <= 9) {
              n = n * 10 + static_cast<unsigned>(*q++ - '0');  // wraps harmlessly past 19 digits
            }
            if (q == eol && q != v && q - v <= 19 && !h->has_content_length) {
              h->has_content_length = true;
              h->content_length = n;
            } else {
              const char* bad = nullptr;
              const char* reason = nullptr;
              if (!parse_content_length(v, eol, h, &bad, &reason)) {
                return error(HeadError::kFraming, reason, bad, buf);
              }
            }
          } else if (v != eol) {  // empty values of these are ignored (llhttp did)
            if (f == Field::kTransferEncoding) {
              h->transfer_encoding = true;
              h->chunked = last_coding_is_chunked(v, eol);
            } else {
              scan_connection(v, eol, h);
            }
          }
        }
      }
      if constexpr (kFields) {
        flush();
        const char* v = colon + 1;
        while (is_ows(*v)) ++v;
        f_name = p;
        f_name_len = name_len;
        f_value = v;
        f_value_end = eol;
        while (f_value_end > v && is_ows(f_value_end[-1])) --f_value_end;
      }
      any_field = true;
      p = next;
    }

    if (h->transfer_encoding && h->has_content_length) {
      return error(HeadError::kFraming, "Content-Length can't be present with Transfer-Encoding",
                   p - 1, buf);
    }
    flush();
    return {HeadParseStatus::kComplete, HeadError::kNone, static_cast<size_t>(p - buf), "", false};
  }

incomplete:
  if (len >= kMaxResponseHeadBytes) {
    return error(HeadError::kTooLarge, "header section too large", end, buf);
  }
  r.status = HeadParseStatus::kIncomplete;
  r.consumed = len;
  return r;
}

}  // namespace

HeadParseResult parse_response_head(const char* buf, size_t len, ResponseHead* out,
                                    const HeadFieldSink* fields) {
  HeadParseResult r = parse<false>(buf, len, out, nullptr);
  // Fields are wanted rarely (capture mode): a second pass over a head known to be complete keeps
  // the common pass free of that bookkeeping, and the sink never sees a head that fails later.
  if (fields != nullptr && r.status == HeadParseStatus::kComplete) {
    ResponseHead again;
    parse<true>(buf, r.consumed, &again, fields);
  }
  return r;
}

}  // namespace hail
