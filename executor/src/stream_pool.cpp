#include "streamlab/executor/stream_pool.hpp"

#include <algorithm>
#include <thread>

#include "streamlab/executor/error.hpp"

namespace streamlab::executor {
namespace {

constexpr std::size_t index_of(model::WorkloadType t) noexcept { return static_cast<std::size_t>(t); }

PriorityLevel level_of(model::Priority p) noexcept {
  switch (p) {
    case model::Priority::critical:
    case model::Priority::high: return PriorityLevel::high;
    case model::Priority::normal: return PriorityLevel::normal;
    case model::Priority::low:
    case model::Priority::cleanup: return PriorityLevel::low;
  }
  return PriorityLevel::normal;
}

}  // namespace

StreamPool::StreamPool() : StreamPool(Options{}) {}

StreamPool::StreamPool(Options options) : options_(options) {
  range_ = stream_priority_range();
  const auto [least, greatest] = range_;
  const int cuda_priority[3] = {greatest, (least + greatest) / 2, least};
  const std::size_t per_class = std::max<std::size_t>(1, options_.streams_per_class);
  constexpr model::WorkloadType kClasses[4] = {model::WorkloadType::compute, model::WorkloadType::memory,
                                               model::WorkloadType::mixed, model::WorkloadType::coordination};
  for (model::WorkloadType type : kClasses) {
    for (std::size_t i = 0; i < per_class; ++i) {
      PriorityLevel level = PriorityLevel::normal;
      if (type == model::WorkloadType::compute) level = i % 2 == 0 ? PriorityLevel::high : PriorityLevel::normal;
      if (type == model::WorkloadType::coordination) level = PriorityLevel::low;
      const int p = cuda_priority[static_cast<std::size_t>(level)];
      const std::size_t idx = streams_.size();
      streams_.emplace_back(options_.flags, p);
      info_.push_back(PooledStreamInfo{idx, level, p, type, 0, 0});
      by_class_[index_of(type)].push_back(idx);
      by_level_[static_cast<std::size_t>(level)].push_back(idx);
    }
  }
  // Every level must have a stream to hand out: borrow the nearest one when a level is empty.
  for (std::size_t l = 0; l < 3; ++l) {
    if (by_level_[l].empty()) by_level_[l] = by_level_[1].empty() ? by_class_[0] : by_level_[1];
  }
}

std::size_t StreamPool::next_in(std::span<const std::size_t> members, std::size_t& cursor) const {
  const std::size_t i = members[cursor % members.size()];
  ++cursor;
  return i;
}

std::size_t StreamPool::pick_locked(model::WorkloadType type, model::Priority priority) {
  switch (options_.strategy) {
    case AllocationStrategy::round_robin:
      return rr_cursor_++ % streams_.size();
    case AllocationStrategy::load_balanced: {
      std::size_t best = 0;
      for (std::size_t i = 1; i < info_.size(); ++i) {
        if (info_[i].outstanding < info_[best].outstanding) best = i;
      }
      return best;
    }
    case AllocationStrategy::priority: {
      const auto l = static_cast<std::size_t>(level_of(priority));
      return next_in(by_level_[l], level_cursor_[l]);
    }
    case AllocationStrategy::workload:
      return next_in(by_class_[index_of(type)], class_cursor_[index_of(type)]);
  }
  return 0;
}

stream_ref StreamPool::acquire(model::WorkloadType type, model::Priority priority) {
  std::lock_guard lock(mutex_);
  const std::size_t i = pick_locked(type, priority);
  ++info_[i].issued;
  ++info_[i].outstanding;
  return streams_[i];
}

stream_ref StreamPool::for_workload(model::WorkloadType type) {
  std::lock_guard lock(mutex_);
  return streams_[next_in(by_class_[index_of(type)], class_cursor_[index_of(type)])];
}

stream_ref StreamPool::for_priority(model::Priority priority) {
  std::lock_guard lock(mutex_);
  const auto l = static_cast<std::size_t>(level_of(priority));
  return streams_[next_in(by_level_[l], level_cursor_[l])];
}

std::vector<std::size_t> StreamPool::ready_streams() {
  std::vector<std::size_t> ready;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].ready("stream pool")) {
      info_[i].outstanding = 0;
      ready.push_back(i);
    }
  }
  return ready;
}

bool StreamPool::has_ready_stream() {
  std::lock_guard lock(mutex_);
  bool any = false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].ready("stream pool")) {
      info_[i].outstanding = 0;
      any = true;
    }
  }
  return any;
}

std::optional<stream_ref> StreamPool::wait_any_ready(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::uint32_t round = 0;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < streams_.size(); ++i) {
        if (streams_[i].ready("stream pool")) {
          info_[i].outstanding = 0;
          return stream_ref{streams_[i]};
        }
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    // Spin for the first rounds (completion is usually microseconds away), then back off.
    if (++round > 64) std::this_thread::sleep_for(std::chrono::microseconds(20));
    else std::this_thread::yield();
  }
}

void StreamPool::record_completion(model::WorkloadType type, std::chrono::nanoseconds duration) {
  std::lock_guard lock(mutex_);
  auto& c = class_stats_[index_of(type)];
  ++c.count;
  c.total_ns += duration.count();
}

std::chrono::nanoseconds StreamPool::average_time(model::WorkloadType type) const {
  std::lock_guard lock(mutex_);
  const auto& c = class_stats_[index_of(type)];
  return std::chrono::nanoseconds(c.count == 0 ? 0 : c.total_ns / static_cast<std::int64_t>(c.count));
}

PooledStreamInfo StreamPool::info(std::size_t i) const {
  std::lock_guard lock(mutex_);
  return info_.at(i);
}

void StreamPool::synchronize_all() {
  for (auto& s : streams_) s.sync("stream pool");
  std::lock_guard lock(mutex_);
  for (auto& i : info_) i.outstanding = 0;
}

}  // namespace streamlab::executor
