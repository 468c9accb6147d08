// Counts the HTTP requests in the bytes a script's request() returned, as wrk does once on thread 0
// after init (wrk's script_verify_request): that count is how many responses one write waits for
// (wrk's pipelining). Pure function: any thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/result.h"

namespace hail {

// The number of complete requests in `bytes`, or, as wrk reports it, the parser's reason and the
// line:column where parsing stopped ("invalid request: Invalid method encountered at 1:4"), or
// "incomplete request at L:C" when the bytes end inside a request.
Result<size_t> count_requests(std::string_view bytes);

}  // namespace hail
