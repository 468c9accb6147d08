#include "report/html_report.h"

#include <cstddef>
#include <string_view>

#include "core/strings.h"
#include "report/html_data.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

// Compiled in by hail_embed() (src/report/CMakeLists.txt).
extern const char kUplotJs[];
extern const size_t kUplotJs_size;
extern const char kUplotCss[];
extern const size_t kUplotCss_size;
extern const char kHtmlReportJs[];
extern const size_t kHtmlReportJs_size;
extern const char kHtmlReportCss[];
extern const size_t kHtmlReportCss_size;

namespace {

// The page around a data object: the policy, the styles, the data, the chart library and the
// page script (which reads data.kind).
std::string html_page(const std::string& title, const std::string& data) {
  const std::string version = HAIL_VERSION_STRING;
  std::string page;
  page.reserve(kUplotJs_size + data.size() + 16 * 1024);
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing may be fetched: the page is whole on its own, and says so to the browser.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"hail " +
      markup_escaped(version) + ", uPlot 1.6.32\">\n<title>hail: " + markup_escaped(title) +
      "</title>\n<style>\n";
  page.append(kUplotCss, kUplotCss_size);
  page += "\n</style>\n<style>\n";
  page.append(kHtmlReportCss, kHtmlReportCss_size);
  page += "</style>\n</head>\n<body>\n<header><h1>hail</h1><p id=\"subtitle\">" +
          markup_escaped(title) +
          "</p></header>\n<main id=\"charts\"></main>\n"
          "<section id=\"text\"><h2>Report</h2><pre id=\"text-report\"></pre></section>\n"
          "<script type=\"application/json\" id=\"hail-data\">";
  page += data;
  page += "</script>\n<script>\n";
  page.append(kUplotJs, kUplotJs_size);
  page += "\n</script>\n<script>\n";
  page.append(kHtmlReportJs, kHtmlReportJs_size);
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace

std::string render_html_report(const RunResult& result) {
  return html_page(result.url, render_html_data(result, HAIL_VERSION_STRING));
}

std::string render_compare_html(const Comparison& comparison, std::span<const RunResult> base,
                                std::span<const RunResult> candidate, const std::string& text) {
  const std::string title = "compare: " + (base.empty() ? std::string() : base.front().url);
  return html_page(
      title, render_compare_html_data(comparison, base, candidate, text, HAIL_VERSION_STRING));
}

std::string render_search_html(const SearchContext& context, const SearchVerdict& verdict) {
  std::string text = render_search_header(context);
  for (size_t i = 0; i < verdict.probes.size(); ++i) {
    text += render_search_row(context, verdict.probes[i], i + 1);
  }
  text += render_search_verdict(context, verdict);
  return html_page("search: " + context.url,
                   render_search_html_data(verdict, context.url,
                                           context.by_connections ? "connections" : "req/s", text,
                                           HAIL_VERSION_STRING, context.slo, context.machines));
}

}  // namespace hail
