// The HTTP versions a connection can speak, and the set of them a run's connections spoke (with
// TLS's ALPN choosing per connection, a run can speak HTTP/2 on some and HTTP/1.1 on others).
// Plain values: any thread.
#pragma once

#include <cstdint>
#include <string>

namespace hail {

enum class WireProtocol : uint8_t { kHttp09, kHttp10, kHttp11, kHttp2 };

// "http/0.9", "http/1.0", "http/1.1", "h2" (ALPN's names where it has them).
const char* wire_protocol_name(WireProtocol protocol);

class ProtocolSet {
 public:
  ProtocolSet() = default;  // nothing spoken yet
  explicit ProtocolSet(WireProtocol protocol) { add(protocol); }

  void add(WireProtocol protocol) { bits_ |= bit(protocol); }
  void merge(ProtocolSet other) { bits_ |= other.bits_; }
  bool contains(WireProtocol protocol) const { return (bits_ & bit(protocol)) != 0; }
  bool empty() const { return bits_ == 0; }
  bool speaks_h2() const { return contains(WireProtocol::kHttp2); }
  // The HTTP/1.x (or 0.9) version spoken, the oldest when several were; HTTP/1.1 when none was.
  WireProtocol http1() const;
  // What the reports call it: "h2", "http/1.1", "http/1.0", "http/0.9", or "h2+http/1.1" (HTTP/2
  // on some connections, that HTTP/1.x on the others). An empty set reads as HTTP/1.1.
  std::string name() const;

  bool operator==(const ProtocolSet&) const = default;

 private:
  static uint8_t bit(WireProtocol protocol) {
    return static_cast<uint8_t>(1u << static_cast<unsigned>(protocol));
  }
  uint8_t bits_ = 0;
};

}  // namespace hail
