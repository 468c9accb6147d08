#include "report/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/strings.h"

namespace hail {

namespace {

// The length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&s](size_t at) { return static_cast<unsigned char>(s[at]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xbf;  // the range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return length;
}

}  // namespace

// JSON text is UTF-8: a byte that is not part of valid UTF-8 (a script's binary tag name) becomes
// U+FFFD, so that every JSON reader, hail's own included, reads the document.
void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  out.push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t length = utf8_sequence_length(s, i);
      if (length == 0) {
        out += "\\ufffd";
      } else {
        out.append(s.substr(i, length));
        i += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void JsonWriter::newline() {
  if (indent_ <= 0) return;
  out_.push_back('\n');
  out_.append(first_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::prefix(std::string_view key) {
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    newline();
  }
  if (!key.empty()) {
    append_escaped(out_, key);
    out_ += indent_ > 0 ? ": " : ":";
  }
}

JsonWriter& JsonWriter::begin_object(std::string_view key) {
  prefix(key);
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back('}');
  if (first_.empty() && indent_ > 0) out_.push_back('\n');
  return *this;
}

JsonWriter& JsonWriter::begin_array(std::string_view key) {
  prefix(key);
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, std::string_view v) {
  prefix(key);
  append_escaped(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, uint64_t v) {
  prefix(key);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, int64_t v) {
  prefix(key);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, double v) {
  prefix(key);
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  // Three decimals: microsecond values keep nanosecond resolution, rates keep 1/1000.
  out_ += string_printf("%.3f", v);
  return *this;
}

JsonWriter& JsonWriter::exact(std::string_view key, double v) {
  prefix(key);
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  out_ += text;
  if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view key, bool v) {
  prefix(key);
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null(std::string_view key) {
  prefix(key);
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::element(std::string_view v) {
  prefix({});
  append_escaped(out_, v);
  return *this;
}

JsonWriter& JsonWriter::element(uint64_t v) {
  prefix({});
  out_ += std::to_string(v);
  return *this;
}

}  // namespace hail
