// HdrHistogram's text form of a histogram, "HISTF...": the compressed V2 encoding (cookie
// 0x1c849314, the big-endian length of a zlib stream, the zlib-deflated V2 encoding of
// histogram_codec.h) in base64, as HdrHistogram's interval logs and its libraries write and read
// it. zlib (Debian zlib1g) deflates; OpenSSL's EVP base64 codes. Pure: any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "stats/histogram.h"

namespace hail {

inline constexpr uint32_t kV2CompressedEncodingCookie = 0x1c849314;

// The histogram's counts as a "HISTF..." string (its exact minimum, maximum and out-of-range count
// are not part of HdrHistogram's format: callers keep them beside it when they matter).
std::string encode_histf(const Histogram& histogram);

// Adds a "HISTF..." string's counts into `into` (its layout must hold every count; see
// decode_v2). Refuses, with a message naming the problem and leaving `into` unchanged: bad base64,
// another cookie, a length that disagrees with the data, a zlib stream that is broken, truncated or
// inflates past any histogram of this layout (a zip bomb), and whatever decode_v2 refuses.
Status decode_histf(std::string_view text, Histogram& into);

}  // namespace hail
