#pragma once
/// \file event_queue.hpp
/// The future-event list of the discrete-event engine: a binary min-heap keyed by (time, seq). `seq` grows
/// by one per push, so events due at the same nanosecond pop in the order they were scheduled (stable
/// tie-breaking): a run is a pure function of its inputs. Entries are 24 bytes with a two-word payload
/// whose meaning belongs to the owner (GpuModel); no std::function, no allocation per event once the
/// vector has grown.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "streamlab/model/op.hpp"

namespace streamlab::sim {

/// One scheduled happening. `kind` and the payload words are interpreted by the owner.
struct SimEvent {
  model::Nanos time = 0;
  std::uint64_t key = 0;  ///< (seq << 8) | kind: seq orders equal times, kind rides along for free
  std::uint32_t a = 0;
  std::uint32_t b = 0;

  [[nodiscard]] std::uint8_t kind() const noexcept { return static_cast<std::uint8_t>(key & 0xffu); }
  [[nodiscard]] std::uint64_t seq() const noexcept { return key >> 8; }
};

/// Min-heap of SimEvent by (time, seq). Not thread-safe; one per simulator instance (no global engine).
class EventQueue {
 public:
  [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }
  /// Seqs handed out since construction, by push() and take_seqs() (also the next seq).
  [[nodiscard]] std::uint64_t pushed() const noexcept { return next_seq_; }
  /// Hands out the next n seqs without queuing anything: for events the owner merged into one already
  /// queued with the same time and the seq just before them (GpuModel's waves of blocks), so every later
  /// push orders after them exactly as if they had been queued.
  void take_seqs(std::uint64_t n) noexcept { next_seq_ += n; }
  [[nodiscard]] const SimEvent& top() const noexcept {
    assert(!heap_.empty());
    return heap_.front();
  }
  /// Calls f(event) for every queued event due at or before `time`, in no particular order. Subtrees of
  /// the heap whose root is later are skipped, so it costs about the number of such events.
  template <class F>
  void for_each_due_by(model::Nanos time, F&& f) const {
    visit_due_by(0, time, f);
  }
  void reserve(std::size_t n) { heap_.reserve(n); }
  void clear() noexcept { heap_.clear(); }

  void push(model::Nanos time, std::uint8_t kind, std::uint32_t a, std::uint32_t b) {
    SimEvent e{time, (next_seq_++ << 8) | kind, a, b};
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  }

  /// Removes and returns the earliest event.
  SimEvent pop() noexcept {
    assert(!heap_.empty());
    SimEvent result = heap_.front();
    SimEvent last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
    return result;
  }

 private:
  static bool before(const SimEvent& x, const SimEvent& y) noexcept {
    return x.time < y.time || (x.time == y.time && x.key < y.key);
  }
  template <class F>
  void visit_due_by(std::size_t i, model::Nanos time, F& f) const {
    if (i >= heap_.size() || heap_[i].time > time) return;  // heap order: everything below is later
    f(heap_[i]);
    visit_due_by(2 * i + 1, time, f);
    visit_due_by(2 * i + 2, time, f);
  }
  // Hole-moving sifts: one copy per level instead of a swap.
  void sift_up(std::size_t i, const SimEvent& e) noexcept {
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(std::size_t i, const SimEvent& e) noexcept {
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<SimEvent> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace streamlab::sim
