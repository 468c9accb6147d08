// Test oracle: HdrHistogram's JavaScript port (npm hdr-histogram-js, pinned by ./run), an
// implementation independent of hail's, for test_hdr_interop.py. The package is found in the
// node_modules folder named by $HDR_JS_MODULES. Reads stdin, writes stdout:
//   node hdr_js_oracle.js decode        each line a "HISTF..." string; prints "histogram TOTAL" and
//                                       one "VALUE COUNT" line per recorded slot (VALUE: the
//                                       slot's highest value, as the iterator reports it), or
//                                       "error MESSAGE"
//   node hdr_js_oracle.js encode LAYOUT each line "VALUE:COUNT ..." (may be empty); prints the
//                                       histogram's "HISTF..." string. LAYOUT: "hail" (1 ns .. 2^42,
//                                       3 digits, 64-bit counts), "packed" (the same, packed
//                                       counts) or "default" (the package's default: 32-bit
//                                       counts, auto-resizing)
//   node hdr_js_oracle.js log FILE      reads an interval log with the package's HistogramLogReader
//                                       and prints "interval TAG START_MS END_MS TOTAL" and the
//                                       "VALUE COUNT" lines for each histogram in it
"use strict";

const fs = require("fs");
const path = require("path");

const modules = process.env.HDR_JS_MODULES && path.resolve(process.env.HDR_JS_MODULES);
if (!modules) {
  process.stderr.write("hdr_js_oracle: set HDR_JS_MODULES to a node_modules folder\n");
  process.exit(2);
}
const hdr = require(path.join(modules, "hdr-histogram-js"));
const RecordedValuesIterator = require(
  path.join(modules, "hdr-histogram-js", "dist", "RecordedValuesIterator")).default;

function slotLines(histogram) {
  const out = [];
  const it = new RecordedValuesIterator(histogram);
  while (it.hasNext()) {
    const v = it.next();
    out.push(`${BigInt(v.valueIteratedTo)} ${BigInt(v.countAtValueIteratedTo)}`);
  }
  return out;
}

function inputLines() {
  const text = fs.readFileSync(0, "utf8");
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function decode() {
  const out = [];
  for (const line of inputLines()) {
    let histogram;
    try {
      histogram = hdr.decodeFromCompressedBase64(line, 64, false);
    } catch (e) {
      out.push(`error ${e.message}`);
      continue;
    }
    out.push(`histogram ${BigInt(histogram.totalCount)}`);
    out.push(...slotLines(histogram));
  }
  return out;
}

const kLayouts = {
  hail: { bitBucketSize: 64, autoResize: false, lowestDiscernibleValue: 1,
          highestTrackableValue: 2 ** 42, numberOfSignificantValueDigits: 3 },
  packed: { bitBucketSize: "packed", autoResize: false, lowestDiscernibleValue: 1,
            highestTrackableValue: 2 ** 42, numberOfSignificantValueDigits: 3 },
  default: {},
};

function encode(layout) {
  const request = kLayouts[layout];
  if (request === undefined) throw new Error(`unknown layout ${layout}`);
  const out = [];
  for (const line of inputLines()) {
    const histogram = hdr.build(request);
    for (const word of line.split(" ").filter((w) => w !== "")) {
      const [value, count] = word.split(":").map(Number);
      histogram.recordValueWithCount(value, count);
    }
    out.push(hdr.encodeIntoCompressedBase64(histogram));
  }
  return out;
}

function readLog(file) {
  const reader = new hdr.HistogramLogReader(fs.readFileSync(file, "utf8"), 64);
  const out = [];
  for (let h = reader.nextIntervalHistogram(); h !== null; h = reader.nextIntervalHistogram()) {
    out.push(`interval ${h.tag} ${Math.round(h.startTimeStampMsec)} ` +
             `${Math.round(h.endTimeStampMsec)} ${BigInt(h.totalCount)}`);
    out.push(...slotLines(h));
  }
  return out;
}

const [mode, arg] = process.argv.slice(2);
let out;
if (mode === "decode") {
  out = decode();
} else if (mode === "encode") {
  out = encode(arg);
} else if (mode === "log") {
  out = readLog(arg);
} else {
  process.stderr.write("usage: node hdr_js_oracle.js decode | encode LAYOUT | log FILE\n");
  process.exit(2);
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
