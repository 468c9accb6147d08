// The CPU model named by /proc/cpuinfo's text: x86's "model name", else ARM's "Hardware" or MIPS's
// "cpu model" (other architectures have neither: the caller falls back to uname's machine).
// Owner: monitor. Pure (text in, text out): any thread.
#pragma once

#include <string>
#include <string_view>

namespace hail {

// The first non-empty value of the first key found, in the order above, with runs of spaces
// collapsed; empty when the text names no model.
std::string parse_cpu_model(std::string_view cpuinfo);

}  // namespace hail
