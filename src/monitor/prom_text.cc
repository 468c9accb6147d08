#include "monitor/prom_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "core/ascii.h"

namespace hail {

std::string_view PromSample::label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return {};
}

namespace {

bool name_byte(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

// "NaN", "+Inf", "-Inf" and decimal numbers.
bool parse_value(std::string_view word, double& out) {
  if (word == "NaN") {
    out = std::nan("");
    return true;
  }
  if (word == "+Inf" || word == "Inf") {
    out = HUGE_VAL;
    return true;
  }
  if (word == "-Inf") {
    out = -HUGE_VAL;
    return true;
  }
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

// One sample line; false with *why when it is not one.
bool parse_line(std::string_view line, PromSample& s, std::string& why) {
  size_t i = 0;
  while (i < line.size() && name_byte(line[i], i == 0)) ++i;
  if (i == 0) {
    why = "expected a metric name";
    return false;
  }
  s.name = std::string(line.substr(0, i));
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      const size_t key_start = i;
      while (i < line.size() && name_byte(line[i], i == key_start)) ++i;
      if (i == key_start || i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') {
        why = "bad label in " + quote(line.substr(0, 80));
        return false;
      }
      std::string key(line.substr(key_start, i - key_start));
      i += 2;
      std::string value;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < line.size()) {
          const char e = line[i++];
          value.push_back(e == 'n' ? '\n' : e);
        } else {
          value.push_back(c);
        }
      }
      if (!closed) {
        why = "unclosed label value";
        return false;
      }
      s.labels.emplace_back(std::move(key), std::move(value));
    }
  }
  std::string_view rest = ascii::trim_ows(line.substr(i));
  const size_t space = rest.find_first_of(" \t");
  const std::string_view value = rest.substr(0, space);
  if (!parse_value(value, s.value)) {
    why = "bad value " + quote(value.substr(0, 40));
    return false;
  }
  return true;
}

std::string sanitized(std::string_view v) {
  std::string out(v);
  for (char& c : out) {
    if (!(name_byte(c, false) || c == '.' || c == '-')) c = '_';
  }
  return out;
}

}  // namespace

Result<std::vector<PromSample>> parse_prom_text(std::string_view text) {
  std::vector<PromSample> out;
  size_t number = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = ascii::trim_ows(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (line.empty() || line.front() == '#') continue;
    PromSample s;
    std::string why;
    if (!parse_line(line, s, why)) {
      return make_error("not Prometheus text: line " + std::to_string(number) + ": " + why);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<PromColumn> prom_columns(const std::vector<PromSample>& samples,
                                     const std::vector<std::string>& names) {
  std::vector<PromColumn> out;
  std::map<std::string, size_t> index;
  auto add = [&](const std::string& name, bool counter, double value, double scale) {
    auto [it, fresh] = index.emplace(name, out.size());
    if (fresh) {
      out.push_back({name, counter, 0, scale});
    }
    out[it->second].value += value;
  };
  if (!names.empty()) {
    for (const PromSample& s : samples) {
      bool wanted = false;
      for (const std::string& n : names) wanted = wanted || n == s.name;
      if (!wanted) continue;
      const bool counter = s.name.ends_with("_total");
      std::string column = counter ? s.name + "_per_s" : s.name;
      if (!s.labels.empty()) {
        column += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i > 0) column += ';';
          column += s.labels[i].first + "=" + sanitized(s.labels[i].second);
        }
        column += '}';
      }
      add(column, counter, s.value, 1);
    }
    return out;
  }
  std::set<std::string> cpus;
  for (const PromSample& s : samples) {
    if (s.name == "node_cpu_seconds_total") cpus.insert(std::string(s.label("cpu")));
  }
  const double cpu_scale = cpus.empty() ? 100.0 : 100.0 / static_cast<double>(cpus.size());
  for (const PromSample& s : samples) {
    if (s.name == "node_cpu_seconds_total") {
      add("cpu_" + sanitized(s.label("mode")) + "_pct", true, s.value, cpu_scale);
    } else if (s.name == "node_memory_MemTotal_bytes") {
      add("mem_total_bytes", false, s.value, 1);
    } else if (s.name == "node_memory_MemAvailable_bytes") {
      add("mem_available_bytes", false, s.value, 1);
    } else if ((s.name == "node_network_receive_bytes_total" ||
                s.name == "node_network_transmit_bytes_total") &&
               s.label("device") != "lo") {
      add(s.name == "node_network_receive_bytes_total" ? "net_rx_bytes_per_s"
                                                       : "net_tx_bytes_per_s",
          true, s.value, 1);
    }
  }
  return out;
}

}  // namespace hail
