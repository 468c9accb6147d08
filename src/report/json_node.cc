#include "report/json_node.h"

#include <cmath>
#include <limits>

#include "core/result.h"

namespace hail {

namespace {
// Values quoted in messages are cut to this many characters (a huge number, a long string).
constexpr size_t kMaxShownChars = 40;
}  // namespace

void JsonNode::fail(std::string_view what) const {
  throw Failure{(path_.empty() ? std::string("document") : path_) + ": " + std::string(what)};
}

std::string JsonNode::found() const {
  const nlohmann::json& v = *value_;
  if (v.is_number()) {
    std::string text = v.dump();
    if (text.size() > kMaxShownChars) text = text.substr(0, kMaxShownChars) + "...";
    return text;
  }
  if (v.is_string())
    return "the string " + quote(v.get_ref<const std::string&>().substr(0, kMaxShownChars));
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return std::string(v.is_object() ? "an object" : v.is_array() ? "an array" : "another value");
}

JsonNode JsonNode::at(std::string_view key) const {
  std::optional<JsonNode> member = find(key);
  if (!member) {
    JsonNode missing(*value_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
    missing.fail("missing");
  }
  return *member;
}

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  expect_object();
  auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonNode(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

void JsonNode::expect_object() const {
  if (!value_->is_object()) fail("expected an object, got " + found());
}

size_t JsonNode::array_size() const {
  if (!value_->is_array()) fail("expected an array, got " + found());
  return value_->size();
}

JsonNode JsonNode::element(size_t index) const {
  return JsonNode((*value_)[index], path_ + "[" + std::to_string(index) + "]");
}

uint64_t JsonNode::u64() const {
  // nlohmann reads a non-negative integer as unsigned, a negative one as signed, and anything
  // else (a fraction, an exponent, an integer past 2^64 - 1) as a double.
  if (value_->is_number_unsigned()) return value_->get<uint64_t>();
  if (value_->is_number_integer()) {
    if (value_->get<int64_t>() == 0) return 0;  // "-0"
    fail("expected a whole number of at least 0, got " + found());
  }
  if (value_->is_number_float()) {
    const double d = value_->get<double>();
    if (std::isfinite(d) && d >= 0x1p64) {
      fail("number too large (above 2^64 - 1): " + found());
    }
    fail("expected a whole number, got " + found());
  }
  fail("expected a whole number, got " + found());
}

uint64_t JsonNode::u64_at_most(uint64_t max) const {
  const uint64_t v = u64();
  if (v > max) fail("must be at most " + std::to_string(max) + ", got " + found());
  return v;
}

uint32_t JsonNode::u32() const {
  return static_cast<uint32_t>(u64_at_most(std::numeric_limits<uint32_t>::max()));
}

double JsonNode::finite_number() const {
  if (!value_->is_number()) fail("expected a number, got " + found());
  const double d = value_->get<double>();
  if (!std::isfinite(d)) fail("number out of range: " + found());
  if (d < 0) fail("expected a number of at least 0, got " + found());
  return d;
}

bool JsonNode::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false, got " + found());
  return value_->get<bool>();
}

const std::string& JsonNode::string() const {
  if (!value_->is_string()) fail("expected a string, got " + found());
  return value_->get_ref<const std::string&>();
}

}  // namespace hail
