#pragma once
// Shared by the workload and program parser tests: one check of the error every bad workload must give.

#include <gtest/gtest.h>

#include <string>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::test {

/// Parses `text` as file `file`; expects an InputError at `place` about `op` whose one-line message
/// names the file, the place and the op and contains `reason`.
inline void expect_workload_error(const std::string& text, const std::string& file, const std::string& place,
                                  const std::string& op, const std::string& reason) {
  try {
    (void)model::parse_workload(text, file);
    ADD_FAILURE() << "no error; expected " << place << ": " << reason;
  } catch (const model::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), file) << what;
    EXPECT_EQ(e.place(), place) << what;
    EXPECT_EQ(e.op(), op) << what;
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find(place), std::string::npos) << what;
    if (!op.empty()) {
      EXPECT_NE(what.find("op '" + op + "'"), std::string::npos) << what;
    }
    EXPECT_NE(what.find(reason), std::string::npos) << "message: " << what << "\nexpected to contain: " << reason;
  }
}

}  // namespace streamlab::test
