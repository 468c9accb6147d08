#include "cli/cli_docs.h"

#include <set>

#include "cli/ab_flags.h"
#include "cli/compare_command.h"
#include "cli/native_flags.h"
#include "cli/result_commands.h"
#include "cli/search_command.h"
#include "cli/serve_flags.h"
#include "cli/webbench_flags.h"
#include "cli/wrk_flags.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

// A flag whose value names a file (or a socket path): completions offer file names.
bool takes_file(const FlagName& f) {
  if (f.value == nullptr) return false;
  const std::string v = f.value;
  return v.find("FILE") != std::string::npos || v == "P" || v == "PATH" || v == "DIR" ||
         f.name == "--root" || f.name == "--tls-cert" || f.name == "--tls-key" ||
         f.name == "--unix-socket";
}

// scdoc treats *, _ and \ as markup outside literal blocks.
std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string shell_word(const std::string& name) {
  std::string out;
  for (char c : name) out += (c == '.' || c == '-') ? '_' : c;
  return out;
}

}  // namespace

std::vector<CommandDoc> command_docs() {
  std::vector<CommandDoc> docs;
  docs.push_back({"", "hail [options] URL [-- SCRIPT ARGS]",
                  "Loads one URL (or a weighted mix of them, --urls) over HTTP/1.x or HTTP/2, "
                  "cleartext or TLS, in a closed loop (-c connections, -n requests or -d time), "
                  "at an open-loop rate (-R, corrected for coordinated omission) or following "
                  "stages and ladders, optionally driven by a wrk Lua script, and reports "
                  "throughput, latency percentiles from an HDR histogram and every error.",
                  native_usage(), native_flag_names(), true});
  docs.push_back({"serve", "hail serve [options]",
                  "Runs the built-in HTTP/1.1 and HTTP/2 target server (cleartext or TLS) with "
                  "endpoints for fixed-size bodies, delays, status codes, echo and statistics, "
                  "until SIGINT or SIGTERM.",
                  serve_usage(), serve_flag_names(), false});
  docs.push_back({"demo",
                  "hail demo",
                  "Starts the built-in server on a loopback port and benchmarks it for about "
                  "5 seconds.",
                  "Usage: hail demo\n",
                  {},
                  false});
  docs.push_back({"search", "hail search --slo EXPR [search options] [run options] URL",
                  "Finds the highest open-loop rate (or number of connections) at which every "
                  "--slo threshold holds: one run probed level after level on warm connections, "
                  "bracketed, bisected, inconclusive probes measured longer, the answer confirmed.",
                  search_usage(), search_flag_names(), true});
  docs.push_back({"report", "hail report [options] RESULT.json",
                  "Prints a run saved with --json again (its text report, its JSON, its "
                  "HdrHistogram interval log).",
                  report_usage(), report_flag_names(), false, true});
  docs.push_back({"merge", "hail merge [options] A.json B.json ...",
                  "Combines runs saved with --json (shards of one test, or runs one after "
                  "another) into one exact result: counts and histograms add up, time series "
                  "align on the wall clock.",
                  merge_usage(), merge_flag_names(), false, true});
  docs.push_back({"compare", "hail compare [options] BASE.json CANDIDATE.json",
                  "Did it get faster or slower? Compares runs saved with --json (one against "
                  "one by a moving-block bootstrap over their windows, or repeated runs by "
                  "medians and Mann-Whitney U) on latency, requests/s and error rate, with "
                  "intervals and a verdict per metric.",
                  compare_usage(), compare_flag_names(), false, true});
  docs.push_back({"wrk", "hail wrk [wrk options] URL",
                  "wrk 4.1's command line and report, on hail's engine (also when hail is started "
                  "under the name wrk). Differences from wrk: docs/compat.md. hail's --slo EXPR, "
                  "--slo-abort and --junit FILE work here too (not in wrk's usage text).",
                  wrk_usage(), wrk_flag_names(), true});
  docs.push_back({"wrk2", "hail wrk2 [wrk2 options] URL",
                  "wrk2's command line and report: a constant request rate (-R, required) with "
                  "coordinated-omission correction and its HdrHistogram percentile spectrum "
                  "(-L, -U), on hail's engine (also when hail is started under the name wrk2). "
                  "Differences from wrk2: docs/compat.md. hail's --slo EXPR, --slo-abort and "
                  "--junit FILE work here too (not in wrk2's usage text).",
                  wrk2_usage(), wrk2_flag_names(), true});
  docs.push_back({"ab", "hail ab [ab options] [http[s]://]hostname[:port]/path",
                  "ApacheBench 2.3's command line, report and exit statuses, on hail's engine "
                  "(also when hail is started under the name ab). hail's --slo EXPR, --slo-abort "
                  "and --junit FILE work here too (not in ab's usage text).",
                  render_ab_usage("hail ab"), ab_flag_names(), true});
  docs.push_back({"webbench", "hail webbench [webbench options] URL",
                  "WebBench 1.5's command line and report, on hail's engine (also when hail is "
                  "started under the name webbench). hail's --slo EXPR, --slo-abort and --junit "
                  "FILE work here too (not in webbench's usage text).",
                  webbench_usage(), webbench_flag_names(), true});
  return docs;
}

std::string render_man_scdoc(const std::vector<CommandDoc>& commands) {
  std::string out = "hail(1) \"hail " HAIL_VERSION_STRING "\"\n\n# NAME\n\n";
  out += "hail - HTTP load generator and benchmark target server\n\n# SYNOPSIS\n\n";
  for (const CommandDoc& c : commands) out += "*" + escape(c.synopsis) + "*\n\n";
  out +=
      "# DESCRIPTION\n\n"
      "hail measures HTTP servers: every request is accounted for (completed, failed by error "
      "class, or in flight at the end), latency percentiles come from a high-dynamic-range "
      "histogram, open-loop runs are corrected for coordinated omission, warm-up is excluded, "
      "and hail says when it may itself have been the limit. Each command below prints the "
      "same text for *--help* (ab: *-h*).\n\n";
  for (const CommandDoc& c : commands) {
    out += "# " + (c.name.empty() ? std::string("HAIL") : "HAIL " + c.name) + "\n\n";
    out += escape(c.summary) + "\n\n```\n" + c.usage;
    if (!c.usage.ends_with("\n")) out += "\n";
    out += "```\n\n";
  }
  out +=
      "# EXIT STATUS\n\n"
      "*0*\n\tThe run completed, even when requests failed (the report counts them).\n\n"
      "*1*\n\thail could not run: no connection could ever be opened, the host does not "
      "resolve, a resource limit, a script error, an output file that cannot be written.\n\n"
      "*2*\n\tA usage error: one line on standard error names the bad flag or value.\n\n"
      "*3*\n\thail compare: at least one metric regressed (a CI gate).\n\n"
      "*98*\n\tWith --slo (and in hail search): hail itself was the limit (generator health), so "
      "the thresholds were not judged on the load they were meant for.\n\n"
      "*99*\n\tWith --slo: a threshold failed; hail search: no level met every threshold.\n\n"
      "*hail wrk*, *hail wrk2*, *hail ab* and *hail webbench* exit as the tools they stand in "
      "for.\n\n"
      "# FILES\n\n"
      "*--json* writes the run as a JSON document whose *schema* key names its version; "
      "the schema is described in /usr/share/doc/hail/json-schema.md. README.md and "
      "compat.md (the front-ends' differences from wrk, wrk2, ab and webbench) are in the same "
      "directory.\n\n"
      "# EXAMPLES\n\n"
      "Ten seconds of 50 keep-alive connections:\n\n"
      "\thail -c 50 -d 10s http://127.0.0.1:8080/\n\n"
      "2000 requests per second for a minute, corrected for coordinated omission, with a "
      "10-second warm-up and a JSON report:\n\n"
      "\thail -R 2000 -d 60s --warmup 10s --json run.json http://127.0.0.1:8080/\n\n"
      "A concurrency ladder from 10 to 100 connections, 10 s per step:\n\n"
      "\thail --ladder 10:10:100 --step-duration 10s http://127.0.0.1:8080/\n\n"
      "HTTP/2 over TLS with 10 streams per connection:\n\n"
      "\thail --h2 --streams 10 -c 20 -d 30s https://localhost:8443/\n\n"
      "An existing wrk command line and Lua script, unchanged:\n\n"
      "\thail wrk -t2 -c100 -d30s -s post.lua http://127.0.0.1:8080/\n\n"
      "The built-in target server:\n\n"
      "\thail serve --port 8080\n\n"
      "# SEE ALSO\n\n"
      "*wrk*(1), *ab*(1), *h2load*(1), *nginx*(8)\n";
  return out;
}

std::string render_bash_completion(const std::vector<CommandDoc>& commands) {
  std::string subcommands;
  for (const CommandDoc& c : commands) {
    if (!c.name.empty()) subcommands += (subcommands.empty() ? "" : " ") + c.name;
  }
  std::string out =
      "# bash completion for hail(1), generated from hail's flag tables.\n"
      "_hail() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  local command=\"\" flags=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      " +
      [&] {
        std::string alts;
        for (const CommandDoc& c : commands) {
          if (!c.name.empty()) alts += (alts.empty() ? "" : "|") + c.name;
        }
        return alts;
      }() +
      ") command=${COMP_WORDS[i]}; break ;;\n"
      "      -*) ;;\n"
      "      *) break ;;\n"
      "    esac\n"
      "  done\n";
  out += "  case $command in\n";
  for (const CommandDoc& c : commands) {
    out += "    " + (c.name.empty() ? std::string("\"\"") : c.name) + ")\n";
    std::string flags, choice_cases, file_flags;
    std::set<std::string> seen;
    for (const FlagName& f : c.flags) {
      if (!seen.insert(f.name).second) continue;
      flags += (flags.empty() ? "" : " ") + f.name;
      if (f.choices != nullptr) {
        choice_cases += "        " + f.name + ") COMPREPLY=($(compgen -W \"" + f.choices +
                        "\" -- \"$cur\")); return ;;\n";
      } else if (takes_file(f)) {
        file_flags += (file_flags.empty() ? "" : "|") + f.name;
      }
    }
    out += "      flags=\"" + flags + "\"\n";
    out += "      case $prev in\n" + choice_cases;
    if (!file_flags.empty()) {
      out += "        " + file_flags + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    }
    out += "      esac\n      ;;\n";
  }
  out += "  esac\n";
  out +=
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
      "  elif [[ -z $command && $COMP_CWORD -eq 1 ]]; then\n"
      "    COMPREPLY=($(compgen -W \"" +
      subcommands +
      "\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o default -F _hail hail\n";
  return out;
}

std::string render_zsh_completion(const std::vector<CommandDoc>& commands) {
  std::string out =
      "#compdef hail\n"
      "# zsh completion for hail(1), generated from hail's flag tables.\n\n";
  for (const CommandDoc& c : commands) {
    out += "_hail_" + (c.name.empty() ? std::string("run") : shell_word(c.name)) + "() {\n";
    out += "  _arguments -s";
    std::set<std::string> seen;
    for (const FlagName& f : c.flags) {
      if (!seen.insert(f.name).second) continue;
      std::string action;
      if (f.choices != nullptr) {
        action = std::string(":value:(") + f.choices + ")";
      } else if (takes_file(f)) {
        action = ":file:_files";
      } else if (f.takes_value) {
        std::string value = f.value != nullptr ? f.value : "value";
        for (char& ch : value) {
          if (ch == ':' || ch == '"' || ch == '\'' || ch == ' ' || ch == '|') ch = '_';
        }
        action = ":" + value + ": ";
      }
      std::string name = f.name;
      if (name.find_first_of("?[]") != std::string::npos) name = "\\" + name;
      out += " \\\n    '" + name + action + "'";
    }
    if (c.takes_url) out += " \\\n    '*:URL: '";
    if (c.takes_files) out += " \\\n    '*:result file:_files'";
    out += "\n}\n\n";
  }
  out += "_hail() {\n  if (( CURRENT == 2 )); then\n    local -a commands\n    commands=(";
  for (const CommandDoc& c : commands) {
    if (!c.name.empty()) out += " '" + c.name + "'";
  }
  out +=
      " )\n    _describe -t commands 'hail command' commands\n    _hail_run\n    return\n  fi\n"
      "  case $words[2] in\n";
  for (const CommandDoc& c : commands) {
    if (c.name.empty()) continue;
    out +=
        "    " + c.name + ") shift words; (( CURRENT-- )); _hail_" + shell_word(c.name) + " ;;\n";
  }
  out += "    *) _hail_run ;;\n  esac\n}\n\n_hail \"$@\"\n";
  return out;
}

}  // namespace hail
