// The /proc parsers on files recorded from a Debian 12 machine (Linux 6.x), and on what a monitor
// meets: a command name with spaces and parentheses, a process that vanished (empty or cut text),
// older kernels' shorter lines.
#include <gtest/gtest.h>

#include <string>

#include "monitor/proc_text.h"

namespace hail {
namespace {

constexpr const char* kStat =
    "27591 (cat) R 27589 27589 9612 0 -1 4194304 101 0 0 0 7 3 0 0 20 0 1 0 2673637 3133440 418 "
    "18446744073709551615 94097313320960 94097313340841 140732488689024 0 0 0 0 0 0 0 0 0 17 1 0 "
    "0 0 0 0 94097313356848 94097313358464 94098141462528 140732488690315 140732488690335 "
    "140732488690335 140732488691691 0\n";

TEST(ProcText, PidStat) {
  const auto s = parse_proc_pid_stat(kStat);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, 27591);
  EXPECT_EQ(s->comm, "cat");
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->utime_ticks, 7u);
  EXPECT_EQ(s->stime_ticks, 3u);
  EXPECT_EQ(s->threads, 1);
  EXPECT_EQ(s->start_ticks, 2673637u);
  EXPECT_EQ(s->rss_pages, 418);
}

TEST(ProcText, PidStatCommWithSpacesAndParentheses) {
  std::string text = kStat;
  text.replace(text.find("(cat)"), 5, "(a) b (c))");
  const auto s = parse_proc_pid_stat(text);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "a) b (c)");
  EXPECT_EQ(s->utime_ticks, 7u);
  EXPECT_EQ(s->rss_pages, 418);
}

TEST(ProcText, VanishedOrCutFilesAreNotZeros) {
  EXPECT_FALSE(parse_proc_pid_stat(""));
  EXPECT_FALSE(parse_proc_pid_stat(std::string(kStat).substr(0, 60)));
  EXPECT_FALSE(parse_proc_pid_stat("x (cat) R 1 2"));
  EXPECT_FALSE(parse_proc_pid_status(""));
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_meminfo("MemTotal: 1 kB\n"));
  EXPECT_FALSE(parse_loadavg(""));
  EXPECT_FALSE(parse_net_dev(""));
  EXPECT_FALSE(parse_tcp_retransmits(""));
  EXPECT_FALSE(count_time_wait(""));
}

TEST(ProcText, PidStatus) {
  const auto s = parse_proc_pid_status(
      "Name:\tnginx\nThreads:\t1\nVmRSS:\t    1960 kB\nvoluntary_ctxt_switches:\t12\n"
      "nonvoluntary_ctxt_switches:\t3\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rss_bytes, 1960u * 1024);
  EXPECT_EQ(s->voluntary_switches, 12u);
  EXPECT_EQ(s->involuntary_switches, 3u);
  // A kernel thread or zombie has no VmRSS line: 0 bytes, still a valid sample.
  const auto k = parse_proc_pid_status(
      "Name:\tkworker\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t0\n");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->rss_bytes, 0u);
}

TEST(ProcText, MachineCpu) {
  const auto s = parse_proc_stat(
      "cpu  2531615 329500 776000 1421740 25444 0 185201 26963 0 0\n"
      "cpu0 1245863 172668 381821 730785 6255 0 92245 13606 0 0\n"
      "cpu1 1285752 156832 394179 690954 19188 0 92955 13357 0 0\nintr 1 2 3\nctxt 99\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cpus, 2u);
  EXPECT_EQ(s->cpu[static_cast<size_t>(CpuMode::kUser)], 2531615u);
  EXPECT_EQ(s->cpu[static_cast<size_t>(CpuMode::kIdle)], 1421740u);
  EXPECT_EQ(s->cpu[static_cast<size_t>(CpuMode::kSteal)], 26963u);
  // A 2.6.0 kernel's four columns: the rest reads 0.
  const auto old = parse_proc_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->cpu[static_cast<size_t>(CpuMode::kIdle)], 4u);
  EXPECT_EQ(old->cpu[static_cast<size_t>(CpuMode::kIowait)], 0u);
}

TEST(ProcText, MemoryAndLoad) {
  const auto m = parse_meminfo(
      "MemTotal:       24683568 kB\nMemFree:        21321576 kB\nMemAvailable:   23499548 kB\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 24683568ull * 1024);
  EXPECT_EQ(m->available_bytes, 23499548ull * 1024);
  const auto l = parse_loadavg("4.73 4.26 2.93 6/114 27595\n");
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ((*l)[0], 4.73);
  EXPECT_DOUBLE_EQ((*l)[2], 2.93);
}

constexpr const char* kNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop "
    "fifo colls carrier compressed\n"
    "    lo: 929753684939 509465167    0 4848    0     0          0         0 929753684939 "
    "509465167    0    0    0     0       0          0\n"
    "  eth0: 160973757    4392    0    0    0     0          0         0   270866    3085    0    "
    "0    0     0       0          0\n"
    "  eth1:1000 10    0    0    0     0          0         0   2000    20    0    0    0     0  "
    "     0          0\n";

TEST(ProcText, NetworkWithoutLoopback) {
  const auto n = parse_net_dev(kNetDev);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->rx_bytes, 160973757u + 1000);  // "eth1:1000": no space after the colon
  EXPECT_EQ(n->rx_packets, 4402u);
  EXPECT_EQ(n->tx_bytes, 272866u);
  EXPECT_EQ(n->tx_packets, 3105u);
  const auto all = parse_net_dev(kNetDev, true);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->rx_packets, 509465167u + 4402);
}

TEST(ProcText, TcpRetransmitsAndTimeWait) {
  const auto r = parse_tcp_retransmits(
      "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
      "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      "Tcp: 1 200 120000 -1 6130125 6125489 4589 1012839 0 509468576 509302078 174852 0 673659 0\n"
      "Udp: InDatagrams\nUdp: 5\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, 174852u);
  const auto tw = count_time_wait(
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
      "inode\n"
      "   0: 0100007F:926F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
      "76622001 1 0000000063aed991 100 0 0 10 0\n"
      "   1: 0100007F:C350 0100007F:1F90 06 00000000:00000000 03:00000F4A 00000000     0        0 "
      "0 3 0000000000000000\n"
      "   2: 0100007F:C352 0100007F:1F90 06 00000000:00000000 03:00000F4A 00000000     0        0 "
      "0 3 0000000000000000\n");
  ASSERT_TRUE(tw);
  EXPECT_EQ(*tw, 2u);
}

}  // namespace
}  // namespace hail
