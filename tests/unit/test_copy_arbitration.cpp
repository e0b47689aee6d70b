// The copy-queue arbitration models: hand-written service orders, and that each model is told apart from
// the others by the calibrate probe's pattern (8 streams, two copies each, issued breadth-first).
#include <gtest/gtest.h>

#include "streamlab/model/copy_arbitration.hpp"

namespace {

using streamlab::model::classify_copy_arbitration;
using streamlab::model::copy_service_order;
using streamlab::model::CopyArbitration;

std::vector<std::uint32_t> breadth(std::uint32_t streams, std::uint32_t rounds) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t r = 0; r < rounds; ++r)
    for (std::uint32_t k = 0; k < streams; ++k) v.push_back(k);
  return v;
}

// Copy i of `issued` as "<stream><round>" (a, b), in service order.
std::string names(const std::vector<std::uint32_t>& issued, const std::vector<std::uint32_t>& order) {
  std::string s;
  for (const std::uint32_t i : order) {
    std::uint32_t round = 0;
    for (std::uint32_t j = 0; j < i; ++j) round += issued[j] == issued[i] ? 1 : 0;
    s += std::to_string(issued[i]) + static_cast<char>('a' + round) + " ";
  }
  return s;
}

TEST(CopyArbitration, BitReversedRank) {
  EXPECT_EQ(streamlab::model::bit_reversed_rank(1, 4), 2u);
  EXPECT_EQ(streamlab::model::bit_reversed_rank(2, 4), 1u);
  EXPECT_EQ(streamlab::model::bit_reversed_rank(3, 8), 6u);
  EXPECT_EQ(streamlab::model::bit_reversed_rank(2, 3), 1u);  // three queues: slots of four
}

TEST(CopyArbitration, ServiceOrdersOfTheFourModels) {
  const auto v = breadth(8, 2);
  // Runs 5 and 62's machines (4 queues, oldest first), runs 71 and 80's (a queue per stream), run 84's
  // (4 queues, bit-reversed), and 8 queues bit-reversed.
  EXPECT_EQ(names(v, copy_service_order(v, 4, false)), "0a 4a 0b 4b 1a 5a 1b 5b 2a 6a 2b 6b 3a 7a 3b 7b ");
  EXPECT_EQ(names(v, copy_service_order(v, 8, false)), "0a 0b 1a 1b 2a 2b 3a 3b 4a 4b 5a 5b 6a 6b 7a 7b ");
  EXPECT_EQ(names(v, copy_service_order(v, 4, true)), "0a 4a 0b 4b 2a 6a 2b 6b 1a 5a 1b 5b 3a 7a 3b 7b ");
  EXPECT_EQ(names(v, copy_service_order(v, 8, true)), "0a 0b 4a 4b 2a 2b 6a 6b 1a 1b 5a 5b 3a 3b 7a 7b ");
  // E3's three buffers on run 84's machine, one copy per stream at a time: 0, 2, 1.
  const auto three = breadth(3, 1);
  EXPECT_EQ(names(three, copy_service_order(three, 4, true)), "0a 2a 1a ");
}

TEST(CopyArbitration, TheProbePatternTellsEveryModelApart) {
  const auto v = breadth(8, 2);
  for (const std::uint32_t queues : {4u, 8u})
    for (const bool reversed : {false, true})
      for (std::uint32_t offset = 0; offset < queues; ++offset) {
        const auto got = classify_copy_arbitration(v, copy_service_order(v, queues, reversed, offset));
        ASSERT_TRUE(got.has_value()) << queues << reversed << offset;
        EXPECT_EQ(*got, (CopyArbitration{queues, reversed})) << queues << reversed << offset;
      }
  // An order no model makes: none.
  std::vector<std::uint32_t> odd(v.size());
  for (std::uint32_t i = 0; i < odd.size(); ++i) odd[i] = static_cast<std::uint32_t>(odd.size()) - 1 - i;
  EXPECT_FALSE(classify_copy_arbitration(v, odd).has_value());
}

}  // namespace
