#include "cli/result_commands.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <span>
#include <utility>

#include "cli/flag_values.h"
#include "cli/run_command.h"
#include "report/hlog_writer.h"
#include "report/html_report.h"
#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/run_merge.h"
#include "report/text_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

using ResultFlag = FlagDef<ResultCommand, Status>;

Status set_json(ResultCommand& c, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--json needs a file name or \"-\"");
  c.json_path = f.value;
  return ok_status();
}

Status set_hlog(ResultCommand& c, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--hlog needs a file name");
  if (f.value == "-") return make_error("--hlog writes a file, not stdout: name one");
  c.hlog_path = f.value;
  return ok_status();
}

Status set_html(ResultCommand& c, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--html needs a file name");
  if (f.value == "-") return make_error("--html writes a file, not stdout: name one");
  c.html_path = f.value;
  return ok_status();
}

// Fields: short name, long name, value name, handler, help.
constexpr ResultFlag kReportFlags[] = {
    {"", "json", "FILE|-", set_json,
     "write the run's JSON report again to FILE (\"-\": to stdout instead of\nthe text)"},
    {"", "hlog", "FILE", set_hlog,
     "write the run's measured windows as an HdrHistogram interval log"},
    {"", "html", "FILE", set_html, "write the run's HTML report (charts) to FILE"},
};
constexpr ResultFlag kMergeFlags[] = {
    {"", "json", "FILE|-", set_json,
     "write the merged result's JSON report to FILE (\"-\": to stdout instead\nof the text)"},
    {"", "hlog", "FILE", set_hlog,
     "write the merged windows as an HdrHistogram interval log (inputs saved\nwith their time "
     "series)"},
    {"", "html", "FILE", set_html, "write the merged result's HTML report (charts) to FILE"},
};

constexpr UsageLayout kLayout{SyntaxStyle::kServe, 2, 24, 1};

Result<ResultCommand> parse(std::span<const ResultFlag> table, const std::vector<std::string>& args,
                            const char* command) {
  auto parsed = parse_args(flag_specs(table), args);
  if (!parsed) return make_error(parsed.error().message + " for hail " + command);
  ResultCommand c;
  for (const ParsedFlag& f : parsed->flags) {
    if (Status st = table[static_cast<size_t>(f.id)].apply(c, f); !st) return st.error();
  }
  c.inputs = parsed->positionals;
  for (const std::string& word : parsed->after_dashes) c.inputs.push_back(word);
  return c;
}

Result<ResultDocument> read_document(const std::string& path) {
  auto text = read_whole_file(path);
  if (!text) return make_error("cannot read " + quote(path) + ": " + text.error().message);
  auto doc = read_result_document(text.value());
  if (!doc) return make_error(path + ": " + doc.error().message);
  return doc;
}

// The text report on stdout (or the JSON with --json -), then the --json, --hlog and --html files.
int write_outputs(const char* command, const ResultCommand& cmd, const ResultDocument& doc) {
  if (!cmd.hlog_path.empty() && doc.result.intervals.empty()) {
    std::fprintf(stderr,
                 "hail %s: --hlog: the result has no time series to log (no measured "
                 "--interval window)\n",
                 command);
    return kExitUsage;
  }
  if (cmd.json_path == "-") {
    std::fputs(render_json_document(doc).c_str(), stdout);
  } else {
    std::fputs(render_text_report(doc.result, doc.version).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!cmd.json_path.empty() && cmd.json_path != "-" &&
      !write_output_file(command, "--json", cmd.json_path, render_json_document(doc))) {
    return kExitCouldNotRun;
  }
  if (!cmd.hlog_path.empty() &&
      !write_output_file(command, "--hlog", cmd.hlog_path, render_hlog(doc.result))) {
    return kExitCouldNotRun;
  }
  if (!cmd.html_path.empty() &&
      !write_output_file(command, "--html", cmd.html_path, render_html_report(doc.result))) {
    return kExitCouldNotRun;
  }
  return kExitOk;
}

}  // namespace

bool asks_for_help(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

bool write_output_file(const char* command, const char* flag, const std::string& path,
                       const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.close();
  if (out) return true;
  const int err = errno;
  std::fprintf(stderr, "hail %s: cannot write %s file %s%s%s\n", command, flag, quote(path).c_str(),
               err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "");
  return false;
}

Result<ResultCommand> parse_report_flags(const std::vector<std::string>& args) {
  auto cmd = parse(kReportFlags, args, "report");
  if (!cmd) return cmd;
  if (cmd->inputs.empty()) return make_error("missing RESULT.json (try hail report --help)");
  if (cmd->inputs.size() > 1) {
    return make_error("unexpected argument " + quote(cmd->inputs[1]) +
                      " (hail report reads one file; hail merge combines several)");
  }
  return cmd;
}

Result<ResultCommand> parse_merge_flags(const std::vector<std::string>& args) {
  auto cmd = parse(kMergeFlags, args, "merge");
  if (!cmd) return cmd;
  if (cmd->inputs.empty()) return make_error("missing result files (try hail merge --help)");
  return cmd;
}

int run_report_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) {
    std::fputs(report_usage().c_str(), stdout);
    return kExitOk;
  }
  auto cmd = parse_report_flags(args);
  if (!cmd) {
    std::fprintf(stderr, "hail report: %s\n", cmd.error().message.c_str());
    return kExitUsage;
  }
  auto doc = read_document(cmd->inputs[0]);
  if (!doc) {
    std::fprintf(stderr, "hail report: %s\n", doc.error().message.c_str());
    return kExitUsage;
  }
  if (!doc->result.script_error.empty()) {
    std::fprintf(stderr, "hail report: the run stopped on a script error: %s\n",
                 doc->result.script_error.c_str());
  }
  return write_outputs("report", cmd.value(), doc.value());
}

int run_merge_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) {
    std::fputs(merge_usage().c_str(), stdout);
    return kExitOk;
  }
  auto cmd = parse_merge_flags(args);
  if (!cmd) {
    std::fprintf(stderr, "hail merge: %s\n", cmd.error().message.c_str());
    return kExitUsage;
  }
  std::vector<MergeInput> inputs;
  std::vector<std::string> skipped;
  for (const std::string& path : cmd->inputs) {
    // A run killed before its report (a shard that died: hail opens --json files when it starts)
    // leaves an empty file: skipped, so that a merge of shard-*.json names that shard missing.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
      skipped.push_back(path);
      continue;
    }
    auto doc = read_document(path);
    if (!doc) {
      std::fprintf(stderr, "hail merge: %s\n", doc.error().message.c_str());
      return kExitUsage;
    }
    inputs.push_back(MergeInput{path, std::move(doc.value())});
  }
  for (const std::string& path : skipped) {
    std::fprintf(stderr, "hail merge: warning: %s is empty (its run did not finish): skipped\n",
                 quote(path).c_str());
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "hail merge: nothing to merge: every input is empty\n");
    return kExitUsage;
  }
  auto merged = merge_runs(std::move(inputs), HAIL_VERSION_STRING);
  if (!merged) {
    std::fprintf(stderr, "hail merge: %s\n", merged.error().message.c_str());
    return kExitUsage;
  }
  for (const std::string& warning : merged->warnings) {
    std::fprintf(stderr, "hail merge: warning: %s\n", warning.c_str());
  }
  return write_outputs("merge", cmd.value(), merged->merged);
}

std::string report_usage() {
  return "Usage: hail report [options] RESULT.json\n"
         "\n"
         "Prints a run saved with --json again: the same text report the run printed.\n"
         "\n"
         "Options:\n" +
         render_usage(std::span<const ResultFlag>(kReportFlags), kLayout) +
         "\n"
         "Exit status: 0 done, 1 an output could not be written, 2 a usage error or a file that\n"
         "is not a readable hail/2 report (one line naming the file and the key).\n";
}

std::string merge_usage() {
  return "Usage: hail merge [options] A.json B.json ...\n"
         "\n"
         "Combines runs saved with --json, made at the same time (shards of one test) or one\n"
         "after another, into one exact result: counts, errors, statuses, tags and every\n"
         "histogram add up; time series are aligned on wall-clock time; rates count over the\n"
         "union of the measured times. Prints the text report of the merged run.\n"
         "\n"
         "Options:\n" +
         render_usage(std::span<const ResultFlag>(kMergeFlags), kLayout) +
         "\n"
         "Inputs that cannot be merged exactly (unreadable, another schema or histogram layout,\n"
         "time series of different intervals) are refused with one line and exit status 2;\n"
         "inputs that targeted different URLs or settings are merged with a warning each.\n"
         "\n"
         "Shards of one test (--shard, or a launcher's environment): the same shard given twice\n"
         "is refused (exit status 2); missing shards are named with the share of the load they\n"
         "did not offer (a warning: exit status 0), and the shards' start skew is noted.\n"
         "An empty input (a run killed before it wrote its report) is skipped with a warning.\n";
}

std::vector<FlagName> report_flag_names() {
  return flag_names(std::span<const ResultFlag>(kReportFlags));
}

std::vector<FlagName> merge_flag_names() {
  return flag_names(std::span<const ResultFlag>(kMergeFlags));
}

}  // namespace hail
