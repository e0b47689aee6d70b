#pragma once
/// \file errors.hpp
/// User errors: bad input a person can fix (a workload, a profile, a flag). CUDA failures have their own
/// type in the executor.

#include <new>
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

/// A step ran out of memory (an input too large for this machine). The message names the file and the
/// step ("FILE: parsing: out of memory ..."), instead of the bare "std::bad_alloc".
class OutOfMemory : public std::runtime_error {
 public:
  OutOfMemory(const std::string& file, const std::string& step);
};

/// Runs `f()`; std::bad_alloc inside it becomes OutOfMemory naming `file` and `step`.
template <class F>
decltype(auto) with_step(const std::string& file, const char* step, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(file, step);
  }
}

}  // namespace streamlab::model
