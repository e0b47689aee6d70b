#pragma once
/// \file errors.hpp
/// User errors: bad input a person can fix (a workload, a profile, a flag). CUDA failures have their own
/// type in the executor.

#include <stdexcept>
#include <string>

namespace streamlab::model {

/// An input file or argument is wrong. The message names the file, the place in it (a JSON pointer or a
/// line) and the op where there is one, so a person can act on it.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string place, std::string op, const std::string& what);
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] const std::string& place() const noexcept { return place_; }
  [[nodiscard]] const std::string& op() const noexcept { return op_; }
  /// The bare reason, without file/place/op.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_, place_, op_, reason_;
};

}  // namespace streamlab::model
