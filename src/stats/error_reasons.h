// Why requests and connects failed, as data: the error class, the reason text and, when the reason
// is an errno's description, that errno. Rows are kept in one stable order (the order of their
// rendered "class: reason" texts), so every report lists them alike. Plain values: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stats/error_class.h"

namespace hail {

struct ErrorReasonCount {
  // ErrorClass::kCount marks the overflow row: reasons of any class past the recorder's table,
  // rendered "other: other reasons".
  ErrorClass error_class = ErrorClass::kCount;
  std::string reason;   // "Connection refused", "bad chunk size", ...
  int errno_value = 0;  // the errno whose description `reason` is (errno_of_reason); 0 when none
  uint64_t count = 0;
};

inline constexpr std::string_view kOtherReasons = "other reasons";

// The class as reports print it: error_class_name(), and "other" for the overflow row.
const char* error_reason_class_label(ErrorClass c);

// The errno (1..133) whose strerrordesc_np() text is `reason`; 0 when there is none. A reverse
// lookup by text, done when rows are merged, so that the recorder keeps only static pointers.
int errno_of_reason(std::string_view reason);

// Adds `count` to the row (error_class, reason), inserting it at its place in the order: by class
// label, then by reason, byte by byte (no label is a prefix of another, so this is the order of
// the rendered "label: reason" texts).
void add_error_reason(std::vector<ErrorReasonCount>& rows, ErrorClass error_class,
                      std::string_view reason, uint64_t count);
void merge_error_reasons(std::vector<ErrorReasonCount>& into,
                         const std::vector<ErrorReasonCount>& from);
// The row (error_class, reason), or nullptr.
const ErrorReasonCount* find_error_reason(const std::vector<ErrorReasonCount>& rows,
                                          ErrorClass error_class, std::string_view reason);

}  // namespace hail
