#include "cli/flag_table.h"

namespace hail {

namespace {

// wrk pads the long name so that the values line up: "--duration    <T>".
constexpr size_t kWrkLongColumn = 14;

void pad(std::string& line, size_t width) {
  if (line.size() < width) line.append(width - line.size(), ' ');
}

}  // namespace

std::string flag_syntax(SyntaxStyle style, std::string_view shorts, const char* long_name,
                        const char* value) {
  const std::string long_text = long_name != nullptr ? std::string("--") + long_name : "";
  const std::string first_short = shorts.empty() ? "" : std::string("-") + shorts[0];
  std::string out;
  switch (style) {
    case SyntaxStyle::kNative:
      out = (first_short.empty() ? "    " : first_short + ", ") + long_text;
      if (value != nullptr) out += std::string(" ") + value;
      break;
    case SyntaxStyle::kServe:
      out = long_text;
      if (value != nullptr) out += std::string(" ") + value;
      break;
    case SyntaxStyle::kWrk:
      out = long_text;
      if (value != nullptr) {
        pad(out, kWrkLongColumn);
        out += std::string("<") + value + ">";
      }
      out = (first_short.empty() ? "    " : first_short + ", ") + out;
      break;
    case SyntaxStyle::kAb:
      out = first_short;
      if (value != nullptr) out += std::string(" ") + value;
      break;
    case SyntaxStyle::kWebbench:
      for (char c : shorts) out += std::string("-") + c + "|";
      if (long_name != nullptr) {
        out += long_text;
      } else if (!out.empty()) {
        out.pop_back();
      }
      if (value != nullptr) out += std::string(" <") + value + ">";
      break;
  }
  return out;
}

std::string render_usage_rows(const std::vector<UsageRow>& rows, const UsageLayout& layout) {
  std::string out;
  auto end_line = [&out, &layout](size_t line_start) {
    if (layout.pad_to != 0 && out.size() - line_start < layout.pad_to) {
      out.append(layout.pad_to - (out.size() - line_start), ' ');
    }
    out += '\n';
  };
  for (const UsageRow& row : rows) {
    if (row.section != nullptr) {
      const size_t start = out.size();
      out += row.section;
      end_line(start);
    }
    size_t start = out.size();
    out.append(layout.indent, ' ');
    out += row.syntax;
    const size_t used = out.size() - start;
    out.append(used < layout.column ? layout.column - used : layout.overflow_gap, ' ');
    for (const char* c = row.help; *c != '\0'; ++c) {
      if (*c != '\n') {
        out += *c;
        continue;
      }
      end_line(start);
      start = out.size();
      out.append(layout.column, ' ');
    }
    end_line(start);
  }
  return out;
}

}  // namespace hail
