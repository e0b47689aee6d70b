// kernel_block_times: a kernel's own block time recovered from a timeline where it waited for SM room.
// Scenarios small enough to work out by hand on the bundled H100 profile with CUPTI's span pad set to 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "streamlab/import/block_time.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/occupancy.hpp"

namespace streamlab::import {
namespace {

model::DeviceProfile h100() {
  model::DeviceProfile p = model::bundled_h100_profile();
  p.traced_span_pad_ns.value = 0;
  p.cupti_kernel_pad_ns = model::Param{};
  return p;
}

/// 128 blocks of 256 threads x 202 registers and 48 KB shared memory: one block fills an SM's registers
/// (8 warps x 6,656 = 53,248 of 65,536), so the grid takes 128 of the 132 SMs, one block each.
model::KernelShape gemm() { return model::KernelShape{{128, 1, 1}, {256, 1, 1}, 202, 48 * 1024}; }

TEST(BlockTime, OneBlockPerSmGemmFootprint) {
  const auto p = h100();
  EXPECT_EQ(model::blocks_that_fit(model::block_footprint(gemm(), p), model::sm_capacity(p)), 1);
}

TEST(BlockTime, KernelAloneKeepsSpanOverWaves) {
  const std::vector<MeasuredKernel> k{{1'000, 341'000, gemm()},
                                      // 264 blocks of a kernel with 1 block per SM: two waves.
                                      {500'000, 700'000, model::KernelShape{{264, 1, 1}, {256, 1, 1}, 202, 48 * 1024}}};
  const BlockTimes t = kernel_block_times(k, h100());
  EXPECT_EQ(t.ns[0], 340'000);
  EXPECT_EQ(t.ns[1], 100'000);
  EXPECT_EQ(t.contended, 0u);
}

TEST(BlockTime, SecondGemmWaitsForTheFirstOnesSms) {
  // First GEMM: 0 .. 340 us on 128 SMs. Second GEMM from 250 us: 4 blocks on the 4 idle SMs at once, the
  // other 124 when the first GEMM's blocks end at 340 us. With an 88 us block time it ends at 428 us, so a
  // span of 178 us holds 88 us of its own time (span / waves would say 178).
  const std::vector<MeasuredKernel> k{{250'000, 428'000, gemm()}, {0, 340'000, gemm()}};  // any order
  const BlockTimes t = kernel_block_times(k, h100());
  EXPECT_EQ(t.ns[1], 340'000);
  EXPECT_EQ(t.ns[0], 88'000);
  EXPECT_EQ(t.contended, 1u);
  EXPECT_EQ(t.inconsistent, 0u);
}

TEST(BlockTime, SmallBlocksShareTheSmsTheGemmLeaves) {
  // 132 blocks of 128 threads x 32 registers (4,096 registers each) next to the GEMM: an SM holding a GEMM
  // block keeps 12,288 registers free, room for 3 more blocks, so all 132 start at once: no wait.
  const std::vector<MeasuredKernel> k{{0, 340'000, gemm()},
                                      {100'000, 120'000, model::KernelShape{{132, 1, 1}, {128, 1, 1}, 32, 0}}};
  const BlockTimes t = kernel_block_times(k, h100());
  EXPECT_EQ(t.ns[1], 20'000);
  EXPECT_EQ(t.contended, 0u);
}

TEST(BlockTime, TinyBlocksMayCycleThroughTheIdleSms) {
  // The second GEMM ends at 300 us, while the first holds 128 SMs until 340 us: its 128 blocks then ran on
  // the 4 idle SMs, 32 rounds of at most 50 us / 32 = 1,562 us each.
  const std::vector<MeasuredKernel> k{{0, 340'000, gemm()}, {250'000, 300'000, gemm()}};
  const BlockTimes t = kernel_block_times(k, h100());
  EXPECT_EQ(t.ns[1], 1'562);
  EXPECT_EQ(t.contended, 1u);
}

TEST(BlockTime, AnEndTooEarlyForTheRoomIsReportedAndKeepsSpanOverWaves) {
  // A first grid of 132 one-per-SM blocks leaves no SM idle until 340 us; a second GEMM that claims to end
  // at 300 us cannot be explained by any block time under the occupancy rules.
  model::KernelShape full = gemm();
  full.grid = {132, 1, 1};
  const std::vector<MeasuredKernel> k{{0, 340'000, full}, {250'000, 300'000, gemm()}};
  const BlockTimes t = kernel_block_times(k, h100());
  EXPECT_EQ(t.ns[1], 50'000);
  EXPECT_EQ(t.inconsistent, 1u);
  EXPECT_EQ(t.contended, 0u);
}

TEST(BlockTime, ManyWavesBesideAGemmRunInTheRoomItLeaves) {
  // An elementwise grid of 4,096 blocks of 128 threads x 28 registers (as PyTorch's, next to cuBLAS GEMMs
  // on another stream): alone, 16 blocks per SM, 2 waves. From 100 us it shares the SMs with the GEMM
  // (0 .. 340 us on 128 SMs): beside a GEMM block (256 x 202 registers, 53,248 allocated) an SM has
  // 12,288 registers left, 3 of its 4,096-register blocks; the 4 idle SMs take 16. With 448 slots its
  // 5 us blocks run 10 rounds, 100 .. 150 us; span / waves would say 25 us.
  const model::KernelShape elementwise{{4096, 1, 1}, {128, 1, 1}, 28, 0};
  const auto p = h100();
  ASSERT_EQ(model::blocks_that_fit(model::block_footprint(elementwise, p), model::sm_capacity(p)), 16);
  const std::vector<MeasuredKernel> k{{0, 340'000, gemm()}, {100'000, 150'000, elementwise}};
  const BlockTimes t = kernel_block_times(k, p);
  EXPECT_NEAR(static_cast<double>(t.ns[1]), 5'000.0, 5.0);  // the search stops within a thousandth
  EXPECT_LE(t.ns[1], 5'000);
  EXPECT_EQ(t.contended, 1u);
  EXPECT_EQ(t.uncorrected, 0u);
}

TEST(BlockTime, ChainsOfOverlappingGemmsRecoverEachOwnTime) {
  // GEMM i (own block time 100 + 20 i us) starts `offset` after GEMM i-1. While GEMM i-1 holds the SMs,
  // GEMM i's first blocks take what is idle and the rest start when GEMM i-1's blocks end together, so it
  // ends at max(start + own, previous end + own). The recovery must give back each own time, and never
  // more than the span.
  for (model::Nanos offset : {10'000, 90'000, 200'000, 330'000}) {
    std::vector<MeasuredKernel> k;
    std::vector<model::Nanos> own;
    model::Nanos start = 0;
    for (int i = 0; i < 6; ++i) {
      own.push_back(100'000 + 20'000 * i);
      const model::Nanos end = i == 0 ? own.back() : std::max(start, k.back().end) + own.back();
      k.push_back({start, end, gemm()});
      start += offset;
    }
    const BlockTimes t = kernel_block_times(k, h100());
    for (std::size_t i = 0; i < k.size(); ++i) {
      EXPECT_NEAR(static_cast<double>(t.ns[i]), static_cast<double>(own[i]), 1.0) << offset << " " << i;
      EXPECT_LE(t.ns[i], k[i].end - k[i].start);
    }
    EXPECT_EQ(t.inconsistent, 0u) << offset;
  }
}


/// A busy timeline, the same on every platform (SplitMix64, no std distributions): one-wave and
/// many-wave grids of several footprints (GEMM-like one block per SM, small blocks, shared-memory-heavy
/// blocks), spans from a microsecond to 200 us, and `overlap` kernels in flight on average, so that most
/// kernels meet earlier ones and many need the bisection.
std::vector<MeasuredKernel> busy_timeline(std::uint64_t seed, std::size_t n, model::Nanos first, int overlap) {
  std::uint64_t x = seed;
  auto next = [&] {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  auto in = [&](std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); };
  std::vector<MeasuredKernel> k;
  model::Nanos t = first;
  for (std::size_t i = 0; i < n; ++i) {
    model::KernelShape s;
    switch (in(0, 4)) {
      case 0: s = {{static_cast<std::uint32_t>(in(1, 140)), 1, 1}, {256, 1, 1}, 202, 48 * 1024}; break;
      case 1: s = {{static_cast<std::uint32_t>(in(1, 2000)), 1, 1}, {128, 1, 1}, 32, 0}; break;
      case 2: s = {{static_cast<std::uint32_t>(66 + in(0, 999)), 1, 1}, {256, 1, 1},
                   static_cast<std::uint32_t>(32 + 16 * in(0, 4)), static_cast<std::uint32_t>(8192 * in(0, 2))}; break;
      case 3: s = {{static_cast<std::uint32_t>(in(1, 264)), 1, 1}, {1024, 1, 1}, 64,
                   static_cast<std::uint32_t>(1024 * in(0, 200))}; break;
      default: s = {{static_cast<std::uint32_t>(in(1, 600)), static_cast<std::uint32_t>(in(1, 3)), 1},
                    {static_cast<std::uint32_t>(32 * in(1, 32)), 1, 1}, static_cast<std::uint32_t>(in(16, 128)),
                    static_cast<std::uint32_t>(1024 * in(0, 64))}; break;
    }
    const auto span = static_cast<model::Nanos>(in(0, 2) == 0 ? in(1, 3'000) : in(2'000, 200'000));
    k.push_back({t, t + span, s});
    t += static_cast<model::Nanos>(in(0, static_cast<std::uint64_t>(span / overlap)));
  }
  return k;
}

/// Every block time and count, one per line, as block_times_reference.txt holds them.
std::string listing(const BlockTimes& t) {
  std::ostringstream out;
  out << "contended " << t.contended << " inconsistent " << t.inconsistent << " uncorrected " << t.uncorrected
      << "\n";
  for (model::Nanos ns : t.ns) out << ns << "\n";
  return out.str();
}

TEST(BlockTime, BusyTimelinesGiveTheReferenceBlockTimes) {
  // block_times_reference.txt was written by this recovery when grids of several waves began to be
  // replayed (2026-11-24; before, the per-SM scheduler of ed0439d wrote it for one-wave grids). The
  // run-length room, resumed probes, deadlines and cached fits are speed only: the block times and counts
  // must be these, to the nanosecond.
  // The reference was written with the H100 profile bundled then (calibrated 2026-11-21), kept as a file.
  const model::DeviceProfile then = model::load_device_profile(std::filesystem::path(STREAMLAB_SOURCE_DIR) / "model" /
                                                               "profiles" / "h100-sxm-2026-11-21.json");
  model::DeviceProfile no_pad = then;
  no_pad.traced_span_pad_ns.value = 0;
  model::DeviceProfile few_sms = then;
  few_sms.sm_count.value = 7;
  const struct {
    const char* name;
    model::DeviceProfile profile;
    std::vector<MeasuredKernel> kernels;
  } cases[] = {
      {"h100", then, busy_timeline(1, 600, 1'000'000, 4)},
      {"h100 no pad", no_pad, busy_timeline(2, 600, 0, 8)},
      {"h100 negative times", then, busy_timeline(3, 400, -3'000'000, 3)},
      {"7 SMs", few_sms, busy_timeline(4, 400, 0, 12)},
  };
  std::ifstream in(STREAMLAB_SOURCE_DIR "/tests/unit/block_times_reference.txt");
  ASSERT_TRUE(in) << "tests/unit/block_times_reference.txt";
  std::stringstream all;
  all << in.rdbuf();
  std::string expected = all.str();
  for (const auto& c : cases) {
    const std::string head = std::string("# ") + c.name + "\n";
    const auto at = expected.find(head);
    ASSERT_NE(at, std::string::npos) << c.name;
    const auto from = at + head.size();
    const auto to = expected.find("# ", from);
    EXPECT_EQ(listing(kernel_block_times(c.kernels, c.profile)), expected.substr(from, to - from)) << c.name;
  }
}

}  // namespace
}  // namespace streamlab::import
