// Reads a saved JSON report (hail/2, docs/json-schema.md) back into a RunResult, exactly, with
// nlohmann-json: every value checked, and a bad document refused with one line naming the key
// ("tags[2].histograms.latency.hdr: not base64"). Owner: report. Pure: any thread.
#pragma once

#include <string_view>

#include "core/result.h"
#include "report/result_document.h"
#include "stats/run_result.h"

namespace hail {

// The whole document: the run, the version that wrote it and a merge's summary. Only the hail/2
// keys that carry exact data are read (and the hail/1 keys that are exact already); the rounded
// hail/1 summaries (percentiles in microseconds, seconds, rates) are views of them and ignored.
// Keys this reader does not know are ignored too.
Result<ResultDocument> read_result_document(std::string_view text);

// read_result_document(text).result.
Result<RunResult> read_result_json(std::string_view text);

}  // namespace hail
