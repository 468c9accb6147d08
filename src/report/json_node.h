// JsonNode: checked, typed access to a parsed document for the report reader; each node knows its
// path ("tags[2].histograms.latency"), so a bad value fails with one line naming its key (thrown
// as JsonNode::Failure, caught at the reader's boundary). Owner: report. One thread at a time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hail {

class JsonNode {
 public:
  struct Failure {
    std::string message;  // "path: what is wrong"
  };

  JsonNode(const nlohmann::json& value, std::string path)
      : value_(&value), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }

  // A member that must be there (fails "path.key: missing"), or may be.
  JsonNode at(std::string_view key) const;
  std::optional<JsonNode> find(std::string_view key) const;
  // An element of an array.
  JsonNode element(size_t index) const;
  size_t array_size() const;  // fails unless an array
  void expect_object() const;

  // The value, converted exactly or failing with what was found instead.
  uint64_t u64() const;
  uint32_t u32() const;
  uint64_t u64_at_most(uint64_t max) const;
  double finite_number() const;  // any JSON number that is finite (and not negative)
  bool boolean() const;
  const std::string& string() const;

  // Shorthands for members.
  uint64_t u64(std::string_view key) const { return at(key).u64(); }
  uint32_t u32(std::string_view key) const { return at(key).u32(); }
  bool boolean(std::string_view key) const { return at(key).boolean(); }
  const std::string& string(std::string_view key) const { return at(key).string(); }

  [[noreturn]] void fail(std::string_view what) const;

 private:
  // What the value is, for messages: "a string", "-5", "null", ...
  std::string found() const;

  const nlohmann::json* value_;
  std::string path_;
};

}  // namespace hail
