// Fuzzes the JSON report reader (report/json_reader.h) on any bytes: it never crashes, and what it
// accepts is whole: the document written again reads back to the same document, both reports
// render, and merging it with itself either works (and reads back) or is refused with a line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/run_merge.h"
#include "report/text_report.h"

namespace {

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_result_json: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = hail::read_result_document(text);
  if (!doc.ok()) {
    check(!doc.error().message.empty(), "an empty error message");
    check(doc.error().message.find('\n') == std::string::npos, "an error of several lines");
    return 0;
  }
  const std::string json = hail::render_json_document(doc.value());
  auto again = hail::read_result_document(json);
  check(again.ok(), "the reader refused what the writer wrote from a document it read");
  check(hail::render_json_document(again.value()) == json, "writing is not idempotent");
  check(hail::render_text_report(again->result, again->version) ==
            hail::render_text_report(doc->result, doc->version),
        "the text report changed through a round trip");

  std::vector<hail::MergeInput> inputs;
  inputs.push_back({"a.json", doc.value()});
  inputs.push_back({"b.json", std::move(doc.value())});
  auto merged = hail::merge_runs(std::move(inputs), "0.0.0");
  if (!merged.ok()) return 0;
  (void)hail::render_text_report(merged->merged.result);
  auto back = hail::read_result_document(hail::render_json_document(merged->merged));
  check(back.ok(), "the reader refused a merged document");
  return 0;
}
