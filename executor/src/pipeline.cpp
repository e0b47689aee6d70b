#include "streamlab/executor/pipeline.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "streamlab/executor/barrier.hpp"
#include "streamlab/executor/error.hpp"

namespace streamlab::executor {

std::string_view to_string(BufferState s) noexcept {
  switch (s) {
    case BufferState::free: return "free";
    case BufferState::uploading: return "uploading";
    case BufferState::processing: return "processing";
    case BufferState::downloading: return "downloading";
  }
  return "?";
}

// ---- TripleBuffer -----------------------------------------------------------------------------------

TripleBuffer::TripleBuffer(std::size_t bytes_per_buffer, std::size_t count)
    : bytes_(bytes_per_buffer), states_(std::make_unique<std::atomic<BufferState>[]>(count)) {
  if (count == 0) throw std::invalid_argument("TripleBuffer: at least one buffer");
  buffers_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    buffers_.push_back(device_buffer(bytes_per_buffer, "triple buffer"));
    states_[i].store(BufferState::free, std::memory_order_relaxed);
  }
}

bool TripleBuffer::transition(std::size_t i, BufferState from, BufferState to) {
  if (i >= buffers_.size()) return false;
  BufferState expected = from;
  return states_[i].compare_exchange_strong(expected, to, std::memory_order_acq_rel);
}

std::optional<std::size_t> TripleBuffer::begin_upload() {
  const std::size_t n = buffers_.size();
  const std::size_t start = next_.load(std::memory_order_relaxed);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    if (transition(i, BufferState::free, BufferState::uploading)) {
      next_.store((i + 1) % n, std::memory_order_relaxed);
      return i;
    }
  }
  return std::nullopt;
}

bool TripleBuffer::begin_processing(std::size_t i) { return transition(i, BufferState::uploading, BufferState::processing); }
bool TripleBuffer::begin_download(std::size_t i) { return transition(i, BufferState::processing, BufferState::downloading); }
bool TripleBuffer::finish(std::size_t i) { return transition(i, BufferState::downloading, BufferState::free); }

std::vector<BufferState> TripleBuffer::states() const {
  std::vector<BufferState> v;
  for (std::size_t i = 0; i < buffers_.size(); ++i) v.push_back(state(i));
  return v;
}

// ---- AsyncCoordinator -------------------------------------------------------------------------------

namespace {
int high_priority() { return stream_priority_range().second; }
}  // namespace

AsyncCoordinator::AsyncCoordinator(EventPool& pool)
    : pool_(pool),
      upload_(StreamFlags::non_blocking, 0),
      compute_(StreamFlags::non_blocking, high_priority()),
      download_(StreamFlags::non_blocking, 0) {
  origin_.record(compute_, "async coordinator");
}

AsyncCoordinator::~AsyncCoordinator() {
  // Events go back to the pool only once their work is done (a pooled event may be re-recorded).
  for (stream_ref s : {stream_ref{upload_}, stream_ref{compute_}, stream_ref{download_}}) {
    STREAMLAB_CUDA_LOG(cudaStreamSynchronize(s.get()));
  }
}

OpTicket AsyncCoordinator::begin(PipelineOpKind kind, std::string name, stream_ref s, std::span<const OpTicket> deps) {
  for (OpTicket d : deps) {
    if (d == 0 || d >= next_) {
      throw std::invalid_argument("async coordinator: '" + name + "' depends on op " + std::to_string(d) +
                                  ", which was never queued");
    }
  }
  for (OpTicket d : deps) {
    auto it = ops_.find(d);
    if (it == ops_.end() || it->second.complete || it->second.stream == s.get()) continue;  // done or stream-ordered
    s.wait(it->second.end.ref(), name);
  }
  const OpTicket id = next_++;
  Op op{kind, std::move(name), s.get(), pool_.acquire(EventTiming::timed), pool_.acquire(EventTiming::timed), false};
  op.start.ref().record(s, op.name);
  auto [it, inserted] = ops_.emplace(id, std::move(op));
  (void)inserted;
  pending_.push_back(id);
  return id;
}

OpTicket AsyncCoordinator::queue_upload(void* device_dst, const void* host_src, std::size_t bytes,
                                        std::span<const OpTicket> deps) {
  const OpTicket id = begin(PipelineOpKind::upload, "upload #" + std::to_string(next_), upload_, deps);
  Op& op = ops_.at(id);
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, upload_.get()), op.name);
  op.end.ref().record(upload_, op.name);
  return id;
}

OpTicket AsyncCoordinator::queue_compute(std::string name, const std::function<void(cudaStream_t)>& launch,
                                         std::span<const OpTicket> deps) {
  const OpTicket id = begin(PipelineOpKind::compute, std::move(name), compute_, deps);
  Op& op = ops_.at(id);
  launch(compute_.get());
  STREAMLAB_CUDA_CHECK_OP(cudaGetLastError(), op.name);
  op.end.ref().record(compute_, op.name);
  return id;
}

OpTicket AsyncCoordinator::queue_download(void* host_dst, const void* device_src, std::size_t bytes,
                                          std::span<const OpTicket> deps) {
  const OpTicket id = begin(PipelineOpKind::download, "download #" + std::to_string(next_), download_, deps);
  Op& op = ops_.at(id);
  STREAMLAB_CUDA_CHECK_OP(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, download_.get()), op.name);
  op.end.ref().record(download_, op.name);
  return id;
}

void AsyncCoordinator::retire(OpTicket id, Op& op, std::vector<CompletedPipelineOp>* out) {
  op.complete = true;
  const auto start = elapsed(origin_, op.start.ref(), op.name).count();
  const auto end = elapsed(origin_, op.end.ref(), op.name).count();
  retired_times_[id] = {start, end};
  if (out != nullptr) out->push_back({id, op.kind, op.name, std::chrono::nanoseconds(end - start)});
  op.start.release();
  op.end.release();
}

std::vector<CompletedPipelineOp> AsyncCoordinator::poll() {
  std::vector<CompletedPipelineOp> out;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Op& op = ops_.at(*it);
    if (op.end.ref().ready(op.name)) {
      retire(*it, op, &out);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

bool AsyncCoordinator::done(OpTicket id) const {
  auto it = ops_.find(id);
  return it != ops_.end() && it->second.complete;
}

void AsyncCoordinator::wait(OpTicket id, std::chrono::nanoseconds timeout) {
  auto it = ops_.find(id);
  if (it == ops_.end()) throw std::invalid_argument("async coordinator: op " + std::to_string(id) + " was never queued");
  Op& op = it->second;
  if (op.complete) return;
  if (!wait_until_ready(op.end.ref(), timeout, op.name)) {
    throw TimeoutError(op.name, timeout,
                       "timeout: async coordinator op '" + op.name + "' did not complete within " +
                           std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(timeout).count()) + " us");
  }
  retire(id, op, nullptr);
  pending_.erase(std::find(pending_.begin(), pending_.end(), id));
}

void AsyncCoordinator::synchronize_all(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pending_.empty()) wait(pending_.front(), std::max(deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
}

std::chrono::nanoseconds AsyncCoordinator::span_between(OpTicket first, OpTicket last) {
  auto a = retired_times_.find(first), b = retired_times_.find(last);
  if (a == retired_times_.end() || b == retired_times_.end()) {
    throw std::logic_error("async coordinator: span_between needs two completed ops");
  }
  return std::chrono::nanoseconds(b->second.second - a->second.first);
}

// ---- PipelineStageManager ---------------------------------------------------------------------------

PipelineStageManager::PipelineStageManager(AsyncCoordinator& coordinator, TripleBuffer& buffers, const void* host_in,
                                           void* host_out)
    : coord_(coordinator), buffers_(buffers), host_in_(host_in), host_out_(host_out) {}

std::size_t PipelineStageManager::add_stage(PipelineStage stage) {
  stages_.push_back(std::move(stage));
  order_.push_back(stages_.size() - 1);
  return stages_.size() - 1;
}

void PipelineStageManager::set_order(std::vector<std::size_t> order) {
  for (std::size_t i : order) {
    if (i >= stages_.size()) throw std::invalid_argument("pipeline: stage index " + std::to_string(i) + " out of range");
  }
  order_ = std::move(order);
}

void PipelineStageManager::retire_completed() {
  for (const auto& c : coord_.poll()) {
    if (c.kind == PipelineOpKind::compute) compute_time_[c.id] = c.device_time.count();
  }
  while (!in_flight_.empty() && coord_.done(in_flight_.front().download)) {
    const InFlight& f = in_flight_.front();
    for (OpTicket c : f.computes) {
      compute_busy_ns_ += compute_time_[c];
      compute_time_.erase(c);
    }
    buffers_.finish(f.buffer);
    ++iterations_;
    in_flight_.pop_front();
  }
}

void PipelineStageManager::execute_iteration(std::chrono::nanoseconds timeout) {
  retire_completed();
  std::optional<std::size_t> b = buffers_.begin_upload();
  if (!b) {
    // Every buffer is busy: wait for the oldest iteration's download.
    coord_.wait(in_flight_.front().download, timeout);
    retire_completed();
    b = buffers_.begin_upload();
    if (!b) throw std::logic_error("pipeline: no free buffer after the oldest iteration completed");
  }
  InFlight f{};
  f.buffer = *b;
  void* data = buffers_.device(*b);
  // Iteration k's upload reuses a buffer whose previous download already completed (begin_upload).
  f.upload = coord_.queue_upload(data, host_in_, buffers_.bytes());
  if (!first_upload_) first_upload_ = f.upload;
  buffers_.begin_processing(*b);
  OpTicket prev = f.upload;
  for (std::size_t idx : order_) {
    const PipelineStage& st = stages_[idx];
    const std::size_t buf = *b;
    const OpTicket deps[] = {prev};
    prev = coord_.queue_compute(st.name, [&](cudaStream_t s) { st.launch(s, buf, data); }, deps);
    f.computes.push_back(prev);
  }
  f.last_compute = prev;
  buffers_.begin_download(*b);
  const OpTicket deps[] = {prev};
  f.download = coord_.queue_download(host_out_, data, buffers_.bytes(), deps);
  last_download_ = f.download;
  in_flight_.push_back(std::move(f));
}

void PipelineStageManager::finish(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!in_flight_.empty()) {
    coord_.wait(in_flight_.front().download,
                std::max(deadline - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
    retire_completed();
  }
  if (!first_upload_ || iterations_ == 0) return;
  const double span_ns = static_cast<double>(coord_.span_between(*first_upload_, last_download_).count());
  stats_.iterations = iterations_;
  stats_.avg_iteration_ms = span_ns / 1e6 / static_cast<double>(iterations_);
  stats_.throughput = span_ns > 0 ? static_cast<double>(iterations_) / (span_ns / 1e9) : 0;
  stats_.gpu_utilization = span_ns > 0 ? std::min(1.0, static_cast<double>(compute_busy_ns_) / span_ns) : 0;
}

void PipelineStageManager::reset_stats() {
  stats_ = PipelineStats{};
  first_upload_.reset();
  iterations_ = 0;
  compute_busy_ns_ = 0;
}

}  // namespace streamlab::executor
