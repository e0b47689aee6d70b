// The five scheduling policies. Each keeps its own ready structure (filled through on_ready) so that a
// decision is O(streams) at most and allocates nothing once the run's vectors have grown.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policies_impl.hpp"
#include "streamlab/policies/registry.hpp"
#include "streamlab/policies/registry.hpp"

namespace streamlab::policies::detail {

namespace {

using model::OpIndex;

/// FIFO of op indices over a vector: push_back, pop_front by advancing a head, pop_back for stealing.
class OpQueue {
 public:
  void clear() noexcept {
    items_.clear();
    head_ = 0;
  }
  void reserve(std::size_t n) { items_.reserve(n); }
  void push(OpIndex op) { items_.push_back(op); }
  [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
  [[nodiscard]] std::size_t size() const noexcept { return items_.size() - head_; }
  [[nodiscard]] OpIndex front() const noexcept { return items_[head_]; }
  /// The op k places behind the front, or Policy::kNoUpcoming.
  [[nodiscard]] OpIndex at(std::size_t k) const noexcept {
    return k < size() ? items_[head_ + k] : Policy::kNoUpcoming;
  }
  OpIndex pop_front() noexcept {
    const OpIndex op = items_[head_++];
    if (head_ == items_.size()) clear();  // reuse the storage from the start
    return op;
  }
  OpIndex pop_back() noexcept {
    const OpIndex op = items_.back();
    items_.pop_back();
    if (head_ == items_.size()) clear();
    return op;
  }

 private:
  std::vector<OpIndex> items_;
  std::size_t head_ = 0;
};

std::string label(std::string_view what, std::uint32_t i) { return std::string(what) + " " + std::to_string(i); }

/// Shared plumbing: name, config, stream count.
class PolicyBase : public Policy {
 public:
  PolicyBase(std::string_view name, const PolicyConfig& c) : name_(name), config_(c) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] const PolicyConfig& config() const noexcept override { return config_; }

 protected:
  std::vector<StreamSlot> general_layout(std::string_view what) const {
    std::vector<StreamSlot> out(config_.streams);
    for (std::uint32_t i = 0; i < config_.streams; ++i) {
      out[i].desc.label = label(what, i);
      out[i].desc.kind = config_.stream_kind;
    }
    return out;
  }
  std::string_view name_;
  PolicyConfig config_;
};

// Round-robin ------------------------------------------------------------------------------------------
// Ready ops in FIFO order onto streams 0, 1, 2, ... in turn. Static: a full window only delays.
class RoundRobin final : public PolicyBase {
 public:
  explicit RoundRobin(const PolicyConfig& c) : PolicyBase("round-robin", c) {}
  [[nodiscard]] bool is_static() const noexcept override { return true; }
  std::vector<StreamSlot> layout(std::pair<int, int>) override { return general_layout("rr"); }
  void begin(const HostView& v) override {
    ready_.clear();
    ready_.reserve(v.workload().size());
    next_ = 0;
  }
  void on_ready(OpIndex op) override { ready_.push(op); }
  [[nodiscard]] OpIndex upcoming(std::size_t k) const noexcept override { return ready_.at(k); }
  std::optional<Choice> choose(const HostView& v) override {
    if (ready_.empty()) return std::nullopt;
    const std::uint32_t s = next_;
    if (!v.has_room(s)) return std::nullopt;
    next_ = next_ + 1 == v.stream_count() ? 0 : next_ + 1;
    Choice c{ready_.pop_front(), s, {}};
    c.reason.code = ReasonCode::round_robin;
    c.reason.a = s;
    return c;
  }

 private:
  OpQueue ready_;
  std::uint32_t next_ = 0;
};

// Load-balanced ----------------------------------------------------------------------------------------
// Ready ops in FIFO order onto the stream with the least outstanding estimated work (issued minus
// observed complete); ties go to fewer outstanding ops, then the lower stream.
class LoadBalanced final : public PolicyBase {
 public:
  explicit LoadBalanced(const PolicyConfig& c) : PolicyBase("load-balanced", c) {}
  [[nodiscard]] bool is_static() const noexcept override { return false; }
  std::vector<StreamSlot> layout(std::pair<int, int>) override { return general_layout("lb"); }
  void begin(const HostView& v) override {
    ready_.clear();
    ready_.reserve(v.workload().size());
  }
  void on_ready(OpIndex op) override { ready_.push(op); }
  [[nodiscard]] OpIndex upcoming(std::size_t k) const noexcept override { return ready_.at(k); }
  std::optional<Choice> choose(const HostView& v) override {
    if (ready_.empty()) return std::nullopt;
    std::uint32_t best = kNone;
    model::Nanos best_ns = 0;
    std::uint32_t best_ops = 0;
    const std::uint32_t n = v.stream_count();
    for (std::uint32_t s = 0; s < n; ++s) {
      if (!v.has_room(s)) continue;
      const model::Nanos ns = v.outstanding_ns(s);
      const std::uint32_t ops = v.outstanding_ops(s);
      if (best == kNone || ns < best_ns || (ns == best_ns && ops < best_ops)) {
        best = s;
        best_ns = ns;
        best_ops = ops;
      }
    }
    if (best == kNone) return std::nullopt;
    Choice c{ready_.pop_front(), best, {}};
    c.reason.code = ReasonCode::least_outstanding;
    c.reason.value = best_ns;
    c.reason.a = best_ops;
    return c;
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  OpQueue ready_;
};

// Priority ---------------------------------------------------------------------------------------------
// Five classes, each mapped to a CUDA stream priority (explicit map or spread over the device range).
// Streams get the distinct levels in turn, highest first; a class uses the streams of its level (or of
// the nearest level when there are fewer streams than levels), round-robin among them. Ready ops are
// taken critical first, FIFO within a class; a class whose next stream is at its window blocks the lower
// classes too (so the policy stays static: windows delay, never reorder). Static.
class PriorityPolicy final : public PolicyBase {
 public:
  explicit PriorityPolicy(const PolicyConfig& c) : PolicyBase("priority", c) {}
  [[nodiscard]] bool is_static() const noexcept override { return true; }
  std::vector<StreamSlot> layout(std::pair<int, int> range) override {
    const auto prio = resolve_priorities(config_.priority_map, range);
    std::vector<int> levels(prio.begin(), prio.end());
    std::sort(levels.begin(), levels.end());  // numerically lowest = highest priority first
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    const auto k = static_cast<std::uint32_t>(levels.size());
    const std::uint32_t n = config_.streams;
    std::vector<StreamSlot> out(n);
    stream_level_.assign(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t li = n >= k ? i % k : static_cast<std::uint32_t>(std::uint64_t{i} * k / n);
      stream_level_[i] = levels[li];
      out[i].desc.priority = levels[li];
      out[i].desc.kind = config_.stream_kind;
      out[i].desc.label = "prio " + std::to_string(levels[li]) + " #" + std::to_string(i);
      out[i].role = StreamRole::priority_class;
    }
    for (std::size_t c = 0; c < 5; ++c) {
      auto& cls = class_streams_[c];
      cls.clear();
      int best_dist = std::numeric_limits<int>::max();
      int best_level = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const int d = std::abs(stream_level_[i] - prio[c]);
        // Nearest level; on a tie the higher priority (numerically lower) one.
        if (d < best_dist || (d == best_dist && stream_level_[i] < best_level)) {
          best_dist = d;
          best_level = stream_level_[i];
        }
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        if (stream_level_[i] == best_level) cls.push_back(i);
      }
    }
    return out;
  }
  void begin(const HostView& v) override {
    workload_ = &v.workload();
    for (auto& q : ready_) {
      q.clear();
      q.reserve(v.workload().size());
    }
    rr_.fill(0);
  }
  void on_ready(OpIndex op) override {
    ready_[static_cast<std::size_t>(workload_->ops[op].priority)].push(op);
  }
  std::optional<Choice> choose(const HostView& v) override {
    for (std::size_t c = 0; c < 5; ++c) {
      if (ready_[c].empty()) continue;
      const auto& cls = class_streams_[c];
      const std::uint32_t s = cls[rr_[c] % cls.size()];
      if (!v.has_room(s)) return std::nullopt;
      ++rr_[c];
      Choice ch{ready_[c].pop_front(), s, {}};
      ch.reason.code = ReasonCode::priority_class;
      ch.reason.a = static_cast<std::uint32_t>(c);
      ch.reason.value = stream_level_[s];
      return ch;
    }
    return std::nullopt;
  }

 private:
  const model::Workload* workload_ = nullptr;
  std::array<OpQueue, 5> ready_;
  std::array<std::vector<std::uint32_t>, 5> class_streams_;
  std::array<std::uint64_t, 5> rr_{};
  std::vector<int> stream_level_;
};

// Workload-aware ---------------------------------------------------------------------------------------
// Copies by direction onto their own copy streams (h2d, d2h, d2d); every other op by its WorkloadType:
// compute, memory and mixed onto their classes' streams, coordination onto one stream of the least
// priority. Layout for `streams` = N (at least 7): h2d, d2h, d2d, coordination, then the N-4 others as
// memory = mixed = max(1, (N-4)/4) and compute = the rest. Compute / memory / mixed streams sit one
// priority step above the least (when the device has one) so coordination work yields to them; copies
// ignore priority on CUDA and keep the least. Round-robin within a class; ready ops FIFO. Static.
class WorkloadAware final : public PolicyBase {
 public:
  static constexpr std::uint32_t kMinStreams = 7;
  explicit WorkloadAware(const PolicyConfig& c) : PolicyBase("workload-aware", c) {}
  [[nodiscard]] bool is_static() const noexcept override { return true; }
  std::vector<StreamSlot> layout(std::pair<int, int> range) override {
    const std::uint32_t n = std::max(config_.streams, kMinStreams);
    const std::uint32_t rest = n - 4;
    const std::uint32_t memory = std::max(1u, rest / 4);
    const std::uint32_t mixed = std::max(1u, rest / 4);
    const std::uint32_t compute = rest - memory - mixed;
    const int least = range.first;
    const int above = range.second < least ? least - 1 : least;  // one step higher priority if any
    std::vector<StreamSlot> out;
    for (auto& c : classes_) c.clear();
    auto add = [&](StreamRole role, int prio, std::uint32_t count) {
      for (std::uint32_t i = 0; i < count; ++i) {
        StreamSlot slot;
        slot.role = role;
        slot.desc.priority = prio;
        slot.desc.kind = config_.stream_kind;
        slot.desc.label = std::string(to_string(role));
        if (count > 1) slot.desc.label.append(1, ' ').append(std::to_string(i));
        classes_[static_cast<std::size_t>(role)].push_back(static_cast<std::uint32_t>(out.size()));
        out.push_back(std::move(slot));
      }
    };
    add(StreamRole::copy_h2d, least, 1);
    add(StreamRole::copy_d2h, least, 1);
    add(StreamRole::copy_d2d, least, 1);
    add(StreamRole::coordination, least, 1);
    add(StreamRole::compute, above, compute);
    add(StreamRole::memory, above, memory);
    add(StreamRole::mixed, above, mixed);
    return out;
  }
  void begin(const HostView& v) override {
    workload_ = &v.workload();
    ready_.clear();
    ready_.reserve(v.workload().size());
    rr_.fill(0);
  }
  void on_ready(OpIndex op) override { ready_.push(op); }
  std::optional<Choice> choose(const HostView& v) override {
    if (ready_.empty()) return std::nullopt;
    const OpIndex op = ready_.front();
    const auto role = role_of(workload_->ops[op]);
    const auto r = static_cast<std::size_t>(role);
    const auto& cls = classes_[r];
    const auto k = static_cast<std::uint32_t>(rr_[r] % cls.size());
    const std::uint32_t s = cls[k];
    if (!v.has_room(s)) return std::nullopt;
    ++rr_[r];
    ready_.pop_front();
    Choice ch{op, s, {}};
    ch.reason.code = ReasonCode::workload_class;
    ch.reason.a = static_cast<std::uint32_t>(role);
    ch.reason.b = k;
    ch.reason.c = static_cast<std::uint32_t>(cls.size());
    return ch;
  }

 private:
  static StreamRole role_of(const model::Op& op) noexcept {
    switch (op.kind) {
      case model::OpKind::h2d: return StreamRole::copy_h2d;
      case model::OpKind::d2h: return StreamRole::copy_d2h;
      case model::OpKind::d2d: return StreamRole::copy_d2d;
      default: break;
    }
    switch (op.type) {
      case model::WorkloadType::compute: return StreamRole::compute;
      case model::WorkloadType::memory: return StreamRole::memory;
      case model::WorkloadType::mixed: return StreamRole::mixed;
      case model::WorkloadType::coordination: return StreamRole::coordination;
    }
    return StreamRole::compute;
  }
  const model::Workload* workload_ = nullptr;
  OpQueue ready_;
  std::array<std::vector<std::uint32_t>, 9> classes_;  // indexed by StreamRole
  std::array<std::uint64_t, 9> rr_{};
};

// Work-stealing ----------------------------------------------------------------------------------------
// Each stream owns a local queue. A static split gives op i the home stream i * streams / ops (contiguous
// ranges of the workload, so chains written together stay together); a ready op joins its home queue.
// Streams take turns (round-robin from the one after the last that issued); a stream whose window has
// room issues the oldest op of its own queue, or, when that is empty, steals the newest op from the tail
// of the most loaded queue (most queued estimated work, then most ops, then lowest stream). The window
// is what makes it work-stealing rather than round-robin: a stream whose device work drains gets room
// first. Dynamic (windows depend on observed completions).
class WorkStealing final : public PolicyBase {
 public:
  static constexpr std::uint32_t kDefaultWindow = 2;
  explicit WorkStealing(const PolicyConfig& c) : PolicyBase("work-stealing", c) {}
  [[nodiscard]] bool is_static() const noexcept override { return false; }
  [[nodiscard]] std::uint32_t window() const noexcept override {
    return config_.window == 0 ? kDefaultWindow : config_.window;
  }
  std::vector<StreamSlot> layout(std::pair<int, int>) override { return general_layout("ws"); }
  void begin(const HostView& v) override {
    view_ = &v;
    const std::uint32_t n = config_.streams;
    queues_.resize(n);
    queued_ns_.assign(n, 0);
    for (auto& q : queues_) {
      q.clear();
      q.reserve(v.workload().size() / n + 1);
    }
    ops_ = static_cast<std::uint64_t>(v.workload().size());
    cursor_ = 0;
  }
  void on_ready(OpIndex op) override {
    const auto home = static_cast<std::uint32_t>(std::uint64_t{op} * queues_.size() / std::max<std::uint64_t>(ops_, 1));
    queues_[home].push(op);
    queued_ns_[home] += view_->estimate(op);
  }
  std::optional<Choice> choose(const HostView& v) override {
    const auto n = static_cast<std::uint32_t>(queues_.size());
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint32_t s = cursor_ + k;
      if (s >= n) s -= n;
      if (!v.has_room(s)) continue;
      if (!queues_[s].empty()) {
        const OpIndex op = queues_[s].pop_front();
        queued_ns_[s] -= v.estimate(op);
        cursor_ = s + 1 == n ? 0 : s + 1;
        Choice ch{op, s, {}};
        ch.reason.code = ReasonCode::local_queue;
        ch.reason.a = static_cast<std::uint32_t>(queues_[s].size());
        return ch;
      }
      const std::uint32_t victim = most_loaded();
      if (victim == kNone) return std::nullopt;  // nothing ready anywhere
      const OpIndex op = queues_[victim].pop_back();
      queued_ns_[victim] -= v.estimate(op);
      cursor_ = s + 1 == n ? 0 : s + 1;
      Choice ch{op, s, {}};
      ch.reason.code = ReasonCode::stolen;
      ch.reason.a = victim;
      ch.reason.b = static_cast<std::uint32_t>(queues_[victim].size());
      return ch;
    }
    return std::nullopt;  // every stream is at its window
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t most_loaded() const noexcept {
    std::uint32_t best = kNone;
    for (std::uint32_t q = 0; q < queues_.size(); ++q) {
      if (queues_[q].empty()) continue;
      if (best == kNone || queued_ns_[q] > queued_ns_[best] ||
          (queued_ns_[q] == queued_ns_[best] && queues_[q].size() > queues_[best].size())) {
        best = q;
      }
    }
    return best;
  }
  const HostView* view_ = nullptr;
  std::vector<OpQueue> queues_;
  std::vector<model::Nanos> queued_ns_;
  std::uint64_t ops_ = 0;
  std::uint32_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_round_robin(const PolicyConfig& c) { return std::make_unique<RoundRobin>(c); }
std::unique_ptr<Policy> make_load_balanced(const PolicyConfig& c) { return std::make_unique<LoadBalanced>(c); }
std::unique_ptr<Policy> make_priority(const PolicyConfig& c) { return std::make_unique<PriorityPolicy>(c); }
std::unique_ptr<Policy> make_workload_aware(const PolicyConfig& c) { return std::make_unique<WorkloadAware>(c); }
std::unique_ptr<Policy> make_work_stealing(const PolicyConfig& c) { return std::make_unique<WorkStealing>(c); }

namespace {
// Replay ------------------------------------------------------------------------------------------------
// Decides nothing: the Dispatcher sees replays_program() and issues the program as written (replay.cpp).
class Replay final : public PolicyBase {
 public:
  explicit Replay(const PolicyConfig& c) : PolicyBase(kReplayPolicy, c) {}
  [[nodiscard]] bool replays_program() const noexcept override { return true; }
  [[nodiscard]] bool is_static() const noexcept override { return true; }
  std::vector<StreamSlot> layout(std::pair<int, int>) override { return {}; }
  void begin(const HostView&) override {}
  void on_ready(OpIndex) override {}
  std::optional<Choice> choose(const HostView&) override { return std::nullopt; }
};
}  // namespace

std::unique_ptr<Policy> make_replay(const PolicyConfig& c) { return std::make_unique<Replay>(c); }

}  // namespace streamlab::policies::detail
