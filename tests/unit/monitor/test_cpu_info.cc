// The CPU model from /proc/cpuinfo texts recorded on x86-64 (Debian 12), an ARM board (a
// "Hardware" line, no "model name") and a MIPS router ("cpu model"), and from text naming none.
#include <gtest/gtest.h>

#include "monitor/cpu_info.h"

namespace hail {
namespace {

constexpr const char* kX86 =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
    "stepping\t: 7\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";

constexpr const char* kArm =
    "processor\t: 0\n"
    "BogoMIPS\t: 108.00\n"
    "Features\t: fp asimd evtstrm crc32 cpuid\n"
    "CPU implementer\t: 0x41\n"
    "CPU part\t: 0xd08\n"
    "\n"
    "Hardware\t: BCM2835\n"
    "Revision\t: c03111\n"
    "Model\t\t: Raspberry Pi 4 Model B Rev 1.1\n";

constexpr const char* kMips =
    "system type\t\t: MediaTek MT7621 ver:1 eco:3\n"
    "machine\t\t\t: Ubiquiti EdgeRouter X\n"
    "processor\t\t: 0\n"
    "cpu model\t\t: MIPS 1004Kc V2.15\n"
    "BogoMIPS\t\t: 584.90\n";

TEST(CpuInfo, X86ModelName) {
  EXPECT_EQ(parse_cpu_model(kX86), "Intel(R) Xeon(R) CPU @ 2.20GHz");
}

TEST(CpuInfo, ArmHardwareLine) {
  EXPECT_EQ(parse_cpu_model(kArm), "BCM2835");
}

TEST(CpuInfo, MipsCpuModel) {
  EXPECT_EQ(parse_cpu_model(kMips), "MIPS 1004Kc V2.15");
}

TEST(CpuInfo, PaddedNamesAreCollapsed) {
  EXPECT_EQ(parse_cpu_model("model name\t: Intel(R) Xeon(R) CPU           E5-2680 0 @ 2.70GHz  \n"),
            "Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz");
}

TEST(CpuInfo, NoModelIsEmpty) {
  EXPECT_EQ(parse_cpu_model(""), "");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\n"), "");
  EXPECT_EQ(parse_cpu_model("model name\t:\nmodel name\t: \n"), "");  // empty values skipped
  EXPECT_EQ(parse_cpu_model("model name: last line without newline"), "last line without newline");
}

}  // namespace
}  // namespace hail
