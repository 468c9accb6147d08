// Test-only bridge between hail's "HISTF..." codec (stats/hdr_string.h) and the interoperability
// tests (test_hdr_interop.py), which compare it count for count with other HdrHistogram
// implementations. Reads stdin line by line, writes stdout:
//   histf_tool decode   each line a HISTF string; prints "histogram TOTAL" and then one
//                       "VALUE COUNT" line per non-empty slot (VALUE: the slot's highest value),
//                       or "error MESSAGE" when decode_histf refuses the string
//   histf_tool encode   each line "VALUE:COUNT VALUE:COUNT ..." (may be empty); prints the HISTF
//                       string of a histogram holding those values
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "stats/hdr_string.h"
#include "stats/histogram.h"

namespace {

int decode_lines() {
  for (std::string line; std::getline(std::cin, line);) {
    hail::Histogram h;
    const hail::Status st = hail::decode_histf(line, h);
    if (!st.ok()) {
      std::cout << "error " << st.error().message << "\n";
      continue;
    }
    std::cout << "histogram " << h.count() << "\n";
    h.for_each_recorded(
        [](uint64_t value, uint64_t count) { std::cout << value << " " << count << "\n"; });
  }
  return 0;
}

int encode_lines() {
  for (std::string line; std::getline(std::cin, line);) {
    hail::Histogram h;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const size_t colon = word.find(':');
      if (colon == std::string::npos) {
        std::cerr << "histf_tool: expected VALUE:COUNT, got \"" << word << "\"\n";
        return 2;
      }
      h.record_n(std::stoull(word.substr(0, colon)), std::stoull(word.substr(colon + 1)));
    }
    std::cout << hail::encode_histf(h) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 2 ? argv[1] : "";
  if (mode == "decode") return decode_lines();
  if (mode == "encode") return encode_lines();
  std::fprintf(stderr, "usage: histf_tool decode|encode < lines\n");
  return 2;
}
