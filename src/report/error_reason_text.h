// How reports name an error reason: "class: reason" ("connect: Connection refused", and
// "other: other reasons" for the recorder's overflow row). The text and JSON reports both use it,
// so the JSON keys and the text lines agree. Pure: any thread.
#pragma once

#include <string>

#include "stats/error_reasons.h"

namespace hail {

inline std::string error_reason_text(const ErrorReasonCount& row) {
  std::string text = error_reason_class_label(row.error_class);
  text.append(": ").append(row.reason);
  return text;
}

}  // namespace hail
