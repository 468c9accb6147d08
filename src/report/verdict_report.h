// The verdict sections of the reports: the --slo thresholds (measured value, pass/fail, first
// breach, per stage), the --slo-abort stop and the generator-health checks, as text lines, as the
// JSON's "slo" and "generator_health" objects, and as a JUnit XML file (--junit).
// Owner: report. Pure functions of the result and its verdicts: any thread.
#pragma once

#include <string>

#include "analysis/run_verdicts.h"
#include "report/json_writer.h"
#include "stats/run_result.h"

namespace hail {

// The text section, for a run with thresholds: the threshold table and the overall verdict, the
// --slo-abort stop, the stage verdicts when it has stages, and the generator-health checks.
// Empty without thresholds.
std::string render_verdicts_text(const RunResult& result, const RunVerdicts& verdicts);

// "slo" (only with thresholds) and "generator_health" (always) as members of the open object.
void write_verdicts_json(JsonWriter& j, const RunResult& result, const RunVerdicts& verdicts);

// --junit FILE: one <testsuite name="hail slo"> with one test case per threshold (failed ones carry
// a <failure> with the measured value and the first breach) and one "generator health" case.
std::string render_junit(const RunResult& result);

}  // namespace hail
