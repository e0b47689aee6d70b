// format_duration: the one way commands print durations.
#include <gtest/gtest.h>

#include <cmath>

#include "streamlab/model/units.hpp"

using streamlab::model::format_duration;
using streamlab::model::format_signed_duration;

TEST(FormatDuration, PicksTheLargestUnitAndFourSignificantDigits) {
  EXPECT_EQ(format_duration(0), "0 ns");
  EXPECT_EQ(format_duration(850), "850 ns");
  EXPECT_EQ(format_duration(999.4), "999 ns");
  EXPECT_EQ(format_duration(1000), "1 us");
  EXPECT_EQ(format_duration(20'400), "20.4 us");
  EXPECT_EQ(format_duration(26'783'744.923), "26.78 ms");
  EXPECT_EQ(format_duration(123'456'789), "123.5 ms");
  EXPECT_EQ(format_duration(26.78e9), "26.78 s");
  EXPECT_EQ(format_duration(1.2345e9), "1.234 s");  // printf rounds half to even on this value's binary form
  EXPECT_EQ(format_duration(3600e9), "3600 s");
  EXPECT_EQ(format_duration(-35), "-35 ns");
  EXPECT_EQ(format_duration(-1'500), "-1.5 us");
  EXPECT_EQ(format_duration(NAN), "n/a");
}

TEST(FormatDuration, SignedFormShowsPlusOnlyForPositiveValues) {
  EXPECT_EQ(format_signed_duration(1'200), "+1.2 us");
  EXPECT_EQ(format_signed_duration(-35), "-35 ns");
  EXPECT_EQ(format_signed_duration(0), "0 ns");
}
