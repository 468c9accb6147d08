#include "stats/error_reasons.h"

#include <algorithm>
#include <cstring>

namespace hail {

namespace {
// Linux's errno values end at EHWPOISON (133).
constexpr int kLastErrno = 133;

bool comes_before(const ErrorReasonCount& row, ErrorClass error_class, std::string_view reason) {
  const std::string_view row_label = error_reason_class_label(row.error_class);
  const std::string_view label = error_reason_class_label(error_class);
  if (row_label != label) return row_label < label;
  return std::string_view(row.reason) < reason;
}

// errno_value is used only when the row is new.
void add_row(std::vector<ErrorReasonCount>& rows, ErrorClass error_class, std::string_view reason,
             int errno_value, uint64_t count) {
  auto at = std::find_if(rows.begin(), rows.end(), [&](const ErrorReasonCount& row) {
    return !comes_before(row, error_class, reason);
  });
  if (at != rows.end() && at->error_class == error_class && at->reason == reason) {
    at->count += count;
    return;
  }
  rows.insert(at, ErrorReasonCount{error_class, std::string(reason), errno_value, count});
}
}  // namespace

const char* error_reason_class_label(ErrorClass c) {
  return c == ErrorClass::kCount ? "other" : error_class_name(c);
}

int errno_of_reason(std::string_view reason) {
  for (int e = 1; e <= kLastErrno; ++e) {
    const char* text = strerrordesc_np(e);
    if (text != nullptr && reason == text) return e;
  }
  return 0;
}

void add_error_reason(std::vector<ErrorReasonCount>& rows, ErrorClass error_class,
                      std::string_view reason, uint64_t count) {
  const bool known = find_error_reason(rows, error_class, reason) != nullptr;
  add_row(rows, error_class, reason, known ? 0 : errno_of_reason(reason), count);
}

void merge_error_reasons(std::vector<ErrorReasonCount>& into,
                         const std::vector<ErrorReasonCount>& from) {
  for (const ErrorReasonCount& row : from) {
    add_row(into, row.error_class, row.reason, row.errno_value, row.count);
  }
}

const ErrorReasonCount* find_error_reason(const std::vector<ErrorReasonCount>& rows,
                                          ErrorClass error_class, std::string_view reason) {
  for (const ErrorReasonCount& row : rows) {
    if (row.error_class == error_class && row.reason == reason) return &row;
  }
  return nullptr;
}

}  // namespace hail
