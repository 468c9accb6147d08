#include "http/request_builder.h"

#include <cassert>

#include "core/ascii.h"

namespace hail {

RequestBuilder::RequestBuilder(std::string method, std::string target, HttpVersion version)
    : method_(std::move(method)), target_(std::move(target)), version_(version) {}

void RequestBuilder::add_field(std::string name, std::string value) {
  assert(version_ != HttpVersion::k09);
  fields_.emplace_back(std::move(name), std::move(value));
}

void RequestBuilder::set_body(std::string body) {
  body_ = std::move(body);
}

std::string RequestBuilder::http1_head() const {
  std::string out = method_ + " " + target_;
  if (version_ == HttpVersion::k09) return out + "\r\n";
  out += version_ == HttpVersion::k10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n";
  for (const auto& [name, value] : fields_) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  out += "\r\n";
  return out;
}

std::string RequestBuilder::http1() const {
  return http1_head() + body_;
}

RequestSpec RequestBuilder::spec() const {
  RequestSpec spec;
  spec.method = method_;
  spec.path = target_;
  spec.body = body_;
  spec.http_minor = version_ == HttpVersion::k11 ? 1 : 0;
  bool has_host = false;
  for (const Field& field : fields_) {
    if (ascii::iequals(field.first, "Host")) {
      spec.authority = field.second;
      has_host = true;
    } else {
      spec.headers.push_back(field);
    }
  }
  if (const size_t scheme_end = target_.find("://");
      !has_host && scheme_end != std::string::npos && target_[0] != '/') {
    const size_t start = scheme_end + 3;
    spec.authority = target_.substr(start, target_.find('/', start) - start);
  }
  spec.keep_alive = version_ != HttpVersion::k09 && !request_asks_to_close(http1_head());
  return spec;
}

RequestTemplate RequestBuilder::request_template(std::string_view scheme) const {
  if (version_ == HttpVersion::k09) return make_request_template(spec(), scheme, true);
  RequestTemplate t;
  t.http1 = http1();
  t.method = method_;
  t.scheme = std::string(scheme);
  t.path = target_;
  t.body = body_;
  t.head = method_ == "HEAD";
  H2FieldsBuilder h2(&t);
  for (const auto& [name, value] : fields_) h2.add(name, value);
  h2.finish();
  t.close_after = request_asks_to_close(t.http1);
  t.asks_upgrade = request_asks_to_upgrade(t.http1);
  t.idempotent = is_idempotent_method(t.method);
  return t;
}

Status RequestBuilder::validate() const {
  return validate_request(spec());
}

}  // namespace hail
