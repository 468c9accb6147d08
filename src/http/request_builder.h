// Another tool's request (ab, webbench) as its parts in wire order: method, target, version, the
// fields exactly as sent (no defaults, no reordering), body. The HTTP/1 bytes, hail's request
// description and the parsed template (the HTTP/2 view) all derive from these parts.
// Owner: http. Plain value: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "http/request.h"

namespace hail {

enum class HttpVersion : uint8_t { k09, k10, k11 };

class RequestBuilder {
 public:
  using Field = std::pair<std::string, std::string>;

  RequestBuilder(std::string method, std::string target, HttpVersion version);

  // Appends a field line; fields go out in the order added, duplicates included. HTTP/0.9 has no
  // fields: adding one is a programming error.
  void add_field(std::string name, std::string value);
  void set_body(std::string body);

  const std::string& method() const { return method_; }
  const std::string& target() const { return target_; }
  HttpVersion version() const { return version_; }
  const std::vector<Field>& fields() const { return fields_; }
  const std::string& body() const { return body_; }

  // The request line, each field line, the empty line: what ab -v 2 prints. HTTP/0.9: the request
  // line alone ("GET /path\r\n").
  std::string http1_head() const;
  // http1_head() and the body: every byte sent.
  std::string http1() const;

  // The same request as hail describes its own (RequestSpec): authority is the last Host field's
  // value, or, for an absolute-form target without one, the text between "://" and the next '/'
  // (what a proxy is asked for); headers are the other fields in order; keep_alive is whether the
  // bytes leave the connection open (request_asks_to_close), never for HTTP/0.9.
  RequestSpec spec() const;
  // What a session sends: the template parse_raw_requests makes of http1() for HTTP/1.x, the one
  // make_request_template makes of spec() for HTTP/0.9.
  RequestTemplate request_template(std::string_view scheme) const;
  // validate_request's checks on spec(): a token method, a target without whitespace or control
  // bytes, valid field names and values.
  Status validate() const;

 private:
  std::string method_;
  std::string target_;
  HttpVersion version_;
  std::vector<Field> fields_;
  std::string body_;
};

}  // namespace hail
