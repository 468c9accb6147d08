#include "report/json_writer.h"

#include <cmath>
#include <cstdio>

#include "core/strings.h"

namespace hail {

void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
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

}  // namespace hail
