#pragma once
/// \file progress.hpp
/// How far a long computation (reading a large file, simulating a million ops) has got, for a display
/// on another thread (the command line's progress bar). The code doing the work only bumps counters;
/// it never prints, and passing no counter costs nothing.

#include <atomic>
#include <cstdint>

namespace streamlab::model {

/// Units done out of a total (bytes read, ops completed). Written by the worker, read by a display
/// thread: relaxed atomics, since a display only needs a recent value, not an ordering.
class ProgressCounter {
 public:
  /// Starts over: 0 of `total` units (0 = unknown total; a display shows elapsed time only).
  void reset(std::uint64_t total) noexcept {
    done_.store(0, std::memory_order_relaxed);
    total_.store(total, std::memory_order_relaxed);
  }
  void set_total(std::uint64_t total) noexcept { total_.store(total, std::memory_order_relaxed); }
  void set_done(std::uint64_t done) noexcept { done_.store(done, std::memory_order_relaxed); }
  void add(std::uint64_t n) noexcept { done_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t total() const noexcept { return total_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::uint64_t> total_{0};
};

}  // namespace streamlab::model
