// Result<T>: a value or a one-line error message, for what users and the environment can break
// (bad flags, unreachable hosts, unreadable files). Library code returns these; only the CLI
// prints. Plain value type: any thread, no sharing.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hail {

struct Error {
  std::string message;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design, like std::expected
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// A value quoted for an error message: escapes quotes, backslashes and non-printable bytes (\xNN)
// so the message stays one printable line whatever the user typed; very long values are cut short.
inline std::string quote(std::string_view text) {
  constexpr size_t kMaxShownBytes = 200;
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kMaxShownBytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '"' || byte == '\\') {
      out += '\\';
      out += static_cast<char>(byte);
    } else if (byte < 0x20 || byte >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out += static_cast<char>(byte);
    }
  }
  if (text.size() > kMaxShownBytes) out += "...";
  out += '"';
  return out;
}

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() {
  return Ok{};
}

}  // namespace hail
