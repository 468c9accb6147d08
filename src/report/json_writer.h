// JsonWriter: a minimal streaming JSON emitter for the reports (objects, arrays, strings with full
// escaping and valid UTF-8, integers, finite doubles rounded or exact). Single owner, any thread;
// no allocation beyond the output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hail {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& begin_object(std::string_view key = {});
  JsonWriter& end_object();
  JsonWriter& begin_array(std::string_view key = {});
  JsonWriter& end_array();
  JsonWriter& value(std::string_view key, std::string_view v);
  JsonWriter& value(std::string_view key, const char* v) { return value(key, std::string_view(v)); }
  JsonWriter& value(std::string_view key, uint64_t v);
  JsonWriter& value(std::string_view key, int64_t v);
  JsonWriter& value(std::string_view key, int v) { return value(key, static_cast<int64_t>(v)); }
  JsonWriter& value(std::string_view key, uint32_t v) {
    return value(key, static_cast<uint64_t>(v));
  }
  // Three decimals (the reports' derived numbers: rates, microseconds, seconds).
  JsonWriter& value(std::string_view key, double v);
  // The shortest text that reads back as exactly `v` (std::to_chars), always with a '.' or an
  // exponent so that it reads as a decimal: for inputs kept as doubles, which must round-trip.
  JsonWriter& exact(std::string_view key, double v);
  JsonWriter& value(std::string_view key, bool v);
  JsonWriter& null(std::string_view key);
  // Array elements.
  JsonWriter& element(std::string_view v);
  JsonWriter& element(uint64_t v);

  const std::string& str() const { return out_; }

  static void append_escaped(std::string& out, std::string_view s);

 private:
  void prefix(std::string_view key);
  void newline();

  std::string out_;
  int indent_;
  std::vector<bool> first_;  // per open container: no element written yet
};

}  // namespace hail
