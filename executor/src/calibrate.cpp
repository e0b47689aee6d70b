// streamlab calibrate: every DeviceProfile field measured on the device at hand (see calibrate.hpp).
#include "streamlab/executor/calibrate.hpp"
#include "streamlab/executor/clock_link.hpp"
#include "mapped_host.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "streamlab/executor/buffer.hpp"
#include "streamlab/executor/device_info.hpp"
#include "streamlab/executor/error.hpp"
#include "streamlab/executor/event.hpp"
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/stream.hpp"
#include "streamlab/executor/tracer.hpp"
#include "streamlab/model/copy_arbitration.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::executor {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  const double hi = *mid;
  const double lo = *std::max_element(v.begin(), mid);
  return (lo + hi) / 2;
}

model::Param param_from_repetitions(std::vector<double> samples, const std::string& method) {
  if (samples.empty()) throw std::invalid_argument("param_from_repetitions: no samples");
  const std::size_t n = samples.size();
  const double med = median(samples);
  std::vector<double> dev;
  dev.reserve(n);
  for (double x : samples) dev.push_back(std::abs(x - med));
  // Standard error of a median of normal samples, sigma estimated robustly from the median absolute deviation.
  const double se = 1.2533 * 1.4826 * median(std::move(dev)) / std::sqrt(static_cast<double>(n));
  const bool told_apart = med > 0 && med > 2 * se;
  const double value = told_apart ? med : 0.0;
  char figures[256];
  std::snprintf(figures, sizeof figures, "; median of %zu repetitions %.1f ns, standard error %.1f ns (95%% interval %.1f to %.1f ns)",
                n, med, se, med - 1.96 * se, med + 1.96 * se);
  model::Param out{value, method + figures +
                              (told_apart ? std::string()
                                          : std::string(med > 0 ? "; within two standard errors of 0" : "; not above 0") +
                                                ", so not told apart from 0: value 0")};
  out.spread = value > 0 ? 2 * 1.96 * se / value : 0.0;
  return out;
}

LatencyBandwidthFit fit_latency_bandwidth(std::span<const double> bytes, std::span<const double> ns) {
  LatencyBandwidthFit fit;
  const auto n = static_cast<Eigen::Index>(std::min(bytes.size(), ns.size()));
  fit.points = static_cast<std::size_t>(n);
  if (n < 2) return fit;
  // Weighted by 1/t: minimizes relative error, so a 4 KiB copy (latency-bound) counts as much as a
  // 256 MiB one (bandwidth-bound).
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = 1.0 / ns[static_cast<std::size_t>(i)];
    a(i, 0) = w;
    a(i, 1) = bytes[static_cast<std::size_t>(i)] * w;
    y(i) = 1.0;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(y);
  fit.latency_ns = x(0);
  fit.gbps = x(1) > 0 ? 1.0 / x(1) : 0.0;
  double sq = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = ns[static_cast<std::size_t>(i)];
    const double f = x(0) + x(1) * bytes[static_cast<std::size_t>(i)];
    sq += ((f - t) / t) * ((f - t) / t);
  }
  fit.rms_relative_residual = std::sqrt(sq / static_cast<double>(n));
  return fit;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBatch = 64;
constexpr int kTracedOps = 256;  ///< launches per batch of the traced launch cost
constexpr const char* kHostProbeFormat = "streamlab-host-probe-3";
// A sampling pass of the host-call costs (Calibrator::sample_host_speed): short, so that many of them spread
// over the host's spells; the pause lets the samples span the sampling time rather than fill it.
constexpr int kSampleBatches = 9;
constexpr int kSampleWarmup = 2;
constexpr std::chrono::milliseconds kSamplePause{100};
// The launch-contention costs, read per repetition and pooled over every round and sampling pass.
constexpr std::string_view kBusyQueueParam = "kernel_launch_per_busy_queue_ns";
constexpr std::string_view kQueueSwitchParam = "kernel_launch_queue_switch_ns";
bool is_contention_param(std::string_view name) { return name == kBusyQueueParam || name == kQueueSwitchParam; }
// Measured once in every host probe's process too: on the H100 (2026-11-24, run 64) the device-side gaps sat
// 7-26% apart in every round of one calibrate against the other (they move from process to process, not
// within one), and the blocking synchronize's wake-up moved with the host's spells.
// So does the traced launch overhead: the traced cost minus the untraced one, each read at another time,
// read 0 to 1529 ns over one calibrate's rounds (run 68); a probe reads both within a few seconds.
// And the kernel start latency and the completion seen by a query: on the H100 (2026-11-25, runs 92 and 101)
// their rounds read 1385-2719 ns within one calibrate, and the medians of 9 rounds of two back-to-back
// calibrates stood 5.3% and 8.9% apart. The spread is the machine's, not the clock tie's: the offsets
// from the best round trip's midpoint and from each direction's fastest leg agreed within one 256 ns step
// in every round of run 101 and gave the same spread, so more samples spread over the whole calibrate are
// what narrows the value.
constexpr std::string_view kTracedOverheadParam = "traced_launch_overhead_ns";
constexpr std::array<std::string_view, 8> kPerProcessParams{"same_stream_gap_ns", "event_wait_latency_ns",
                                                            "same_stream_gap_per_busy_queue_ns",
                                                            "host_func_roundtrip_ns", "sync_wakeup_ns",
                                                            kTracedOverheadParam, "kernel_start_latency_ns",
                                                            "completion_seen_ns"};
bool is_per_process_param(std::string_view name) {
  return std::find(kPerProcessParams.begin(), kPerProcessParams.end(), name) != kPerProcessParams.end();
}
model::Param& field_named(model::DeviceProfile& p, std::string_view name) {
  for (const model::ParamField& f : model::device_profile_fields())
    if (f.name == name) return p.*(f.member);
  throw std::logic_error("no profile field " + std::string(name));
}

double ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

/// The device's %globaltimer on the host's steady clock over a stretch of measurements: the clocks are
/// correlated before and after it (Calibrator::begin_clock_span / end_clock_span), and the offset is
/// interpolated by host time in between, since the GPU timer and the host clock need not tick at exactly
/// the same rate.
struct ClockSpan {
  std::int64_t host_first = 0, host_last = 0;
  std::int64_t offset0 = 0, offset1 = 0;  ///< device ns - host ns, before and after
  double uncertainty = 0;                  ///< the larger of the two correlations' (ns)
  [[nodiscard]] double length() const { return static_cast<double>(host_last - host_first); }
  /// `device_ns` on the host clock, with the offset of host time `host_at`.
  [[nodiscard]] double in_host(double device_ns, std::int64_t host_at) const {
    const double f = length() > 0 ? static_cast<double>(host_at - host_first) / length() : 0.0;
    return device_ns - (static_cast<double>(offset0) + f * static_cast<double>(offset1 - offset0));
  }
  [[nodiscard]] double drift_ppm() const {
    return length() > 0 ? 1e6 * static_cast<double>(offset1 - offset0) / length() : 0.0;
  }
};

/// Slope of y over x by least squares (0 with fewer than two distinct x).
double least_squares_slope(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return 0;
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

// Mean of the middle half (the samples between the quartiles): as robust to outliers as a median, but
// it resolves steps finer than the clock's own (these gaps are read on a %globaltimer that moves in 32 ns
// steps or coarser, and a median of quantized samples jumps a whole step between runs).
double middle_mean(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t lo = v.size() / 4, hi = v.size() - v.size() / 4;
  double sum = 0;
  for (std::size_t i = lo; i < hi; ++i) sum += v[i];
  return sum / static_cast<double>(hi - lo);
}

std::string fmt(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// The hardware queues (connections) this process's streams are spread over: CUDA_DEVICE_MAX_CONNECTIONS,
/// 8 when unset (the driver's default) or not a number in [1, 32].
int process_connections() {
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (env == nullptr) return 8;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  return end != env && *end == '\0' && v >= 1 && v <= 32 ? static_cast<int>(v) : 8;
}

/// Other streams the launch-contention measurements use beside the measured one, each on a hardware queue
/// of its own: fewer than this process's connections, at most 7 (a probe has no measured profile).
int contention_queues() { return std::max(0, std::min(process_connections(), 8) - 1); }

std::string busy_queue_method(int most) {
  return "least-squares slope over k = 0.." + std::to_string(most) + " of the per-launch cost of a batch of " +
         std::to_string(kBatch) + " spin-kernel launches, 0 ns, into one non-blocking stream (host steady_clock, each "
         "launch timed, launches over 4x the batch's median left out as interruptions) while k other streams, each "
         "on a hardware queue of its own, run a 2 ms 1-block kernel; every repetition reads each k once, side by side";
}

std::string queue_switch_method(int n) {
  return "per-launch cost of a batch of " + std::to_string(kBatch) + " spin-kernel launches (0 ns) rotating over " +
         std::to_string(n) + " non-blocking streams, each on a hardware queue of its own and each first given a 2 ms "
         "1-block kernel, minus that of the same batch into one such stream, run side by side (host steady_clock, each "
         "launch timed, launches over 4x the batch's median left out as interruptions)";
}

/// The extra host costs of a fresh process's first launches (ns), from one pass over never-used streams.
struct FirstUse {
  double stream_ns = 0;  ///< a launch into a stream that never had work, on a queue that had
  /// more when the stream's hardware queue had no work yet either (none at fewer than 3 connections)
  std::optional<double> queue_ns;
  double first_call_ns = 0;  ///< more for the process's first launch after its set-up's synchronize
  int connections = 8;
};

/// `measure(k)` for k = 0..most; the least-squares slope over k, and the readings as "0: v0, 1: v1, ...".
template <class Measure>
std::pair<double, std::string> slope_over_queues(int most, Measure measure) {
  std::vector<double> ks, values;
  std::string line;
  for (int k = 0; k <= most; ++k) {
    const double v = measure(k);
    ks.push_back(k);
    values.push_back(v);
    line += (line.empty() ? "" : ", ") + std::to_string(k) + ": " + fmt(v, 0);
  }
  return {least_squares_slope(ks, values), line};
}

using detail::MappedHost;

void check(cudaError_t e, const char* what) { STREAMLAB_CUDA_CHECK_OP(e, what); }

/// Where each block of one launch ran (device records copied back).
std::vector<kernels::BlockRecord> block_records(buffer& rec, std::size_t n) {
  std::vector<kernels::BlockRecord> h(n);
  check(cudaMemcpy(h.data(), rec.data(), n * sizeof(kernels::BlockRecord), cudaMemcpyDeviceToHost), "calibrate");
  return h;
}

/// Appends each block's same-SM gap: its start minus the latest end, on its SM, of the blocks that ended
/// before it started (the slot it took). With several resident blocks per SM, neighbours in start order may
/// overlap, hence the scan over the SM's earlier blocks.
void append_same_sm_gaps(std::vector<kernels::BlockRecord> h, std::vector<double>& gaps) {
  std::sort(h.begin(), h.end(), [](const auto& x, const auto& y) {
    return x.sm != y.sm ? x.sm < y.sm : x.start_ns < y.start_ns;
  });
  std::size_t first = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i].sm != h[first].sm) first = i;
    std::uint64_t freed = 0;
    for (std::size_t j = first; j < i; ++j)
      if (h[j].end_ns <= h[i].start_ns) freed = std::max(freed, h[j].end_ns);
    if (freed != 0) gaps.push_back(static_cast<double>(h[i].start_ns - freed));
  }
}

/// Median same-SM gap between a block's end and the next block's start, in 8 waves of `per_sm` blocks per
/// SM spinning 20 us from their own start (`shared` bytes each: enough shared memory forces one per SM).
double replacement_gap(stream& a, int sms, unsigned threads, unsigned per_sm, unsigned shared, int runs,
                       std::size_t& count) {
  const std::uint32_t blocks = static_cast<std::uint32_t>(sms) * per_sm * 8;
  buffer rec = device_buffer(blocks * sizeof(kernels::BlockRecord), "calibrate (block dispatch)");
  std::vector<double> gaps;
  for (int r = -1; r < runs; ++r) {
    check(kernels::launch_spin(dim3(blocks), dim3(threads), shared, a.get(), 20'000, rec.as<kernels::BlockRecord>()),
          "calibrate (block dispatch)");
    a.sync("calibrate (block dispatch)");
    if (r < 0) continue;
    std::vector<kernels::BlockRecord> h = block_records(rec, blocks);
    append_same_sm_gaps(std::move(h), gaps);
  }
  count = gaps.size();
  return median(std::move(gaps));
}

/// Per-wave block replacement cost as a whole kernel shows it: in a grid of `waves` waves of `per_sm`
/// blocks per SM spinning `block_ns` from their own start, (span - first-wave start spread - waves x
/// block_ns) / (waves - 1), span = last block end - first block start; median over runs. This is the gap
/// the simulator's kernel-level arithmetic needs (its kernel ends at first-wave spread + waves x block +
/// (waves - 1) x gap); it exceeds the median same-SM gap when gaps vary, because the kernel ends with its
/// slowest slot. `median_gap` gets the median same-SM gap of the same runs, for the record.
double wave_gap(stream& a, int sms, unsigned threads, unsigned per_sm, std::uint64_t block_ns, std::uint32_t waves,
                int runs, double& median_gap) {
  const std::uint32_t wave = static_cast<std::uint32_t>(sms) * per_sm;
  const std::uint32_t blocks = wave * waves;
  buffer rec = device_buffer(blocks * sizeof(kernels::BlockRecord), "calibrate (wave gap)");
  std::vector<double> per_wave, gaps;
  for (int r = -1; r < runs; ++r) {
    check(kernels::launch_spin(dim3(blocks), dim3(threads), 0, a.get(), block_ns, rec.as<kernels::BlockRecord>()),
          "calibrate (wave gap)");
    a.sync("calibrate (wave gap)");
    if (r < 0) continue;
    std::vector<kernels::BlockRecord> h = block_records(rec, blocks);
    std::sort(h.begin(), h.end(), [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
    std::uint64_t last_end = 0;
    for (const auto& x : h) last_end = std::max(last_end, x.end_ns);
    const double span = static_cast<double>(last_end - h.front().start_ns);
    const double spread = static_cast<double>(h[wave - 1].start_ns - h.front().start_ns);
    per_wave.push_back((span - spread - static_cast<double>(waves) * static_cast<double>(block_ns)) / (waves - 1));
    append_same_sm_gaps(std::move(h), gaps);
  }
  median_gap = gaps.empty() ? 0 : median(std::move(gaps));
  return median(std::move(per_wave));
}

/// Work-distributor launch time per warp: in a one-wave grid of `per_sm` blocks per SM spinning 100 us,
/// (last start - first start) / (blocks - 1) / warps per block; median over runs. Blocks that start after
/// the first block ended (not one wave after all) are left out.
double ramp_slope(stream& a, int sms, unsigned threads, unsigned per_sm, int runs) {
  const std::uint32_t blocks = static_cast<std::uint32_t>(sms) * per_sm;
  buffer rec = device_buffer(blocks * sizeof(kernels::BlockRecord), "calibrate (warp launch)");
  std::vector<double> slopes;
  for (int r = -1; r < runs; ++r) {
    check(kernels::launch_spin(dim3(blocks), dim3(threads), 0, a.get(), 100'000, rec.as<kernels::BlockRecord>()),
          "calibrate (warp launch)");
    a.sync("calibrate (warp launch)");
    if (r < 0) continue;
    std::vector<kernels::BlockRecord> h = block_records(rec, blocks);
    std::uint64_t first_end = ~std::uint64_t{0};
    for (const auto& x : h) first_end = std::min(first_end, x.end_ns);
    std::vector<double> starts;
    for (const auto& x : h)
      if (x.start_ns < first_end) starts.push_back(static_cast<double>(x.start_ns));
    if (starts.size() < 8) continue;
    std::sort(starts.begin(), starts.end());
    // The simulator starts block k at k x warps x rate, so the rate that reproduces when the last block
    // starts is the whole spread over the ranks (a least-squares slope under-reads bursty starts).
    const double ranks = static_cast<double>(starts.size() - 1);
    slopes.push_back((starts.back() - starts.front()) / ranks / std::ceil(threads / 32.0));
  }
  return median(std::move(slopes));
}

/// What CUPTI's copy records cost (medians over `runs` batches each way, ns per copy): `engine_*` the GPU's
/// time per copy, `issue_*` the host's per copy call, with the tracer's copy records off and on.
struct CopyRecordCosts {
  double engine_off = 0, engine_on = 0, issue_off = 0, issue_on = 0;
};

/// With `tracer` attached: 64 pinned 64 KiB H2D copies back to back on `a`, queued behind a 1 ms spin kernel
/// (so the host is never what they wait for), timed by two events around them and on the host clock
/// around their calls; batches with copy records off and on alternate, each after one untimed copy (a
/// switch's own set-up is not charged to the batch). H100, 2026-11-24 (bench_tracer, validation runs
/// 85-86): about 1.3 us more per copy on the engine and 0.9-1.0 us more per call on the host with records.
CopyRecordCosts copy_record_costs(stream& a, CuptiTracer& tracer, int runs) {
  constexpr int kCopies = 64;
  constexpr std::size_t kBytes = 64u << 10;
  const char* op = "calibrate (traced copies)";
  buffer dev = device_buffer(kBytes, op);
  buffer pin = pinned_buffer(kBytes, op);
  timed_event e0, e1;
  std::array<std::vector<double>, 2> engine, issue;
  const bool was_on = tracer.copy_records();
  for (int r = -1; r < runs; ++r) {
    for (int on = 0; on < 2; ++on) {
      tracer.set_copy_records(on != 0);
      check(cudaMemcpyAsync(dev.data(), pin.data(), kBytes, cudaMemcpyHostToDevice, a.get()), op);
      check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 1'000'000), op);
      e0.record(a, op);
      const auto t0 = Clock::now();
      for (int k = 0; k < kCopies; ++k)
        check(cudaMemcpyAsync(dev.data(), pin.data(), kBytes, cudaMemcpyHostToDevice, a.get()), op);
      const auto t1 = Clock::now();
      e1.record(a, op);
      e1.sync(op);
      if (r < 0) continue;
      const auto k = static_cast<std::size_t>(on);
      engine[k].push_back(static_cast<double>((e1 - e0).count()) / kCopies);
      issue[k].push_back(static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / kCopies);
    }
  }
  (void)tracer.take();
  tracer.set_copy_records(was_on);
  return {median(engine[0]), median(engine[1]), median(issue[0]), median(issue[1])};
}

/// Which copy queue the H2D engine takes next (model/copy_arbitration.hpp), with `tracer` attached and its
/// copy records on: eight fresh streams, two rounds of one pinned H2D copy per stream issued breadth-first
/// (the first 256 MiB, so every other copy is queued before it ends; the rest 256 KiB), the order the engine
/// ran them from CUPTI's records (calls known by their correlation ids). Per run, the model that explains
/// the order (nullopt where none does, or where the records are incomplete).
std::vector<std::optional<model::CopyArbitration>> copy_arbitration_runs(CuptiTracer& tracer, int runs,
                                                                         const std::function<void(const std::string&)>& log) {
  constexpr std::uint32_t kStreams = 8;
  // The first copy must outlast the host's issue of the other 15 (with CUPTI attached a fresh stream's
  // first calls cost tens of microseconds): 256 MiB, about 5 ms (H100 run 97: behind a 32 MiB one, the
  // later copies of some runs were not queued yet when the engine chose).
  constexpr std::size_t kBig = 256u << 20, kSmall = 256u << 10;
  const char* op = "calibrate (copy queues)";
  buffer dev = device_buffer(kBig, op);
  buffer pin = pinned_buffer(kBig, op);
  std::vector<stream> streams;
  for (std::uint32_t k = 0; k < kStreams; ++k) streams.emplace_back(StreamFlags::non_blocking, 0);
  std::vector<std::uint32_t> issued;
  for (std::uint32_t round = 0; round < 2; ++round)
    for (std::uint32_t k = 0; k < kStreams; ++k) issued.push_back(k);
  const bool was_on = tracer.copy_records();
  tracer.set_copy_records(true);
  std::vector<std::optional<model::CopyArbitration>> out;
  for (int r = -1; r < runs; ++r) {
    check(cudaDeviceSynchronize(), op);
    (void)tracer.take();
    for (std::size_t i = 0; i < issued.size(); ++i)
      check(cudaMemcpyAsync(dev.data(), pin.data(), i == 0 ? kBig : kSmall, cudaMemcpyHostToDevice,
                            streams[issued[i]].get()),
            op);
    check(cudaDeviceSynchronize(), op);
    std::vector<ActivityRecord> recs;
    for (ActivityRecord& a : tracer.take())
      if (a.kind == ActivityRecord::Kind::memcpy) recs.push_back(std::move(a));
    if (r < 0) continue;
    if (recs.size() != issued.size()) {
      out.emplace_back();
      continue;
    }
    std::sort(recs.begin(), recs.end(), [](const ActivityRecord& x, const ActivityRecord& y) { return x.correlation < y.correlation; });
    std::vector<std::uint32_t> observed(issued.size());
    for (std::uint32_t i = 0; i < observed.size(); ++i) observed[i] = i;
    std::stable_sort(observed.begin(), observed.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return recs[x].start_ns < recs[y].start_ns; });
    out.push_back(model::classify_copy_arbitration(issued, observed));
    if (!out.back() && log) {
      std::string order;
      for (const std::uint32_t i : observed) order += (order.empty() ? "" : " ") + std::to_string(issued[i]);
      log("copy queues: an order no model explains (streams in service order): " + order);
    }
  }
  tracer.set_copy_records(was_on);
  return out;
}

/// With `tracer` on: chains of `kChain` kernels of `blocks` x `threads` spinning `block_ns` on one stream
/// (all issued, then one sync), after one warm-up chain. Per kernel after the first: `pad` gets CUPTI's
/// span minus the kernel's own span (first block start to last block end, %globaltimer), `gap` the
/// kernel's first block start minus the previous kernel's last block end. Each the mean of the middle half
/// over `runs` chains: both come in steps of the CUPTI timer's 128 ns tick, so a median jumps a whole tick
/// between calibrations (768 or 896 ns) where the mean of many steps lands between them.
void traced_chain(stream& a, CuptiTracer& tracer, unsigned blocks, unsigned threads, std::uint64_t block_ns,
                  int runs, double& pad, double& gap) {
  constexpr int kChain = 9;
  buffer rec = device_buffer(kChain * blocks * sizeof(kernels::BlockRecord), "calibrate (traced spans)");
  std::vector<double> pads, gaps;
  for (int r = -1; r < runs; ++r) {
    (void)tracer.take();
    for (int k = 0; k < kChain; ++k) {
      check(kernels::launch_spin(dim3(blocks), dim3(threads), 0, a.get(), block_ns,
                                 rec.as<kernels::BlockRecord>() + static_cast<std::size_t>(k) * blocks),
            "calibrate (traced spans)");
    }
    a.sync("calibrate (traced spans)");
    const std::vector<ActivityRecord> acts = tracer.take();
    if (r < 0) continue;
    const std::vector<kernels::BlockRecord> h = block_records(rec, kChain * static_cast<std::size_t>(blocks));
    std::vector<double> first(kChain, 0), last(kChain, 0), cupti(kChain, -1);
    for (int k = 0; k < kChain; ++k) {
      std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
      for (unsigned b = 0; b < blocks; ++b) {
        const kernels::BlockRecord& x = h[static_cast<std::size_t>(k) * blocks + b];
        lo = std::min(lo, x.start_ns);
        hi = std::max(hi, x.end_ns);
      }
      first[k] = static_cast<double>(lo);
      last[k] = static_cast<double>(hi);
    }
    // The chain's kernel records in call order (CUPTI correlation ids grow with every call), as
    // CudaBackend joins them.
    std::vector<const ActivityRecord*> ks;
    for (const ActivityRecord& x : acts)
      if (x.kind == ActivityRecord::Kind::kernel) ks.push_back(&x);
    std::sort(ks.begin(), ks.end(), [](const ActivityRecord* x, const ActivityRecord* y) { return x->correlation < y->correlation; });
    if (ks.size() == static_cast<std::size_t>(kChain))
      for (int k = 0; k < kChain; ++k)
        cupti[k] = static_cast<double>(ks[k]->end_ns) - static_cast<double>(ks[k]->start_ns);
    for (int k = 1; k < kChain; ++k) {
      gaps.push_back(first[k] - last[k - 1]);
      if (cupti[k] >= 0) pads.push_back(cupti[k] - (last[k] - first[k]));
    }
  }
  // With kernel records off (as CudaBackend traces) a kernel's span is its blocks' own: no pad.
  if (pads.empty() && tracer.kernel_records())
    throw std::runtime_error("calibrate (traced spans): CUPTI returned no kernel records for the probe chain");
  pad = pads.empty() ? 0.0 : middle_mean(std::move(pads));
  gap = middle_mean(std::move(gaps));
}

}  // namespace

namespace {

/// The value a quarter of the way up the sorted values (linear between neighbours).
double lower_quartile(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double at = 0.25 * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(at);
  const double w = at - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - w) + v[i + 1] * w : v[i];
}

}  // namespace

model::DeviceProfile combine_rounds(const std::vector<model::DeviceProfile>& rounds,
                                    const std::function<void(const std::string&)>& log) {
  if (rounds.empty()) throw std::invalid_argument("combine_rounds: no rounds");
  model::DeviceProfile p = rounds.front();
  if (rounds.size() == 1) return p;
  const std::size_t n = rounds.size();
  // Every parameter: the median round, but the host's wake-up from a blocking synchronize: the lower
  // quartile of the rounds. A virtual machine's host has slow spells of seconds (whole rounds) and is never
  // faster than undisturbed, so a low quantile reads the undisturbed host; the lowest round alone was once an
  // outlier 10% below the rest (H100, 2026-11-24, run 61), and the median moved 36% between two back-to-back
  // calibrates when a spell covered five of one's nine rounds (run 64), where the lower quartiles moved far
  // less. (The host API call costs are replaced by calibrate's samples of the host's speed:
  // Calibrator::combine_host_samples.)
  static const std::set<std::string_view> kLowQuartile{"sync_wakeup_ns"};
  for (const model::ParamField& f : model::device_profile_fields()) {
    std::vector<double> v;
    v.reserve(n);
    for (const auto& r : rounds) v.push_back((r.*(f.member)).value);
    const bool low = kLowQuartile.count(f.name) > 0;
    const double med = median(v);
    const double chosen = low ? lower_quartile(v) : med;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const double scale = std::max(std::abs(med), std::max(std::abs(*lo), std::abs(*hi)) * (med == 0 ? 1.0 : 0.0));
    const double spread = scale > 0 ? (*hi - *lo) / scale : 0.0;
    // Outliers: rounds more than 10% (of the median) and more than 3 median absolute deviations away.
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::abs(x - med));
    const double mad = median(dev);
    std::string values, outliers;
    for (std::size_t k = 0; k < n; ++k) {
      values += (k == 0 ? "" : ", ") + fmt(v[k], 3);
      if (scale > 0 && dev[k] > 0.10 * scale && dev[k] > 3 * mad)
        outliers += (outliers.empty() ? "" : ", ") + std::string("round ") + std::to_string(k + 1) + " (" + fmt(v[k], 3) + ")";
    }
    model::Param& out = p.*(f.member);
    out.value = chosen;
    out.spread = spread;
    out.source = (rounds.front().*(f.member)).source + "; value: " + (low ? "lower quartile" : "median") + " of " +
                 std::to_string(n) + " calibrate rounds (method and figures above: round 1), rounds read " + values +
                 (outliers.empty() ? std::string() : "; outliers: " + outliers);
    if (log && spread > 0.05)
      log("spread over rounds: " + std::string(f.name) + " " + fmt(100 * spread, 1) + "% (" + values + ")" +
          (outliers.empty() ? std::string() : "; outliers: " + outliers));
  }
  return p;
}

namespace {

class Calibrator {
 public:
  explicit Calibrator(const CalibrationOptions& o) : opt_(o) {
    STREAMLAB_CUDA_CHECK(cudaSetDevice(o.device));
    info_ = query_device(o.device);
    reps_ = o.quick ? 7 : std::max(5, o.repetitions);
    warm_ = std::max(1, o.warmup);
    int sched = 0;
    unsigned flags = 0;
    if (cudaGetDeviceFlags(&flags) == cudaSuccess) sched = static_cast<int>(flags & cudaDeviceScheduleMask);
    sched_ = sched == cudaDeviceScheduleSpin ? "spin" : sched == cudaDeviceScheduleYield ? "yield"
             : sched == cudaDeviceScheduleBlockingSync ? "blocking-sync" : "auto";
    prefix_ = "measured: streamlab calibrate on " + info_.name + ", driver " +
              (info_.driver.empty() ? std::string("unknown") : info_.driver) + ", CUDA " + info_.cuda_runtime + ", " +
              iso_date_utc().substr(0, 10) + ", ";
  }

  model::DeviceProfile run();
  /// probe_host: one fresh process's first use of never-used streams and host-call passes for `seconds`.
  HostProbe probe(double seconds);

 private:
  /// Loads the module and wakes the clocks before anything is timed, on the legacy NULL stream (as the
  /// plain programs and the executor do: no stream of this process has had work afterwards).
  void warm_up();
  /// The extra host costs of first launches, as a program meets them: `n` streams made now, a launch on
  /// the legacy NULL stream and a device synchronize, then one launch into each breadth-first and a second
  /// pass (host steady_clock, no synchronize between the passes, as a program issues them). See FirstUse.
  FirstUse first_use_of_new_streams(int n);
  void note(const std::string& s) const {
    if (opt_.log && !sampling_) opt_.log(round_ + s);
  }
  model::Param measured(double v, const std::string& method) const { return {v, prefix_ + method}; }

  template <class Setup, class Body, class Teardown>
  double host_cost(Setup setup, Body body, Teardown teardown) {
    return host_cost(setup, body, teardown, reps_, warm_);
  }
  template <class Setup, class Body, class Teardown>
  double host_cost(Setup setup, Body body, Teardown teardown, int batches, int warm) {
    std::vector<double> samples;
    for (int r = -warm; r < batches; ++r) {
      setup();
      const auto t0 = Clock::now();
      for (int k = 0; k < kBatch; ++k) body(k);
      const auto t1 = Clock::now();
      teardown();
      if (r >= 0) samples.push_back(ns_between(t0, t1) / kBatch);
    }
    return median(std::move(samples));
  }
  static std::string host_method(int batches, int warm, const std::string& what) {
    return "median over " + std::to_string(batches) + " batches of " + std::to_string(kBatch) + " " + what +
           " (host steady_clock, after " + std::to_string(warm) + " warm-up batches)";
  }

  void host_api_costs(model::DeviceProfile& p);
  /// Median per-launch host cost over `reps` batches of kBatch spin-kernel launches (0 ns) cycling over the
  /// first `targets` of `launch_into`, each batch after the first `busy` of `long_on` got a 2 ms 1-block
  /// kernel (then 50 us for them to start).
  /// One batch of kBatch 0 ns launches into `targets` of `launch_into` (round robin) while `busy` streams of
  /// `long_on` each run a 2 ms kernel: the mean per-launch host ns, each launch timed on its own and those
  /// over 4x the batch's median left out (the host was interrupted; counted in interrupted_launches_).
  double launch_batch_once(std::vector<stream>& long_on, int busy, std::vector<stream>& launch_into, int targets,
                           const char* what);
  /// Streams of the launch-contention measurements, made once per process: `others` (each on a hardware
  /// queue of its own) and `one` beside them for the busy-queue slope, `rot` for the queue switch.
  struct ContentionStreams {
    std::vector<stream> others, one, rot;
  };
  ContentionStreams& contention_streams();
  /// One repetition of the busy-queue slope: a batch into `one` at every k = 0..most busy `others`, side by
  /// side; appends the slope to contention_samples_ and returns the per-k costs.
  std::vector<double> busy_queue_repetition(const char* what);
  /// One repetition of the queue switch: batches into one stream and rotating over all of `rot`, each with
  /// every stream busy and idle, side by side; appends busy rotating minus busy one-stream to
  /// contention_samples_ and returns {one busy, rotating busy, one idle, rotating idle}.
  std::array<double, 4> queue_switch_repetition(const char* what);
  /// The host-call parameters (ParamField::host_call) of `p`: each the median over `batches` timed batches
  /// of kBatch calls after `warm` untimed ones. Appends the values to host_samples_.
  void host_call_costs(model::DeviceProfile& p, int batches, int warm);
  /// More samples of the host-call costs, one pass every kSamplePause, for `seconds` (at least one pass).
  void sample_host_speed(const model::DeviceProfile& p, double seconds);
  /// Each host-call parameter from every sample taken, and each host-set rate (pageable copies) from its
  /// rounds (model::param_from_samples).
  void combine_host_samples(model::DeviceProfile& p, const std::vector<model::DeviceProfile>& rounds) const;
  /// The launch-contention costs from every repetition of every round, sampling pass and probe
  /// (param_from_repetitions), the rounds' own medians in the source.
  void combine_contention_samples(model::DeviceProfile& p, int rounds) const;
  /// With probes: each of kPerProcessParams becomes the median (sync_wakeup_ns: the lower quartile) of this
  /// process's value (combine_rounds') and every probe's, spread (max - min) / value over them.
  void combine_per_process(model::DeviceProfile& p) const;
  /// stream_first_use_ns from this process's never-used streams and every probe's (median, spread).
  void first_use(model::DeviceProfile& p, const FirstUse& never_used) const;
  /// kernel_start_latency_ns and completion_seen_ns (host and device clocks correlated) and the
  /// %globaltimer resolution.
  void device_latencies(model::DeviceProfile& p);
  void completion_seen(model::DeviceProfile& p, stream& a);
  /// same_stream_gap_ns, host_func_roundtrip_ns, event_wait_latency_ns, same_stream_gap_per_busy_queue_ns
  /// (device clock): kPerProcessParams with sync_wakeup_ns.
  void stream_gaps(model::DeviceProfile& p);
  /// sync_wakeup_ns: a blocking synchronize's return after the kernel's last act (host clock).
  void sync_wakeup(model::DeviceProfile& p);
  void copies(model::DeviceProfile& p);
  /// h2d_/d2h_bidirectional_streaming_factor: chunks streamed both ways at once (device clock, events).
  void streaming_bidirectional(model::DeviceProfile& p, stream& s, stream& s2, buffer& dev_a, buffer& dev_b,
                               double h2d_latency_ns, double d2h_latency_ns);
  void occupancy_limits(model::DeviceProfile& p);
  /// shared_mem_alloc_unit_bytes and carveout_*_threads_bytes: which kernels can share an SM.
  void carveouts(model::DeviceProfile& p);
  void throughput(model::DeviceProfile& p);
  /// warp_launch_ns, block_dispatch_ns + block_dispatch_per_warp_ns, task_fetch_ns (device clock).
  void scheduling_details(model::DeviceProfile& p);
  /// traced_launch_overhead_ns (host clock, CUPTI on vs off); run last, CUPTI stays process-wide.
  /// Median per-launch host cost of reps_ batches of kTracedOps launches into `s`, each batch under a fresh
  /// CuptiTracer; -1 with `why` set when CUPTI is unavailable.
  double traced_launch_cost(stream& s, std::string& why);
  [[nodiscard]] std::string traced_launch_method() const;
  void traced_launch_overhead(model::DeviceProfile& p);
  /// Notes every round's copy arbitration runs (model/copy_arbitration.hpp: queues per engine and order).
  void copy_arbitration() const;
  std::vector<std::optional<model::CopyArbitration>> arbitration_runs_;
  /// offset such that device_globaltimer ~= host_steady_ns + offset; returns the uncertainty (ns).
  double correlate_clocks(std::int64_t& offset);
  ClockSpan begin_clock_span() {
    ClockSpan c;
    c.host_first = steady_now_ns();
    c.uncertainty = correlate_clocks(c.offset0);
    return c;
  }
  void end_clock_span(ClockSpan& c) {
    c.uncertainty = std::max(c.uncertainty, correlate_clocks(c.offset1));
    c.host_last = steady_now_ns();
  }

  CalibrationOptions opt_;
  DeviceInfo info_;
  int reps_ = 41, warm_ = 5;
  std::string sched_;
  std::string prefix_;
  double timer_resolution_ns_ = 0;
  std::string round_;  ///< "[round k/n] " for progress lines
  /// Every sample of each host-call parameter, by field name: one per round (reps_ batches each) and one
  /// per pass of sample_host_speed (kSampleBatches each).
  std::map<std::string_view, std::vector<double>> host_samples_;
  /// Every run of each run-to-run ratio (ParamField::run_to_run), over all rounds.
  std::map<std::string_view, std::vector<double>> run_samples_;
  int sampling_passes_ = 0;
  double sampling_seconds_ = 0;
  /// Of the samples in host_samples_, how many came from opt_.process_probes (added after the rounds).
  std::size_t probe_samples_ = 0;
  bool sampling_ = false;  ///< no progress line per sampling pass
  /// Every repetition of each launch-contention cost (kBusyQueueParam, kQueueSwitchParam): the rounds',
  /// the sampling passes' and, after the rounds, the probes'.
  std::map<std::string_view, std::vector<double>> contention_samples_;
  std::size_t contention_probe_samples_ = 0;  ///< of contention_samples_[kQueueSwitchParam], from the probes
  std::unique_ptr<ContentionStreams> contention_;
  std::size_t timed_launches_ = 0, interrupted_launches_ = 0;
};

void Calibrator::host_call_costs(model::DeviceProfile& p, int batches, int warm) {
  stream s(StreamFlags::non_blocking, 0);
  auto sync = [&] { s.sync("calibrate"); };
  auto nothing = [] {};

  // The kernel the executor and the plain programs launch for a kernel op (its parameters and static shared
  // memory included), not an empty one. Inside programs on the H100 (2026-11-24, run 14: 512 launches over
  // 1, 8 or 64 streams, 0 ns or 20 us kernels, fresh processes) a launch took 3.2-5.0 us, by process and
  // not by streams, order or kernel length: the same spread as this loop's from round to round.
  const double launch = host_cost(nothing, [&](int) {
    check(kernels::launch_spin(dim3(1), dim3(32), 0, s.get(), 0), "calibrate (launch)");
  }, sync, batches, warm);
  p.kernel_launch_ns = measured(launch, host_method(batches, warm, "launches of the executor's spin kernel (1x32 threads, 0 ns) on an idle non-blocking stream"));
  note("kernel launch issue: " + fmt(launch) + " ns");

  buffer dev = device_buffer(4096, "calibrate");
  buffer pin = pinned_buffer(4096, "calibrate");
  const double memcpy_issue = host_cost(
      nothing, [&](int) { check(cudaMemcpyAsync(dev.data(), pin.data(), 64, cudaMemcpyHostToDevice, s.get()), "calibrate (memcpy)"); }, sync, batches, warm);
  p.memcpy_async_issue_ns = measured(memcpy_issue, host_method(batches, warm, "64-byte pinned cudaMemcpyAsync H2D calls"));
  note("memcpyAsync issue: " + fmt(memcpy_issue) + " ns");

  std::vector<cudaEvent_t> evs(kBatch, nullptr);
  const double create = host_cost(
      nothing, [&](int k) { check(cudaEventCreateWithFlags(&evs[static_cast<std::size_t>(k)], cudaEventDisableTiming), "calibrate (event create)"); },
      [&] {
        for (auto& e : evs) check(cudaEventDestroy(e), "calibrate (event destroy)");
      }, batches, warm);
  p.event_create_ns = measured(create, host_method(batches, warm, "cudaEventCreateWithFlags(DisableTiming) calls"));
  // The reverse: each batch destroys events made (untimed) just before it, recorded once and completed, as a
  // program's events are when it destroys them.
  const double destroy = host_cost(
      [&] {
        for (auto& e : evs) {
          check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "calibrate (event create)");
          check(cudaEventRecord(e, s.get()), "calibrate (event record)");
        }
        sync();
      },
      [&](int k) { check(cudaEventDestroy(evs[static_cast<std::size_t>(k)]), "calibrate (event destroy)"); }, nothing,
      batches, warm);
  p.event_destroy_ns =
      measured(destroy, host_method(batches, warm, "cudaEventDestroy calls of completed DisableTiming events"));
  note("event create / destroy: " + fmt(create) + " / " + fmt(destroy) + " ns");

  timed_event te;
  event ue;
  const double rec_timed = host_cost(nothing, [&](int) { te.record(s, "calibrate"); }, sync, batches, warm);
  const double rec_untimed = host_cost(nothing, [&](int) { ue.record(s, "calibrate"); }, sync, batches, warm);
  p.event_record_timed_ns = measured(rec_timed, host_method(batches, warm, "cudaEventRecord calls of a timing event on an idle stream"));
  p.event_record_untimed_ns =
      measured(rec_untimed, host_method(batches, warm, "cudaEventRecord calls of a DisableTiming event on an idle stream"));
  note("event record timed/untimed: " + fmt(rec_timed) + " / " + fmt(rec_untimed) + " ns");

  sync();
  const double query = host_cost(nothing, [&](int) { (void)cudaEventQuery(ue.get()); }, nothing, batches, warm);
  p.event_query_ns = measured(query, host_method(batches, warm, "cudaEventQuery calls on a completed event"));
  const double squery = host_cost(nothing, [&](int) { (void)cudaStreamQuery(s.get()); }, nothing, batches, warm);
  p.stream_query_ns = measured(squery, host_method(batches, warm, "cudaStreamQuery calls on an idle stream"));
  stream other(StreamFlags::non_blocking, 0);
  const double wait = host_cost(nothing, [&](int) { check(cudaStreamWaitEvent(other.get(), ue.get(), 0), "calibrate (wait)"); },
                                [&] { other.sync("calibrate"); }, batches, warm);
  p.stream_wait_event_ns = measured(wait, host_method(batches, warm, "cudaStreamWaitEvent calls on a completed event"));
  note("event query / stream query / stream wait: " + fmt(query) + " / " + fmt(squery) + " / " + fmt(wait) + " ns");

  const double hf = host_cost(
      nothing, [&](int) { check(cudaLaunchHostFunc(s.get(), [](void*) {}, nullptr), "calibrate (host func)"); }, sync, batches, warm);
  p.host_func_issue_ns = measured(hf, host_method(batches, warm, "cudaLaunchHostFunc calls (empty function) on an idle stream"));
  note("host func issue: " + fmt(hf) + " ns");
  for (const model::ParamField& f : model::device_profile_fields())
    if (f.host_call) host_samples_[f.name].push_back((p.*(f.member)).value);
}

double Calibrator::launch_batch_once(std::vector<stream>& long_on, int busy, std::vector<stream>& launch_into,
                                     int targets, const char* what) {
  for (int i = 0; i < busy; ++i)
    check(kernels::launch_spin(dim3(1), dim3(32), 0, long_on[static_cast<std::size_t>(i)].get(), 2'000'000), what);
  if (busy > 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // the long kernels are running
  std::array<Clock::time_point, kBatch + 1> t;
  t[0] = Clock::now();
  for (int j = 0; j < kBatch; ++j) {
    check(kernels::launch_spin(dim3(1), dim3(32), 0, launch_into[static_cast<std::size_t>(j % targets)].get(), 0), what);
    t[static_cast<std::size_t>(j) + 1] = Clock::now();
  }
  check(cudaDeviceSynchronize(), what);
  // A launch the host was taken from (a VM's host: an interrupt or a preemption of tens of microseconds) is
  // no cost of the launch; one of them moved a batch's mean by up to a microsecond, more than the queue
  // switch itself.
  std::vector<double> each(kBatch);
  for (std::size_t j = 0; j < each.size(); ++j) each[j] = ns_between(t[j], t[j + 1]);
  const double limit = 4 * median(each);
  double sum = 0;
  std::size_t kept = 0;
  for (double x : each)
    if (x <= limit) sum += x, ++kept;
  timed_launches_ += each.size();
  interrupted_launches_ += each.size() - kept;
  return kept > 0 ? sum / static_cast<double>(kept) : limit / 4;
}

Calibrator::ContentionStreams& Calibrator::contention_streams() {
  if (!contention_) {
    contention_ = std::make_unique<ContentionStreams>();
    const int most = contention_queues();
    for (int k = 0; k < most; ++k) contention_->others.emplace_back(StreamFlags::non_blocking, 0);
    contention_->one.emplace_back(StreamFlags::non_blocking, 0);  // made after the others: a queue of its own
    for (int k = 0; k <= most; ++k) contention_->rot.emplace_back(StreamFlags::non_blocking, 0);
  }
  return *contention_;
}

std::vector<double> Calibrator::busy_queue_repetition(const char* what) {
  ContentionStreams& c = contention_streams();
  const int most = static_cast<int>(c.others.size());
  std::vector<double> ks, costs;
  for (int k = 0; k <= most; ++k) {
    ks.push_back(k);
    costs.push_back(launch_batch_once(c.others, k, c.one, 1, what));
  }
  contention_samples_[kBusyQueueParam].push_back(least_squares_slope(ks, costs));
  return costs;
}

std::array<double, 4> Calibrator::queue_switch_repetition(const char* what) {
  ContentionStreams& c = contention_streams();
  const int n = static_cast<int>(c.rot.size());
  auto batch = [&](bool busy, int streams) { return launch_batch_once(c.rot, busy ? streams : 0, c.rot, streams, what); };
  const double ob = batch(true, 1), rb = batch(true, n), oi = batch(false, 1), ri = batch(false, n);
  contention_samples_[kQueueSwitchParam].push_back(rb - ob);
  return {ob, rb, oi, ri};
}

void Calibrator::host_api_costs(model::DeviceProfile& p) {
  host_call_costs(p, reps_, warm_);
  stream s(StreamFlags::non_blocking, 0);

  // The first call after the host waited for the device: a launch on the legacy NULL stream and a device
  // synchronize (a program's set-up ends so), then four launches; extra = the first launch's time minus
  // the median of the other three. On the H100 (2026-11-24) a plain program's first call took 7-12 us
  // where its later launches took about 4.
  std::vector<double> after;
  for (int r = -warm_; r < reps_; ++r) {
    check(kernels::launch_spin(dim3(1), dim3(32), 0, cudaStreamLegacy, 0), "calibrate (first call after a sync)");
    check(cudaDeviceSynchronize(), "calibrate (first call after a sync)");
    std::array<std::int64_t, 5> t{};
    t[0] = steady_now_ns();
    for (std::size_t k = 1; k < t.size(); ++k) {
      check(kernels::launch_spin(dim3(1), dim3(32), 0, s.get(), 0), "calibrate (first call after a sync)");
      t[k] = steady_now_ns();
    }
    s.sync("calibrate (first call after a sync)");
    const double later = median({static_cast<double>(t[2] - t[1]), static_cast<double>(t[3] - t[2]),
                                 static_cast<double>(t[4] - t[3])});
    if (r >= 0) after.push_back(static_cast<double>(t[1] - t[0]) - later);
  }
  const double first_after = std::max(0.0, median(after));
  p.first_call_after_sync_ns = measured(
      first_after, "median over " + std::to_string(reps_) + " runs (" + std::to_string(warm_) + " warm-up runs): after a "
                   "launch on the legacy NULL stream and cudaDeviceSynchronize, the first of four spin-kernel launches "
                   "into a non-blocking stream minus the median of the other three (host steady_clock)");
  note("first call after a synchronize: " + fmt(first_after) + " ns extra");

  // Kernel launch cost with other hardware queues busy: k other streams (each on a queue of its own) run a
  // 1-block kernel long enough to outlast the batch, then a batch of launches into one more stream; slope of the
  // per-launch cost over k by least squares. On the H100 (2026-11-24) host-bound chains of short kernels
  // over 8 streams ran 13-20% longer under 8 connections than under 1 (the same calls; V1), and a plain
  // program's launches took 4.9 us with other streams' kernels running against 4.0 without.
  // Every repetition reads every k in turn and gives a slope of its own: the host's speed drifts between
  // batches (H100, 2026-11-24: one calibrate's rounds read 0-56 ns per queue when each k was a median over
  // consecutive batches), and reading the ks side by side cancels it. The value is the median of every
  // repetition of every round and sampling pass (param_from_repetitions): the medians of single rounds
  // read -42 to 47 ns per queue within one calibrate (run 61).
  const int reps = std::max(5, reps_ / 2);
  {
    const int most = contention_queues();
    std::vector<std::vector<double>> at_k(static_cast<std::size_t>(most) + 1);
    const std::size_t before = contention_samples_[kBusyQueueParam].size();
    for (int r = -warm_; r < reps; ++r) {
      const std::vector<double> costs = busy_queue_repetition("calibrate (launch with busy queues)");
      if (r < 0) {
        contention_samples_[kBusyQueueParam].pop_back();
        continue;
      }
      for (int k = 0; k <= most; ++k) at_k[static_cast<std::size_t>(k)].push_back(costs[static_cast<std::size_t>(k)]);
    }
    const std::vector<double>& all = contention_samples_[kBusyQueueParam];
    const double slope = median(std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(before), all.end()));
    std::string line;
    for (int k = 0; k <= most; ++k)
      line += (line.empty() ? "" : ", ") + std::to_string(k) + ": " + fmt(median(at_k[static_cast<std::size_t>(k)]), 0);
    p.kernel_launch_per_busy_queue_ns = measured(std::max(0.0, slope), busy_queue_method(most) + "; this round's median costs " + line + " ns");
    note("kernel launch with k other busy queues: " + line + " ns (slope " + fmt(slope, 0) + " ns per queue)");
  }

  // Kernel launches that change hardware queue while the queues have work: batches of launches (0 ns
  // kernels) into one stream or rotating over up to 8 streams (each on a queue of its own), with every
  // stream first given a 2 ms kernel (busy) or not (idle). The switch cost is busy rotating minus busy
  // into one stream. V1 on the H100 (2026-11-24): 8-stream breadth-first chains ran 13-20% longer under 8
  // connections than under 1, and a plain program's launches rotating over 8 streams with kernels in
  // flight took 4.9 us against 4.0 with none in flight. The four batches of a repetition run side by side
  // and every repetition of every round and sampling pass is pooled (param_from_repetitions): single
  // rounds' medians read 176-1008 ns within one calibrate (runs 61 and 64).
  {
    const int n = contention_queues() + 1;
    std::vector<double> diff, v_rot_busy, v_one_busy, v_rot_idle, v_one_idle;
    for (int r = -warm_; r < reps; ++r) {
      const auto [ob, rb, oi, ri] = queue_switch_repetition("calibrate (launch queue switch)");
      if (r < 0) {
        contention_samples_[kQueueSwitchParam].pop_back();
        continue;
      }
      diff.push_back(rb - ob);
      v_one_busy.push_back(ob), v_rot_busy.push_back(rb), v_one_idle.push_back(oi), v_rot_idle.push_back(ri);
    }
    const double one_busy = median(v_one_busy), rot_busy = median(v_rot_busy);
    const double one_idle = median(v_one_idle), rot_idle = median(v_rot_idle);
    p.kernel_launch_queue_switch_ns = measured(
        std::max(0.0, median(diff)), queue_switch_method(n) + "; this round's median costs " + fmt(rot_busy, 0) + " - " +
                                          fmt(one_busy, 0) + " ns; without the 2 ms kernels " + fmt(rot_idle, 0) + " - " +
                                          fmt(one_idle, 0) + " ns");
    note("launch queue switch: rotating " + fmt(rot_busy, 0) + " vs one stream " + fmt(one_busy, 0) + " ns with work in "
         "flight, " + fmt(rot_idle, 0) + " vs " + fmt(one_idle, 0) + " ns without");
  }
  sync_wakeup(p);
}

void Calibrator::sync_wakeup(model::DeviceProfile& p) {
  stream s(StreamFlags::non_blocking, 0);
  // Blocking-synchronize wake-up, as the simulator uses it (the device's work done -> the host thread
  // running again): cudaStreamSynchronize's return minus the kernel's end, which the kernel writes as its
  // last act (%globaltimer in device memory), on the host clock (clocks correlated before and after,
  // interpolated). A second host thread spinning on a mapped-memory flag the kernel sets right after
  // gives the older reference, the moment the host could first see the kernel done: on the H100
  // (2026-11-24, run 72) that flag-based figure read 2.4-3.3 us where a synchronize returned 2.9-3.6 us
  // after the kernel's end, and E8's synchronizes resumed 3.5-4.5 us after it.
  MappedHost flag(64);
  auto* f = flag.as<std::uint32_t>();
  buffer end_buf = device_buffer(sizeof(std::uint64_t), "calibrate (sync wake-up)");
  ClockSpan clocks = begin_clock_span();
  struct Sample {
    std::int64_t woke, seen;
    std::uint64_t end;
  };
  std::vector<Sample> samples;
  for (int r = -warm_; r < reps_; ++r) {
    flag.clear();
    std::atomic<std::int64_t> seen{0};
    std::atomic<bool> go{false};
    std::thread poller([&] {
      go.store(true, std::memory_order_release);
      while (reinterpret_cast<volatile std::uint32_t*>(f)[0] == 0) {
      }
      seen.store(steady_now_ns(), std::memory_order_release);
    });
    while (!go.load(std::memory_order_acquire)) {
    }
    check(kernels::launch_spin_then_signal(s.get(), 200'000, end_buf.as<std::uint64_t>(), f), "calibrate (sync wake-up)");
    s.sync("calibrate");
    const std::int64_t woke = steady_now_ns();
    poller.join();
    std::uint64_t end = 0;
    check(cudaMemcpy(&end, end_buf.data(), sizeof end, cudaMemcpyDeviceToHost), "calibrate (sync wake-up)");
    if (r >= 0) samples.push_back({woke, seen.load(std::memory_order_acquire), end});
  }
  // The same wake-up after waits of other lengths, by a stream and by a device synchronize (a diagnostic:
  // whether how long the host waited changes how soon it resumes; E8 waits 1 ms, a program's final
  // synchronize often only the last few microseconds of its work).
  constexpr std::array<std::uint64_t, 6> kWaitUs{2, 10, 50, 200, 1000, 5000};
  struct ByWait {
    std::int64_t woke;
    std::uint64_t end;
  };
  std::array<std::array<std::vector<ByWait>, 2>, kWaitUs.size()> by_wait;
  for (int r = 0; r < reps_; ++r) {
    for (std::size_t w = 0; w < kWaitUs.size(); ++w) {
      for (int device_wide = 0; device_wide < 2; ++device_wide) {
        flag.clear();
        check(kernels::launch_spin_then_signal(s.get(), kWaitUs[w] * 1000, end_buf.as<std::uint64_t>(), f),
              "calibrate (sync wake-up by wait)");
        if (device_wide != 0) check(cudaDeviceSynchronize(), "calibrate (sync wake-up by wait)");
        else s.sync("calibrate (sync wake-up by wait)");
        const std::int64_t woke = steady_now_ns();
        std::uint64_t end = 0;
        check(cudaMemcpy(&end, end_buf.data(), sizeof end, cudaMemcpyDeviceToHost), "calibrate (sync wake-up by wait)");
        by_wait[w][static_cast<std::size_t>(device_wide)].push_back({woke, end});
      }
    }
  }
  end_clock_span(clocks);
  std::string by_wait_text;
  for (std::size_t w = 0; w < kWaitUs.size(); ++w) {
    by_wait_text += (w == 0 ? "" : ", ") + std::to_string(kWaitUs[w]) + " us:";
    for (int device_wide = 0; device_wide < 2; ++device_wide) {
      std::vector<double> v;
      for (const ByWait& x : by_wait[w][static_cast<std::size_t>(device_wide)])
        v.push_back(static_cast<double>(x.woke) - clocks.in_host(static_cast<double>(x.end), x.woke));
      by_wait_text += (device_wide == 0 ? " " : "/") + fmt(median(std::move(v)), 0);
    }
  }
  note("sync wake-up after the kernel's end by the kernel's length (median ns, stream / device synchronize, " +
       std::to_string(reps_) + " runs each): " + by_wait_text);
  std::vector<double> wake, after_flag;
  for (const Sample& x : samples) {
    wake.push_back(static_cast<double>(x.woke) - clocks.in_host(static_cast<double>(x.end), x.woke));
    after_flag.push_back(static_cast<double>(x.woke - x.seen));
  }
  const double w = median(wake), wf = median(after_flag);
  p.sync_wakeup_ns = measured(
      std::max(0.0, w), "median over " + std::to_string(reps_) + " runs: cudaStreamSynchronize return minus the end of "
                        "the 200 us kernel it waited for (its last %globaltimer read, in device memory) on the host "
                        "clock, clocks correlated by mapped-memory pings before and after (+-" +
                            fmt(clocks.uncertainty, 0) + " ns); " + fmt(wf, 0) + " ns after a second host thread saw "
                        "the kernel's final mapped-memory flag (device schedule mode " + sched_ + ")");
  note("sync wake-up: " + fmt(w) + " ns after the kernel's end, " + fmt(wf) + " ns after its flag was seen (schedule " +
       sched_ + ")");
}

void Calibrator::sample_host_speed(const model::DeviceProfile& p, double seconds) {
  if (!(seconds > 0)) return;
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  sampling_ = true;
  model::DeviceProfile q = p;
  do {
    host_call_costs(q, kSampleBatches, kSampleWarmup);
    // The launch-contention costs are differences of host timings, far noisier for their size than a
    // call's own cost: each pass adds repetitions of them too, spread over the same spells of the host.
    busy_queue_repetition("calibrate (host speed: busy queues)");
    for (int k = 0; k < 2; ++k) queue_switch_repetition("calibrate (host speed: queue switch)");
    ++sampling_passes_;
    std::this_thread::sleep_for(kSamplePause);
  } while (Clock::now() < until);
  sampling_ = false;
  sampling_seconds_ = ns_between(start, Clock::now()) / 1e9;
  note("host speed: " + std::to_string(sampling_passes_) + " sampling passes over " + fmt(sampling_seconds_, 1) + " s");
}

void Calibrator::warm_up() {
  for (int i = 0; i < 200; ++i) check(kernels::launch_empty(dim3(1), dim3(32), cudaStreamLegacy), "calibrate (warm-up)");
  check(kernels::launch_spin(dim3(static_cast<unsigned>(info_.props.multiProcessorCount)), dim3(128), 0, cudaStreamLegacy,
                             50'000'000),
        "calibrate (warm-up)");
  check(kernels::launch_spin(dim3(1), dim3(32), 0, cudaStreamLegacy, 0), "calibrate (warm-up)");
  check(cudaDeviceSynchronize(), "calibrate (warm-up)");
}

FirstUse Calibrator::first_use_of_new_streams(int n) {
  std::vector<stream> ss;
  ss.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) ss.emplace_back(StreamFlags::non_blocking, 0);
  // As a program does it: its streams are made before its warm-up (a launch on the legacy NULL stream and a
  // device synchronize), then its first calls use them.
  check(kernels::launch_spin(dim3(1), dim3(32), 0, cudaStreamLegacy, 0), "calibrate (stream first use)");
  check(cudaDeviceSynchronize(), "calibrate (stream first use)");
  std::vector<std::int64_t> t;
  t.reserve(2 * static_cast<std::size_t>(n) + 1);
  for (int pass = 0; pass < 2; ++pass)
    for (auto& x : ss) {
      t.push_back(steady_now_ns());
      check(kernels::launch_spin(dim3(1), dim3(32), 0, x.get(), 0), "calibrate (stream first use)");
    }
  t.push_back(steady_now_ns());
  check(cudaDeviceSynchronize(), "calibrate (stream first use)");
  std::vector<double> first, again;
  for (int k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(k);
    first.push_back(static_cast<double>(t[i + 1] - t[i]));
    again.push_back(static_cast<double>(t[i + static_cast<std::size_t>(n) + 1] - t[i + static_cast<std::size_t>(n)]));
  }
  // The k-th stream made takes hardware queue (k + 1) % q: the legacy stream holds queue 0 (H100,
  // 2026-11-24: per-call times of plain programs over 64 streams showed first launches 2-3 us dearer for
  // exactly the first q - 1 streams at 8 and at 32 connections). Streams 1 .. q - 2 open a queue; from
  // stream q - 1 on, every queue is open; stream 0 also carries the process's first call.
  const int q = process_connections();
  const double base = median(again);
  std::vector<double> opening, plain;
  for (int k = 1; k < n; ++k) (k <= q - 2 ? opening : plain).push_back(first[static_cast<std::size_t>(k)]);
  FirstUse out;
  out.connections = q;
  out.stream_ns = (plain.empty() ? median(std::vector<double>(first.begin() + 1, first.end())) : median(std::move(plain))) - base;
  if (!opening.empty()) out.queue_ns = median(std::move(opening)) - base - out.stream_ns;
  out.first_call_ns = first.front() - base - out.stream_ns - (q >= 2 ? out.queue_ns.value_or(0.0) : 0.0);
  return out;
}

HostProbe Calibrator::probe(double seconds) {
  HostProbe out;
  // Never-used streams first: nothing before this in the process may have made a stream (warm_up uses the
  // legacy NULL stream only), then a second set after the first is destroyed.
  warm_up();
  const FirstUse fresh = first_use_of_new_streams(kBatch);
  out.stream_first_use_ns = fresh.stream_ns;
  out.queue_first_use_ns = fresh.queue_ns;
  out.program_first_call_ns = fresh.first_call_ns;
  out.connections = fresh.connections;
  out.stream_first_use_recycled_ns = first_use_of_new_streams(kBatch).stream_ns;
  note("stream first use: " + fmt(out.stream_first_use_ns) + " ns on never-used streams, " +
       fmt(out.stream_first_use_recycled_ns) + " ns on streams made after those were destroyed; queue first use " +
       (out.queue_first_use_ns ? fmt(*out.queue_first_use_ns) + " ns" : std::string("not measurable")) +
       "; the first call " + fmt(out.program_first_call_ns) + " ns");
  model::DeviceProfile gaps;
  stream_gaps(gaps);
  sync_wakeup(gaps);
  device_latencies(gaps);
  for (std::string_view name : kPerProcessParams)
    if (name != kTracedOverheadParam) out.per_process[std::string(name)] = field_named(gaps, name).value;
  model::DeviceProfile q;
  sample_host_speed(q, seconds);
  // Last: once attached, CUPTI stays in the process. Against this process's own untraced launch samples,
  // taken in the seconds before.
  {
    stream s(StreamFlags::non_blocking, 0);
    std::string why;
    const double traced = traced_launch_cost(s, why);
    const auto untraced = host_samples_.find("kernel_launch_ns");
    if (traced >= 0 && untraced != host_samples_.end() && !untraced->second.empty())
      out.per_process[std::string(kTracedOverheadParam)] = traced - median(untraced->second);
  }
  for (const auto& [name, v] : host_samples_) out.samples[std::string(name)] = v;
  for (const auto& [name, v] : contention_samples_) out.contention[std::string(name)] = v;
  out.passes = sampling_passes_;
  out.seconds = sampling_seconds_;
  return out;
}

void Calibrator::combine_host_samples(model::DeviceProfile& p, const std::vector<model::DeviceProfile>& rounds) const {
  for (const model::ParamField& f : model::device_profile_fields()) {
    if (f.host_rate) {  // the host's CPU copies pageable data: its rounds are its samples of the host's speed
      std::vector<double> v;
      for (const auto& r : rounds) v.push_back((r.*(f.member)).value);
      p.*(f.member) = model::param_from_samples(
          v, (rounds.front().*(f.member)).source + "; value: the median of " + std::to_string(v.size()) +
                 " calibrate rounds (method above: round 1), range: their 5th to 95th percentile (the host's CPU "
                 "copies pageable data, so this moves with its speed)");
      continue;
    }
    if (f.run_to_run) {  // the copy directions' sharing moves from run to run: every run of every round
      const auto runs = run_samples_.find(f.name);
      if (runs == run_samples_.end() || runs->second.empty()) continue;
      model::Param& out = p.*(f.member);
      // The streaming factors' runs fall into two groups that change with time (H100 runs 78, 81): a median
      // flips between the groups from calibrate to calibrate, the mean weighs them as they came.
      const bool mean = f.member == &model::DeviceProfile::h2d_bidirectional_streaming_factor ||
                        f.member == &model::DeviceProfile::d2h_bidirectional_streaming_factor;
      out = model::param_from_samples(
          runs->second, out.source.substr(0, out.source.find("; value:")) + "; value: the " +
                            (mean ? "mean" : "median") + " of all " + std::to_string(runs->second.size()) +
                            " runs of " + std::to_string(rounds.size()) +
                            " calibrate rounds (method above: round 1), range: their 5th to 95th percentile (it "
                            "moves from run to run)");
      if (mean) out.value = std::accumulate(runs->second.begin(), runs->second.end(), 0.0) / static_cast<double>(runs->second.size());
      continue;
    }
    if (!f.host_call) continue;
    const auto it = host_samples_.find(f.name);
    if (it == host_samples_.end() || it->second.empty()) continue;
    const std::size_t n = it->second.size();
    model::Param& out = p.*(f.member);
    const std::string method = out.source.substr(0, out.source.find("; value:"));
    const std::size_t passes = opt_.process_probes.empty() ? static_cast<std::size_t>(sampling_passes_) : probe_samples_;
    std::string where;
    if (opt_.process_probes.empty()) {
      where = std::to_string(passes) + " in a sampling pass of " + fmt(sampling_seconds_, 1) + " s";
    } else {
      double secs = 0;
      for (const HostProbe& x : opt_.process_probes) secs += x.seconds;
      where = std::to_string(passes) + " in short passes in " + std::to_string(opt_.process_probes.size()) +
              " fresh processes run one after another before this one (" + fmt(secs, 1) + " s in all)";
    }
    out = model::param_from_samples(
        it->second, method + "; value: the median of " + std::to_string(n) + " samples of the host's speed (" +
                        std::to_string(n - std::min(n, passes)) + " in the rounds at " + std::to_string(reps_) +
                        " batches each, " + where + ", at " + std::to_string(kSampleBatches) +
                        " batches each), range: their 5th to 95th percentile");
    if (opt_.log)
      opt_.log("host speed: " + std::string(f.name) + " " + fmt(out.value) + " ns, 5th-95th percentile " +
               fmt(out.range->low) + "-" + fmt(out.range->high) + " ns (" + fmt(100 * out.spread, 1) + "% of it) over " +
               std::to_string(n) + " samples");
  }
}

void Calibrator::combine_contention_samples(model::DeviceProfile& p, int rounds) const {
  const int most = contention_queues();
  const std::size_t passes = opt_.process_probes.empty() ? static_cast<std::size_t>(sampling_passes_) : 0;
  const std::string where =
      "; repetitions: " + std::to_string(std::max(5, reps_ / 2)) + " in each of " + std::to_string(rounds) +
      " calibrate rounds, " +
      (opt_.process_probes.empty()
           ? std::to_string(passes) + " sampling passes (1 slope and 2 switch repetitions each)"
           : "1 slope and 2 switch repetitions per pass in " + std::to_string(opt_.process_probes.size()) +
                 " fresh processes (" + std::to_string(contention_probe_samples_) + " switch repetitions)") +
      "; " + std::to_string(interrupted_launches_) + " of " + std::to_string(timed_launches_) +
      " timed launches left out as interruptions";
  const auto set = [&](model::Param& out, std::string_view name, const std::string& method) {
    const auto it = contention_samples_.find(name);
    if (it == contention_samples_.end() || it->second.empty()) return;
    // combine_rounds wrote each round's own median ("rounds read a, b, ..."): kept beside the pooled value.
    const std::size_t at = out.source.find("rounds read ");
    const std::string per_round =
        at == std::string::npos ? std::string() : "; single rounds' medians read " + out.source.substr(at + 12);
    out = param_from_repetitions(it->second, prefix_ + method + where);
    out.source += per_round;
    if (opt_.log)
      opt_.log(std::string(name) + ": " + fmt(out.value) + " ns from " + std::to_string(it->second.size()) + " repetitions");
  };
  set(p.kernel_launch_per_busy_queue_ns, kBusyQueueParam, busy_queue_method(most));
  set(p.kernel_launch_queue_switch_ns, kQueueSwitchParam, queue_switch_method(most + 1));
}

void Calibrator::combine_per_process(model::DeviceProfile& p) const {
  if (opt_.process_probes.empty()) return;
  for (std::string_view name : kPerProcessParams) {
    model::Param& out = field_named(p, name);
    std::vector<double> v{out.value};
    for (const HostProbe& x : opt_.process_probes) {
      const auto it = x.per_process.find(std::string(name));
      if (it != x.per_process.end()) v.push_back(it->second);
    }
    const bool low = name == "sync_wakeup_ns";  // as over rounds: a low quantile reads the undisturbed host
    const double value = std::max(0.0, low ? lower_quartile(v) : median(v));
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    std::string values;
    for (double x : v) values += (values.empty() ? "" : ", ") + fmt(x, 0);
    const std::size_t cut = out.source.find("; value:");
    const std::string method = out.source.substr(0, cut);
    const std::string rounds = cut == std::string::npos ? std::string() : out.source.substr(cut + 8);
    out.source = method + "; value: the " + (low ? "lower quartile" : "median") + " of " + std::to_string(v.size()) +
                 " processes, one measurement in each of " + std::to_string(opt_.process_probes.size()) +
                 " fresh probe processes and this one's value (" + rounds + "), read " + values;
    out.value = value;
    out.spread = value > 0 ? (*hi - *lo) / value : 0.0;
    if (opt_.log) opt_.log(std::string(name) + ": " + fmt(value) + " ns over " + std::to_string(v.size()) + " processes (" + values + ")");
  }
}

void Calibrator::first_use(model::DeviceProfile& p, const FirstUse& never_used) const {
  // This process's never-used streams count as one more fresh process: nothing before them made a stream.
  std::vector<FirstUse> all{never_used};
  std::vector<double> recycled;
  for (const HostProbe& x : opt_.process_probes) {
    all.push_back({x.stream_first_use_ns, x.queue_first_use_ns, x.program_first_call_ns, x.connections});
    recycled.push_back(x.stream_first_use_recycled_ns);
  }
  const std::string procs = std::to_string(all.size()) + " processes (this one and " +
                            std::to_string(opt_.process_probes.size()) + " probes)";
  const std::string method =
      std::to_string(kBatch) + " non-blocking streams made before any other stream of a fresh process, a launch on the "
      "legacy NULL stream and a device synchronize (a program's set-up), then one launch of the spin kernel into "
      "each breadth-first and a second pass (no synchronize between; host steady_clock); base: the median "
      "second-pass call. The k-th stream takes hardware queue (k + 1) % connections (the legacy stream holds "
      "queue 0), so streams 1 .. connections - 2 open a queue and stream 0 also carries the process's first call";
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  const std::string conn = "; at CUDA_DEVICE_MAX_CONNECTIONS " + std::string(env != nullptr ? env : "unset (8)");
  // One parameter from one number per process: the median, its spread (max - min) / median, the values.
  const auto from_processes = [&](model::Param& out, const std::vector<double>& v, const std::string& name,
                                  const std::string& what, const std::string& extra) {
    const double value = std::max(0.0, median(v));
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    std::string values;
    for (double x : v) values += (values.empty() ? "" : ", ") + fmt(x, 0);
    out = measured(value, name + " (" + what + "): " + method + "; value: the median of " + std::to_string(v.size()) + " of " + procs +
                              ", read " + values + extra + conn);
    out.spread = value > 0 ? (*hi - *lo) / value : 0.0;
    if (opt_.log) opt_.log(name + ": " + fmt(value) + " ns (" + std::to_string(v.size()) + " processes: " + values + ")");
  };
  std::vector<double> streams, queues, calls;
  for (const FirstUse& f : all) {
    streams.push_back(f.stream_ns);
    if (f.queue_ns) queues.push_back(*f.queue_ns);
    calls.push_back(f.first_call_ns);
  }
  from_processes(p.stream_first_use_ns, streams, "stream first use",
                 "extra host cost of a kernel launch into a stream that never had work, on a queue that had; the "
                 "median first-pass call of streams connections - 1 and up minus the base",
                 recycled.empty() ? std::string()
                                  : "; on streams made after such a set was destroyed the probes read " +
                                        fmt(median(recycled), 0) + " ns (the driver reuses a destroyed stream's resources)");
  if (queues.empty())
    p.queue_first_use_ns = measured(0, "queue first use: not measurable at fewer than 3 connections (no stream but the "
                                       "first opens a queue)" + conn);
  else
    from_processes(p.queue_first_use_ns, queues, "queue first use",
                   "extra host cost of that first launch when the stream's hardware queue had no work yet; the median "
                   "first-pass call of streams 1 .. connections - 2 minus the base and the stream first use",
                   "");
  from_processes(p.program_first_call_ns, calls, "program first call",
                 "extra host cost of a fresh process's first launch after its set-up's synchronize; stream 0's "
                 "first-pass call minus the base, the stream first use and, at 2 or more connections, the queue first "
                 "use",
                 "");
}

double Calibrator::correlate_clocks(std::int64_t& offset) {
  stream s(StreamFlags::non_blocking, 0);
  const ClockLink link = link_clocks(s.get(), 200, std::chrono::seconds(2));
  offset = link.offset_ns();
  return link.uncertainty_ns;
}

void Calibrator::stream_gaps(model::DeviceProfile& p) {
  stream a(StreamFlags::non_blocking, 0), b(StreamFlags::non_blocking, 0);
  // Same-stream back-to-back gap (reference for the next two), on the device clock: the first kernel's
  // block end to the next kernel's block start, with `between` issued in the middle (both kernels issued
  // before the first ran); median over reps_. Both kernels write their clock reads to device memory: a
  // kernel that writes mapped host memory ends later (its stores must reach the host before it completes),
  // which made this gap read about 1.5 us longer than between kernels that do not.
  buffer rec = device_buffer(2 * sizeof(kernels::BlockRecord), "calibrate (device latencies)");
  auto* r0 = rec.as<kernels::BlockRecord>();
  auto gap_of = [&] {
    const std::vector<kernels::BlockRecord> h = block_records(rec, 2);
    return static_cast<double>(h[1].start_ns) - static_cast<double>(h[0].end_ns);
  };
  auto kernel_gap = [&](const auto& between) {
    std::vector<double> v;
    for (int r = -warm_; r < reps_; ++r) {
      check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 50'000, r0), "calibrate (same-stream gap)");
      between();
      check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 1'000, r0 + 1), "calibrate (same-stream gap)");
      a.sync("calibrate (same-stream gap)");
      if (r >= 0) v.push_back(gap_of());
    }
    return middle_mean(std::move(v));
  };
  const std::string clock_reads = "(1-block kernels recording their %globaltimer reads in device memory)";
  const double gap = kernel_gap([] {});
  p.same_stream_gap_ns = measured(
      gap, "mean of the middle half of " + std::to_string(reps_) +
               " runs: a kernel's block start minus the block end of the 50 us kernel before it on the same "
               "stream, both issued before the first ran " + clock_reads);
  note("same-stream kernel-to-kernel gap: " + fmt(gap) + " ns");

  // Host function round trip: kernel end -> host func runs -> next kernel starts, on the device clock.
  const double hrt =
      kernel_gap([&] { check(cudaLaunchHostFunc(a.get(), [](void*) {}, nullptr), "calibrate (host func)"); });
  p.host_func_roundtrip_ns = measured(
      hrt, "mean of the middle half of " + std::to_string(reps_) +
               " runs: next kernel's block start minus previous kernel's block end, with an empty cudaLaunchHostFunc "
               "between them " + clock_reads + " (same stream without it: " + fmt(gap, 0) + " ns)");
  note("host func round trip: " + fmt(hrt) + " ns (kernel-to-kernel gap " + fmt(gap) + " ns)");

  // Event wait latency: kernel on A ends, event recorded on A, B waits on it, B's kernel starts.
  event e;
  std::vector<double> ew;
  for (int r = -warm_; r < reps_; ++r) {
    check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 100'000, r0), "calibrate (event wait)");
    e.record(a, "calibrate (event wait)");
    b.wait(e, "calibrate (event wait)");
    check(kernels::launch_spin(dim3(1), dim3(32), 0, b.get(), 1'000, r0 + 1), "calibrate (event wait)");
    b.sync("calibrate (event wait)");
    a.sync("calibrate (event wait)");
    if (r >= 0) ew.push_back(gap_of());
  }
  const double ewl = middle_mean(std::move(ew));
  p.event_wait_latency_ns = measured(
      ewl, "mean of the middle half of " + std::to_string(reps_) +
               " runs: block start of a kernel on stream B (waiting on an event) minus the block end of the kernel "
               "on stream A the event follows " + clock_reads + " (same-stream kernel-to-kernel gap: " +
               fmt(gap, 0) + " ns)");
  note("event wait latency: " + fmt(ewl) + " ns");

  // The same-stream gap while other hardware queues hold work: k other streams (k < connections, so each
  // has a queue of its own) each get a chain of 1-block kernels, then stream A's two kernels as above; the
  // gap between A's kernels is read at every k. On the H100 (2026-11-24) the GPU's front end took longer
  // to start a stream's next kernel the more streams had work (traces of 8 chains issued depth-first: gaps
  // of 2.0 us with at most one other chain running, 3.1 with three, 3.9 with five). Slope by least squares
  // over k; the simulator adds slope x (other queues holding work) to same_stream_gap_ns.
  {
    const int most = contention_queues();
    std::vector<stream> others;
    for (int k = 0; k < most; ++k) others.emplace_back(StreamFlags::non_blocking, 0);
    // Everything waits on a gate (a 500 us kernel on one more stream) so the chains and A start together
    // however long the launches take.
    stream gate(StreamFlags::non_blocking, 0);
    event opened;
    const auto [slope, line] = slope_over_queues(most, [&](int k) {
      std::vector<double> v;
      for (int r = -warm_; r < reps_; ++r) {
        check(kernels::launch_spin(dim3(1), dim3(32), 0, gate.get(), 500'000), "calibrate (busy-queue gap)");
        opened.record(gate, "calibrate (busy-queue gap)");
        for (int o = 0; o < k; ++o) {
          others[static_cast<std::size_t>(o)].wait(opened, "calibrate (busy-queue gap)");
          for (int j = 0; j < 6; ++j)
            check(kernels::launch_spin(dim3(1), dim3(32), 0, others[static_cast<std::size_t>(o)].get(), 20'000),
                  "calibrate (busy-queue gap)");
        }
        a.wait(opened, "calibrate (busy-queue gap)");
        check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 50'000, r0), "calibrate (busy-queue gap)");
        check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 1'000, r0 + 1), "calibrate (busy-queue gap)");
        check(cudaDeviceSynchronize(), "calibrate (busy-queue gap)");
        if (r >= 0) v.push_back(gap_of());
      }
      return middle_mean(std::move(v));
    });
    p.same_stream_gap_per_busy_queue_ns = measured(
        std::max(0.0, slope),
        "least-squares slope over k = 0.." + std::to_string(most) + " of the same-stream gap (mean of the middle "
        "half of " + std::to_string(reps_) + " runs each: a kernel's block start minus the block end of the 50 us "
        "kernel before it on the same stream " + clock_reads + ") while k other streams, each on a hardware queue "
        "of its own, hold chains of six 20 us 1-block kernels (all released together by one event after a 500 us "
        "gate kernel); gaps read " + line + " ns");
    note("same-stream gap with k other busy queues: " + line + " ns (slope " + fmt(slope, 0) + " ns per queue)");
  }
}

void Calibrator::completion_seen(model::DeviceProfile& p, stream& a) {
  // When the host sees a kernel complete: a 20 us 1-block kernel records its block end (%globaltimer in
  // device memory), an event is recorded after it, and the host calls cudaEventQuery back to back; the
  // moment it first says ready lies between the end of the last call that said not ready and the end of
  // the first that said ready (their midpoint), minus the kernel's end on the host clock (clocks
  // correlated before and after, interpolated). Separate repetitions time cudaEventSynchronize's return
  // against the kernel's end the same way (a diagnostic beside sync_wakeup_ns). E8 on the H100
  // (2026-11-24, run 70): polling loops resumed 3.7-3.9 us after kernel A's last block, where the
  // simulator let the host see the completion at once.
  buffer rec = device_buffer(sizeof(kernels::BlockRecord), "calibrate (completion seen)");
  auto* r0 = rec.as<kernels::BlockRecord>();
  event e;
  ClockSpan clocks = begin_clock_span();
  struct Sample {
    std::int64_t at;     // host clock, for the offset's interpolation
    double seen;         // host clock of the threshold (query) or of the return (synchronize)
    std::uint64_t end;   // kernel end, %globaltimer
    bool sync;
  };
  std::vector<Sample> samples;
  for (int r = -warm_; r < 2 * reps_; ++r) {
    const bool sync = r >= 0 && r % 2 == 1;
    a.sync("calibrate (completion seen)");
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // idle device
    check(kernels::launch_spin(dim3(1), dim3(32), 0, a.get(), 20'000, r0), "calibrate (completion seen)");
    e.record(a, "calibrate (completion seen)");
    const std::int64_t issued = steady_now_ns();
    double seen = -1;
    if (sync) {
      check(cudaEventSynchronize(e.get()), "calibrate (completion seen)");
      seen = static_cast<double>(steady_now_ns());
    } else {
      std::int64_t last_busy = -1;
      const std::int64_t give_up = issued + 1'000'000'000;  // a 20 us kernel: 1 s is a hang
      for (;;) {
        const cudaError_t st = cudaEventQuery(e.get());
        const std::int64_t now = steady_now_ns();
        if (st == cudaSuccess) {
          if (last_busy >= 0) seen = 0.5 * static_cast<double>(last_busy + now);
          break;
        }
        if (st != cudaErrorNotReady) check(st, "calibrate (completion seen)");
        last_busy = now;
        if (now > give_up) throw std::runtime_error("calibrate (completion seen): a 20 us kernel did not finish in 1 s");
      }
    }
    a.sync("calibrate (completion seen)");
    if (r >= 0 && seen >= 0) samples.push_back({issued, seen, block_records(rec, 1)[0].end_ns, sync});
  }
  end_clock_span(clocks);
  std::vector<double> query, synced;
  for (const Sample& x : samples) (x.sync ? synced : query).push_back(x.seen - clocks.in_host(static_cast<double>(x.end), x.at));
  const double seen = median(query), sync_after = median(synced);
  const double uncertainty = clocks.uncertainty;
  p.completion_seen_ns = measured(
      std::max(0.0, seen),
      "median over " + std::to_string(query.size()) + " runs on an idle device: the first cudaEventQuery to say ready "
      "(midpoint between the end of the last call that said not ready and the end of the first that said ready, "
      "calls back to back) of an event recorded after a 20 us 1-block kernel, minus the kernel's block end "
      "(%globaltimer in device memory) on the host clock; clocks correlated by mapped-memory pings before and after "
      "(+-" + fmt(uncertainty, 0) + " ns); cudaEventSynchronize returned " + fmt(sync_after, 0) + " ns after the "
      "kernel's end (median of " + std::to_string(synced.size()) + ")");
  note("completion seen by a query " + fmt(seen) + " ns after the kernel's end; a synchronize returned " + fmt(sync_after) +
       " ns after it (clock correlation +-" + fmt(uncertainty, 0) + " ns)");
}

void Calibrator::device_latencies(model::DeviceProfile& p) {
  MappedHost out(4096);
  auto* t = out.as<std::uint64_t>();
  stream a(StreamFlags::non_blocking, 0);

  // Kernel start latency: the host clock when the launch call returned vs the kernel's first %globaltimer
  // read. The simulator charges the call itself (kernel_launch_ns) first and starts the kernel this much
  // after the call's end, so the call's own time is left out here: measured from the call's start it moved
  // with the host's speed (8.2 and 9.7 us in two back-to-back calibrates on the H100, 2026-11-24) and the
  // simulator counted the launch twice. The two clocks are correlated before and after the loop; the offset
  // is interpolated in between, since the GPU timer and the host clock need not tick at exactly the same rate.
  ClockSpan clocks = begin_clock_span();
  struct StartSample {
    std::int64_t call, returned, first_read;
  };
  std::vector<StartSample> samples;
  for (int r = -warm_; r < reps_; ++r) {
    out.clear();
    a.sync("calibrate");
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // idle device
    const std::int64_t h = steady_now_ns();
    check(kernels::launch_read_globaltimer(a.get(), t), "calibrate (start latency)");
    const std::int64_t returned = steady_now_ns();
    a.sync("calibrate");
    if (r >= 0) samples.push_back({h, returned, static_cast<std::int64_t>(t[0])});
  }
  end_clock_span(clocks);
  const double drift_ppm = clocks.drift_ppm(), span = clocks.length();
  std::vector<double> from_return, from_call;
  for (const StartSample& x : samples) {
    const double device_in_host = clocks.in_host(static_cast<double>(x.first_read), x.call);
    from_return.push_back(device_in_host - static_cast<double>(x.returned));
    from_call.push_back(device_in_host - static_cast<double>(x.call));
  }
  const double sl = median(from_return);
  const double uncertainty = clocks.uncertainty;
  p.kernel_start_latency_ns = measured(
      std::max(0.0, sl), "median over " + std::to_string(reps_) +
                             " launches on an idle device: kernel's first %globaltimer read minus the host clock when "
                             "the launch call returned (from the call's start: " + fmt(median(from_call), 0) +
                             " ns); clocks correlated by mapped-memory pings before and after (+-" +
                             fmt(uncertainty, 0) + " ns, GPU timer vs host clock drift " + fmt(drift_ppm, 1) + " ppm)");
  note("kernel start latency: " + fmt(sl) + " ns after the launch call returned, " + fmt(median(from_call)) +
       " ns after it began (clock correlation +-" + fmt(uncertainty, 0) + " ns, drift " + fmt(drift_ppm, 1) +
       " ppm over " + fmt(span / 1e6, 1) + " ms)");

  completion_seen(p, a);

  std::uint64_t* res = &t[8];
  check(kernels::launch_timer_resolution(a.get(), res, 100000), "calibrate");
  a.sync("calibrate");
  note("%globaltimer resolution: " + std::to_string(*res) + " ns");
  timer_resolution_ns_ = static_cast<double>(*res);
}

void Calibrator::copies(model::DeviceProfile& p) {
  stream s(StreamFlags::non_blocking, 0);
  timed_event e0, e1;
  const std::size_t max_bytes = opt_.quick ? (16u << 20) : (256u << 20);
  const std::size_t max_pageable = opt_.quick ? (16u << 20) : (64u << 20);
  buffer dev_a = device_buffer(max_bytes, "calibrate (copies)");
  buffer dev_b = device_buffer(max_bytes, "calibrate (copies)");
  buffer pin = pinned_buffer(max_bytes, "calibrate (copies)");
  buffer page = pageable_buffer(max_pageable, "calibrate (copies)");
  std::memset(pin.data(), 1, max_bytes);
  std::memset(page.data(), 1, max_pageable);
  check(cudaMemset(dev_a.data(), 1, max_bytes), "calibrate");
  check(cudaMemset(dev_b.data(), 1, max_bytes), "calibrate");

  // Device time of one call, median over repetitions (fewer for the big sizes).
  auto time_op = [&](std::size_t bytes, auto issue) {
    const int reps = bytes >= (64u << 20) ? std::max(3, reps_ / 8) : bytes >= (4u << 20) ? std::max(5, reps_ / 3) : reps_;
    std::vector<double> v;
    for (int r = -2; r < reps; ++r) {
      e0.record(s, "calibrate (copies)");
      issue(bytes);
      e1.record(s, "calibrate (copies)");
      e1.sync("calibrate (copies)");
      if (r >= 0) v.push_back(static_cast<double>((e1 - e0).count()));
    }
    return median(std::move(v));
  };
  // Each sweep runs in `rounds` rounds, the sweeps of all kinds alternating, and the fit takes per size
  // the median over the rounds: a slow spell of the host or the link (on a VM it can last a whole sweep)
  // then moves one round, not the result.
  const int rounds = opt_.quick ? 1 : 3;
  auto sweep_once = [&](std::size_t limit, auto issue, std::vector<std::vector<double>>& acc) {
    std::size_t i = 0;
    for (std::size_t bytes = 4096; bytes <= limit; bytes *= 4, ++i) {
      if (acc.size() <= i) acc.emplace_back();
      acc[i].push_back(time_op(bytes, issue));
    }
  };
  auto fit_rounds = [&](std::size_t limit, std::vector<std::vector<double>> acc) {
    std::vector<double> xs, ts;
    std::size_t i = 0;
    for (std::size_t bytes = 4096; bytes <= limit; bytes *= 4, ++i) {
      xs.push_back(static_cast<double>(bytes));
      ts.push_back(median(std::move(acc[i])));
    }
    LatencyBandwidthFit f = fit_latency_bandwidth(xs, ts);
    if (f.gbps <= 0 || f.latency_ns < 0) {
      // Latency-dominated sweep (a fast engine on small sizes): take the largest size's throughput and
      // the smallest size's time instead of a meaningless fit.
      f.gbps = xs.back() / ts.back();
      f.latency_ns = std::max(0.0, ts.front() - xs.front() / f.gbps);
      f.rms_relative_residual = -1;  // marks "no fit" in the source line
    }
    return f;
  };
  auto method = [&](const std::string& what, const LatencyBandwidthFit& f, std::size_t limit) {
    if (f.rms_relative_residual < 0) {
      return "largest-size throughput and smallest-size time of " + what + " over sizes 4 KiB.." +
             std::to_string(limit >> 20) + " MiB (cudaEvent-timed medians; the least-squares fit gave no positive bandwidth)";
    }
    return "least-squares fit t = latency + bytes/bandwidth over " + std::to_string(f.points) + " sizes 4 KiB.." +
           std::to_string(limit >> 20) + " MiB of " + what +
           " (cudaEvent-timed medians, then the median over " + std::to_string(rounds) +
           " interleaved rounds), RMS relative residual " + fmt(100 * f.rms_relative_residual, 2) + "%";
  };

  std::vector<std::vector<double>> t_h2d, t_d2h, t_h2d_pg, t_d2h_pg, t_d2d, t_ms;
  for (int round = 0; round < rounds; ++round) {
    sweep_once(max_bytes, [&](std::size_t b) {
      check(cudaMemcpyAsync(dev_a.data(), pin.data(), b, cudaMemcpyHostToDevice, s.get()), "calibrate (h2d)");
    }, t_h2d);
    sweep_once(max_bytes, [&](std::size_t b) {
      check(cudaMemcpyAsync(pin.data(), dev_a.data(), b, cudaMemcpyDeviceToHost, s.get()), "calibrate (d2h)");
    }, t_d2h);
    sweep_once(max_pageable, [&](std::size_t b) {
      check(cudaMemcpyAsync(dev_a.data(), page.data(), b, cudaMemcpyHostToDevice, s.get()), "calibrate (h2d pageable)");
    }, t_h2d_pg);
    sweep_once(max_pageable, [&](std::size_t b) {
      check(cudaMemcpyAsync(page.data(), dev_a.data(), b, cudaMemcpyDeviceToHost, s.get()), "calibrate (d2h pageable)");
    }, t_d2h_pg);
    sweep_once(max_bytes, [&](std::size_t b) {
      check(cudaMemcpyAsync(dev_b.data(), dev_a.data(), b, cudaMemcpyDeviceToDevice, s.get()), "calibrate (d2d)");
    }, t_d2d);
    sweep_once(max_bytes, [&](std::size_t b) {
      check(cudaMemsetAsync(dev_a.data(), 0, b, s.get()), "calibrate (memset)");
    }, t_ms);
  }
  // Largest-size throughput per round, for the record (shows whether one round was slow).
  auto per_round = [&](const std::vector<std::vector<double>>& acc, std::size_t limit) {
    std::string r;
    for (double t : acc.back()) r += (r.empty() ? "" : ", ") + fmt(static_cast<double>(limit) / t, 1);
    return r + " GB/s at " + std::to_string(limit >> 20) + " MiB per round";
  };
  const std::string h2d_rounds = per_round(t_h2d, max_bytes), d2h_rounds = per_round(t_d2h, max_bytes);
  const LatencyBandwidthFit h2d = fit_rounds(max_bytes, t_h2d), d2h = fit_rounds(max_bytes, t_d2h);
  const LatencyBandwidthFit h2d_pg = fit_rounds(max_pageable, t_h2d_pg), d2h_pg = fit_rounds(max_pageable, t_d2h_pg);
  const LatencyBandwidthFit d2d = fit_rounds(max_bytes, t_d2d), ms = fit_rounds(max_bytes, t_ms);

  p.h2d_latency_ns = measured(h2d.latency_ns, method("pinned H2D cudaMemcpyAsync", h2d, max_bytes));
  p.h2d_pinned_gbps = measured(h2d.gbps, method("pinned H2D cudaMemcpyAsync", h2d, max_bytes) + "; " + h2d_rounds);
  p.h2d_pageable_gbps = measured(h2d_pg.gbps, method("pageable H2D cudaMemcpyAsync", h2d_pg, max_pageable) +
                                                  ", fitted latency " + fmt(h2d_pg.latency_ns, 0) + " ns");
  p.d2h_latency_ns = measured(d2h.latency_ns, method("pinned D2H cudaMemcpyAsync", d2h, max_bytes));
  p.d2h_pinned_gbps = measured(d2h.gbps, method("pinned D2H cudaMemcpyAsync", d2h, max_bytes) + "; " + d2h_rounds);
  p.d2h_pageable_gbps = measured(d2h_pg.gbps, method("pageable D2H cudaMemcpyAsync", d2h_pg, max_pageable) +
                                                  ", fitted latency " + fmt(d2h_pg.latency_ns, 0) + " ns");
  p.d2d_latency_ns = measured(d2d.latency_ns, method("D2D cudaMemcpyAsync (bytes copied)", d2d, max_bytes));
  p.d2d_gbps = measured(d2d.gbps, method("D2D cudaMemcpyAsync (bytes copied, not read+written)", d2d, max_bytes));
  p.memset_gbps = measured(ms.gbps, method("cudaMemsetAsync", ms, max_bytes) + ", fitted latency " +
                                        fmt(ms.latency_ns, 0) + " ns");
  note("H2D pinned: " + fmt(h2d.latency_ns) + " ns + " + fmt(h2d.gbps, 2) + " GB/s (resid " +
       fmt(100 * h2d.rms_relative_residual, 2) + "%); D2H pinned: " + fmt(d2h.latency_ns) + " ns + " + fmt(d2h.gbps, 2) +
       " GB/s; pageable H2D/D2H " + fmt(h2d_pg.gbps, 2) + "/" + fmt(d2h_pg.gbps, 2) + " GB/s; D2D " + fmt(d2d.gbps, 1) +
       " GB/s; memset " + fmt(ms.gbps, 1) + " GB/s");

  // Bidirectional, one direction at a time. The copy measured (`big` bytes on s, timed by its own events)
  // runs under a copy of the opposite direction and twice its size on s2, issued next to it, so the load
  // covers it from start to end: with both at once and of equal size, the one that finished first left the
  // other alone for its tail, which under-read the slow-down and could not tell the directions apart. Each
  // run times the copy alone, then loaded (pairs, so a drift of the link's state cancels); factor = alone /
  // loaded. The runs alternate the issue order (load just before the copy, then just after it) and rotate
  // over kSets separate pairs of pinned host buffers: on the lent H100 VM one calibrate's H2D factor came out
  // 0.68 in both orders while a triple-buffering pipeline's H2Ds on the same machine ran at about 0.92 under
  // D2H load, so the factor may depend on the host buffers (where a VM's pinned pages sit is invisible to
  // it); the raw list names each run's set. Factor = median over the runs whose load covered the copy
  // (issued before: the load's events bracket the copy's; issued after: it started within 1% of the copy's
  // time and ended after it), after one warm-up run of each order. The load never touches the copy's memory.
  stream s2(StreamFlags::non_blocking, 0);
  timed_event f0, f1;
  const std::size_t big = max_bytes / 2;
  constexpr int kSets = 4;
  std::vector<buffer> pin_copy, pin_load;
  for (int k = 0; k < kSets; ++k) {
    pin_copy.push_back(pinned_buffer(big, "calibrate (bidirectional)"));
    pin_load.push_back(pinned_buffer(2 * big, "calibrate (bidirectional)"));
    std::memset(pin_copy.back().data(), 1, big);
    std::memset(pin_load.back().data(), 1, 2 * big);
  }
  const int breps = opt_.quick ? 4 : 16;  // 4 per buffer pair, 2 of each issue order
  struct Loaded {
    std::vector<double> covered, all;            // alone / loaded of the covered runs; of every run
    std::vector<double> load_first, copy_first;  // covered runs by issue order
    std::string raw;                             // every run's factor, for the source line
  };
  auto loaded_factor = [&](const char* op, auto copy_of, auto load_of) {
    Loaded out;
    for (int r = -2; r < breps; ++r) {
      const bool load_before = (r & 1) == 0;
      const int set = ((r + 2) / 2) % kSets;
      auto copy = [&] { copy_of(set); };
      auto load = [&] { load_of(set); };
      e0.record(s, op);
      copy();
      e1.record(s, op);
      e1.sync(op);
      const double alone = static_cast<double>((e1 - e0).count());
      auto issue_load = [&] {
        f0.record(s2, op);
        load();
        f1.record(s2, op);
      };
      if (load_before) issue_load();
      e0.record(s, op);
      copy();
      e1.record(s, op);
      if (!load_before) issue_load();
      e1.sync(op);
      f1.sync(op);
      if (r < 0) continue;
      const double loaded = static_cast<double>((e1 - e0).count());
      const bool covered = load_before ? elapsed(f0, e0, op).count() >= 0 && elapsed(e1, f1, op).count() >= 0
                                       : static_cast<double>(elapsed(e0, f0, op).count()) <= 0.01 * loaded &&
                                             elapsed(e1, f1, op).count() >= 0;
      const double factor = alone / loaded;
      out.all.push_back(factor);
      if (covered) {
        out.covered.push_back(factor);
        (load_before ? out.load_first : out.copy_first).push_back(factor);
      }
      if (!out.raw.empty()) out.raw += ' ';
      out.raw += static_cast<char>('0' + set);
      out.raw += load_before ? 'b' : 'a';
      out.raw += fmt(factor, 3);
      if (!covered) out.raw += "(uncovered)";
    }
    return out;
  };
  const Loaded up = loaded_factor(
      "calibrate (bidirectional h2d)",
      [&](int k) {
        check(cudaMemcpyAsync(dev_a.data(), pin_copy[k].data(), big, cudaMemcpyHostToDevice, s.get()),
              "calibrate (bidirectional h2d)");
      },
      [&](int k) {
        check(cudaMemcpyAsync(pin_load[k].data(), dev_b.data(), 2 * big, cudaMemcpyDeviceToHost, s2.get()),
              "calibrate (bidirectional h2d: d2h load)");
      });
  const Loaded down = loaded_factor(
      "calibrate (bidirectional d2h)",
      [&](int k) {
        check(cudaMemcpyAsync(pin_copy[k].data(), dev_a.data(), big, cudaMemcpyDeviceToHost, s.get()),
              "calibrate (bidirectional d2h)");
      },
      [&](int k) {
        check(cudaMemcpyAsync(dev_b.data(), pin_load[k].data(), 2 * big, cudaMemcpyHostToDevice, s2.get()),
              "calibrate (bidirectional d2h: h2d load)");
      });
  auto bidirectional = [&](const Loaded& l, const char* dir, const char* load_dir) {
    // No covered run at all (the opposite direction is over twice as fast): the median of every run, which
    // under-reads the slow-down, and the source says so.
    const bool any_covered = !l.covered.empty();
    const double f = median(any_covered ? l.covered : l.all);
    const std::string used =
        any_covered ? "the " + std::to_string(l.covered.size()) + " of " + std::to_string(l.all.size()) +
                          " runs whose load covered it"
                    : "all " + std::to_string(l.all.size()) + " runs (the load covered none: the slow-down is under-read)";
    return std::pair{f, measured(std::min(1.0, f),
                                 "time alone / time under load of a " + std::to_string(big >> 20) + " MiB pinned " +
                                     dir + " cudaMemcpyAsync, loaded by a " + std::to_string((2 * big) >> 20) +
                                     " MiB pinned " + load_dir + " on a second stream, issued just before (b) or "
                                     "just after (a) it, alternately, over " + std::to_string(kSets) + " pairs of "
                                     "pinned host buffers (0-" + std::to_string(kSets - 1) + ") (cudaEvent-timed, alone and loaded back to "
                                     "back): median over " + used + " (load before: " +
                                     fmt(l.load_first.empty() ? 0.0 : median(l.load_first), 3) + ", after: " +
                                     fmt(l.copy_first.empty() ? 0.0 : median(l.copy_first), 3) +
                                     "), after 1 warm-up run of each order; raw " + l.raw + " (capped at 1)")};
  };
  const auto [h2d_bf, h2d_param] = bidirectional(up, "H2D", "D2H");
  const auto [d2h_bf, d2h_param] = bidirectional(down, "D2H", "H2D");
  p.h2d_bidirectional_factor = h2d_param;
  p.d2h_bidirectional_factor = d2h_param;
  // Every run's factor, for the range over all rounds (combine_host_samples).
  for (const auto& [name, l] : {std::pair{"h2d_bidirectional_factor", &up}, std::pair{"d2h_bidirectional_factor", &down}})
    for (double f : l->covered.empty() ? l->all : l->covered) run_samples_[name].push_back(std::min(1.0, f));
  streaming_bidirectional(p, s, s2, dev_a, dev_b, h2d.latency_ns, d2h.latency_ns);
  p.copy_engines = {static_cast<double>(info_.props.asyncEngineCount),
                    prefix_ + "device query: cudaDeviceProp::asyncEngineCount"};
  note("bidirectional factors: h2d " + fmt(h2d_bf, 3) + " (runs " + up.raw + "), d2h " + fmt(d2h_bf, 3) + " (runs " +
       down.raw + ")");
}

void Calibrator::streaming_bidirectional(model::DeviceProfile& p, stream& s, stream& s2, buffer& dev_a, buffer& dev_b,
                                         double h2d_latency_ns, double d2h_latency_ns) {
  // Programs that overlap the two directions mostly stream chunks: copies of a few MiB back to back on
  // each side (H100, 2026-11-24: in an 8-stream chunked copy/compute program the copies beside the other
  // direction ran at about 0.90 (H2D) and 0.89 (D2H) of their rate alone, where the covered-load probe
  // above reads about 0.80 and 0.93 for a 128 MiB copy). So this probe streams kChunks copies of `chunk`
  // bytes in each direction on its own stream, timing each copy with events between them: first each
  // direction alone, then both issued interleaved (the direction issued first alternates by run). A copy
  // counts as loaded when the other direction's stream ran from before its start to after its end. The
  // factor takes out the per-copy latency of the fit above, as the simulator charges it:
  // (median alone - latency) / (median loaded - latency), over the pooled copies of all runs; each run's
  // own factor goes to the range (and, over all rounds, to the value: their mean). On H100 run 78 the runs
  // of one round agreed while rounds fell into two groups (H2D about 0.7 or 0.85). The runs rotate over
  // kSets pinned allocations of their own, two runs each (one per issue order), and the raw list names
  // each run's set: on run 81 all four sets of a round fell into the same group (0.64-0.75 in four rounds,
  // 0.92-0.94 in five), so the group follows time, not the buffers; the mean weighs the rounds' states.
  constexpr int kChunks = 8;
  constexpr int kSets = 4;
  const std::size_t chunk = std::min<std::size_t>(8u << 20, dev_a.size() / (2 * kChunks));
  const int runs = opt_.quick ? 2 : 2 * kSets;
  std::vector<buffer> sets;
  for (int k = 0; k < kSets; ++k) sets.push_back(pinned_buffer(2 * kChunks * chunk, "calibrate (streaming bidirectional)"));
  std::byte* host_up = nullptr;
  std::byte* host_down = nullptr;
  const char* op = "calibrate (streaming bidirectional)";
  std::vector<timed_event> up_ev(kChunks + 1), down_ev(kChunks + 1);
  auto issue = [&](int dir, int i) {
    const std::size_t at = static_cast<std::size_t>(i) * chunk;
    if (dir == 0) {
      check(cudaMemcpyAsync(static_cast<std::byte*>(dev_a.data()) + at, host_up + at, chunk, cudaMemcpyHostToDevice, s.get()), op);
      up_ev[static_cast<std::size_t>(i) + 1].record(s, op);
    } else {
      check(cudaMemcpyAsync(host_down + at, static_cast<std::byte*>(dev_b.data()) + at, chunk, cudaMemcpyDeviceToHost, s2.get()), op);
      down_ev[static_cast<std::size_t>(i) + 1].record(s2, op);
    }
  };
  auto durations = [&](const std::vector<timed_event>& ev) {
    std::vector<double> d;
    for (std::size_t i = 0; i + 1 < ev.size(); ++i) d.push_back(static_cast<double>(elapsed(ev[i], ev[i + 1], op).count()));
    return d;
  };
  std::array<std::vector<double>, 2> alone, loaded, per_run;
  std::array<std::string, 2> raw;
  for (int r = -1; r < runs; ++r) {
    const int set = r < 0 ? 0 : (r / 2) % kSets;
    host_up = static_cast<std::byte*>(sets[static_cast<std::size_t>(set)].data());
    host_down = host_up + kChunks * chunk;
    std::array<std::vector<double>, 2> run_alone;
    for (int dir = 0; dir < 2; ++dir) {
      (dir == 0 ? up_ev : down_ev)[0].record(dir == 0 ? s : s2, op);
      for (int i = 0; i < kChunks; ++i) issue(dir, i);
      (dir == 0 ? up_ev : down_ev)[kChunks].sync(op);
      run_alone[static_cast<std::size_t>(dir)] = durations(dir == 0 ? up_ev : down_ev);
    }
    const int first = r & 1;  // which direction's copy is issued first in each pair
    up_ev[0].record(s, op);
    down_ev[0].record(s2, op);
    for (int i = 0; i < kChunks; ++i) {
      issue(first, i);
      issue(1 - first, i);
    }
    up_ev[kChunks].sync(op);
    down_ev[kChunks].sync(op);
    if (r < 0) continue;  // warm-up
    for (int dir = 0; dir < 2; ++dir) {
      const auto& mine = dir == 0 ? up_ev : down_ev;
      const auto& other = dir == 0 ? down_ev : up_ev;
      // Times from mine[0]; the other stream's window [other[0], other[kChunks]] on the same axis.
      const double other_start = static_cast<double>(elapsed(mine[0], other[0], op).count());
      const double other_end = static_cast<double>(elapsed(mine[0], other[kChunks], op).count());
      std::vector<double> run_loaded;
      for (std::size_t i = 0; i < kChunks; ++i) {
        const double a = static_cast<double>(elapsed(mine[0], mine[i], op).count());
        const double b = static_cast<double>(elapsed(mine[0], mine[i + 1], op).count());
        if (a >= other_start && b <= other_end) run_loaded.push_back(b - a);
      }
      const auto d = static_cast<std::size_t>(dir);
      alone[d].insert(alone[d].end(), run_alone[d].begin(), run_alone[d].end());
      loaded[d].insert(loaded[d].end(), run_loaded.begin(), run_loaded.end());
      const double lat = dir == 0 ? h2d_latency_ns : d2h_latency_ns;
      if (!raw[d].empty()) raw[d] += ' ';
      raw[d] += std::to_string(set) + ":";
      if (run_loaded.empty()) {
        raw[d] += "-";
        continue;
      }
      const double f = std::min(1.0, (median(run_alone[d]) - lat) / (median(run_loaded) - lat));
      per_run[d].push_back(f);
      raw[d] += fmt(f, 3) + "(" + std::to_string(run_loaded.size()) + ")";
    }
  }
  for (int dir = 0; dir < 2; ++dir) {
    const auto d = static_cast<std::size_t>(dir);
    if (loaded[d].empty()) {
      note(std::string(dir == 0 ? "h2d" : "d2h") + " streaming bidirectional factor: no copy ran under the other "
           "direction's load, not measured");
      continue;
    }
    const double lat = dir == 0 ? h2d_latency_ns : d2h_latency_ns;
    const double f = std::min(1.0, (median(alone[d]) - lat) / (median(loaded[d]) - lat));
    const char* name = dir == 0 ? "h2d_bidirectional_streaming_factor" : "d2h_bidirectional_streaming_factor";
    model::Param& out = dir == 0 ? p.h2d_bidirectional_streaming_factor : p.d2h_bidirectional_streaming_factor;
    out = measured(f, "(median alone - latency) / (median loaded - latency) of " + std::to_string(chunk >> 20) +
                          " MiB pinned " + (dir == 0 ? "H2D" : "D2H") + " cudaMemcpyAsync copies, " +
                          std::to_string(kChunks) + " back to back on one stream, alone and then beside " +
                          std::to_string(kChunks) + " of the other direction on a second stream issued "
                          "interleaved (cudaEvent-timed per copy; loaded: the other stream ran from before the "
                          "copy's start to after its end; latency " + fmt(lat, 0) + " ns from the fit above): " +
                          std::to_string(loaded[d].size()) + " loaded and " + std::to_string(alone[d].size()) +
                          " alone copies over " + std::to_string(runs) + " runs after 1 warm-up, rotating over " +
                          std::to_string(kSets) + " pinned host allocations (0-" + std::to_string(kSets - 1) +
                          "); per run (set: factor (loaded copies)) " + raw[d] + " (capped at 1)");
    for (double x : per_run[d]) run_samples_[name].push_back(x);
    note(std::string(name) + ": " + fmt(f, 3) + " (runs " + raw[d] + ")");
  }
}

void Calibrator::occupancy_limits(model::DeviceProfile& p) {
  const auto& d = info_.props;
  auto q = [&](double v, const std::string& field) { return model::Param{v, prefix_ + "device query: cudaDeviceProp::" + field}; };
  p.sm_count = q(d.multiProcessorCount, "multiProcessorCount");
  p.max_threads_per_sm = q(d.maxThreadsPerMultiProcessor, "maxThreadsPerMultiProcessor");
  p.max_blocks_per_sm = q(d.maxBlocksPerMultiProcessor, "maxBlocksPerMultiProcessor");
  p.registers_per_sm = q(d.regsPerMultiprocessor, "regsPerMultiprocessor");
  p.shared_mem_per_sm_bytes = q(static_cast<double>(d.sharedMemPerMultiprocessor), "sharedMemPerMultiprocessor");
  p.max_shared_mem_per_block_bytes = q(static_cast<double>(d.sharedMemPerBlockOptin), "sharedMemPerBlockOptin");
  p.max_threads_per_block = q(d.maxThreadsPerBlock, "maxThreadsPerBlock");
  const auto [least, greatest] = stream_priority_range();
  p.priority_least = {static_cast<double>(least), prefix_ + "cudaDeviceGetStreamPriorityRange"};
  p.priority_greatest = {static_cast<double>(greatest), prefix_ + "cudaDeviceGetStreamPriorityRange"};

  // Resident grids: one 1-block kernel per stream on many streams at once (breadth-first, so no queue
  // holds a dependent launch); the most kernels running at one instant is the limit.
  {
    constexpr int kStreams = 160;
    std::vector<stream> ss;
    ss.reserve(kStreams);
    for (int i = 0; i < kStreams; ++i) ss.emplace_back(StreamFlags::non_blocking, 0);
    buffer rec = device_buffer(kStreams * sizeof(kernels::BlockRecord), "calibrate");
    std::vector<kernels::BlockRecord> h(kStreams);
    int best = 0;
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i < kStreams; ++i) {
        check(kernels::launch_spin(dim3(1), dim3(32), 0, ss[static_cast<std::size_t>(i)].get(), 2'000'000,
                                   rec.as<kernels::BlockRecord>() + i),
              "calibrate (resident grids)");
      }
      check(cudaDeviceSynchronize(), "calibrate (resident grids)");
      check(cudaMemcpy(h.data(), rec.data(), rec.size(), cudaMemcpyDeviceToHost), "calibrate");
      for (const auto& x : h) {
        int running = 0;
        for (const auto& y : h) running += (y.start_ns <= x.start_ns && x.start_ns < y.end_ns) ? 1 : 0;
        best = std::max(best, running);
      }
    }
    p.max_resident_grids = measured(best, "most of " + std::to_string(kStreams) +
                                              " one-block 2 ms kernels on as many streams running at one instant "
                                              "(%globaltimer), max over 3 runs");
    note("resident grids: " + std::to_string(best));
  }

  // Hardware work queues: depth-first issue of two dependent kernels per stream over 32 streams; the
  // first kernels that start before any kernel ends are one per queue (the rest sit behind a dependent
  // launch in their queue).
  {
    constexpr int kStreams = 32;
    std::vector<stream> ss;
    ss.reserve(kStreams);
    for (int i = 0; i < kStreams; ++i) ss.emplace_back(StreamFlags::non_blocking, 0);
    buffer rec = device_buffer(2 * kStreams * sizeof(kernels::BlockRecord), "calibrate");
    std::vector<kernels::BlockRecord> h(2 * kStreams);
    std::vector<double> counts;
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i < kStreams; ++i) {
        auto* base = rec.as<kernels::BlockRecord>();
        check(kernels::launch_spin(dim3(1), dim3(32), 0, ss[static_cast<std::size_t>(i)].get(), 1'000'000, base + 2 * i),
              "calibrate (connections)");
        check(kernels::launch_spin(dim3(1), dim3(32), 0, ss[static_cast<std::size_t>(i)].get(), 1'000'000, base + 2 * i + 1),
              "calibrate (connections)");
      }
      check(cudaDeviceSynchronize(), "calibrate (connections)");
      check(cudaMemcpy(h.data(), rec.data(), rec.size(), cudaMemcpyDeviceToHost), "calibrate");
      std::uint64_t first_end = ~std::uint64_t{0};
      for (const auto& x : h) first_end = std::min(first_end, x.end_ns);
      int early = 0;
      for (const auto& x : h) early += x.start_ns < first_end ? 1 : 0;
      counts.push_back(early);
    }
    const double c = median(counts);
    const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    p.connections = measured(std::clamp(c, 1.0, 32.0),
                             "median over 3 runs: kernels started before the first one ended, with two dependent 1 ms "
                             "kernels per stream issued depth-first over 32 streams (CUDA_DEVICE_MAX_CONNECTIONS " +
                                 std::string(env != nullptr ? env : "unset") + ")");
    note("connections (work queues): " + fmt(c, 0));
  }
}

void Calibrator::throughput(model::DeviceProfile& p) {
  stream s(StreamFlags::non_blocking, 0);
  timed_event e0, e1;
  const int sms = info_.props.multiProcessorCount;
  const std::size_t bytes = opt_.quick ? (256u << 20) : (2048u << 20);  // read half, write half
  buffer a = device_buffer(bytes / 2, "calibrate (dram)");
  buffer b = device_buffer(bytes / 2, "calibrate (dram)");
  check(cudaMemset(a.data(), 1, bytes / 2), "calibrate");
  std::vector<double> v;
  for (int r = -2; r < 9; ++r) {
    e0.record(s, "calibrate");
    check(kernels::launch_memory_bound(dim3(static_cast<unsigned>(sms) * 8), dim3(512), s.get(), a.data(), b.data(), bytes / 2),
          "calibrate (dram)");
    e1.record(s, "calibrate");
    e1.sync("calibrate");
    if (r >= 0) v.push_back(static_cast<double>((e1 - e0).count()));
  }
  const double t = median(v);
  p.dram_gbps = measured(static_cast<double>(bytes) / t,
                         "median over 9 runs of a float4 streaming kernel reading " + std::to_string(bytes >> 21) +
                             " MiB and writing as much (bytes read + written / time)");
  note("DRAM: " + fmt(static_cast<double>(bytes) / t, 1) + " GB/s");

  const unsigned blocks = static_cast<unsigned>(sms) * 16, threads = 256;
  const std::uint32_t iters = opt_.quick ? 20'000 : 100'000;
  buffer out = device_buffer(std::size_t{blocks} * threads * sizeof(float), "calibrate (fp32)");
  v.clear();
  for (int r = -1; r < 5; ++r) {
    e0.record(s, "calibrate");
    check(kernels::launch_compute_bound(dim3(blocks), dim3(threads), s.get(), out.as<float>(), iters), "calibrate (fp32)");
    e1.record(s, "calibrate");
    e1.sync("calibrate");
    if (r >= 0) v.push_back(static_cast<double>((e1 - e0).count()));
  }
  const double flops = static_cast<double>(blocks) * threads * iters * 8 * 2;
  const double tf = median(v);
  p.fp32_gflops = measured(flops / tf, "median over 5 runs of a kernel of 8 independent FMA chains per thread (" +
                                           std::to_string(blocks) + "x" + std::to_string(threads) + " threads, " +
                                           std::to_string(iters) + " iterations; 2 flops per FMA)");
  note("FP32: " + fmt(flops / tf, 0) + " GFLOP/s");
}

void Calibrator::scheduling_details(model::DeviceProfile& p) {
  stream a(StreamFlags::non_blocking, 0);
  const int sms = info_.props.multiProcessorCount;
  const int runs = opt_.quick ? 3 : 5;  // after one warm-up launch each
  // Block replacement gap: one block per SM at a time (shared memory forces it), 8 waves of blocks that
  // spin 20 us from their own start; gap between a block's end and the next block's start on the same SM.
  // Blocks end as staggered as they started, so the work distributor's warp rate does not queue them: the
  // gap is the per-block cost. Measured at 128 and 1024 threads; the per-warp slope separates block size.
  const unsigned shared = static_cast<unsigned>(info_.props.sharedMemPerBlockOptin);
  std::size_t n128 = 0, n1024 = 0;
  const double g128 = replacement_gap(a, sms, 128, 1, shared, runs, n128);
  const unsigned big = static_cast<unsigned>(std::min(1024, info_.props.maxThreadsPerBlock));
  const double gbig = replacement_gap(a, sms, big, 1, shared, runs, n1024);
  const double warps_small = 4, warps_big = std::ceil(big / 32.0);
  double per_warp = warps_big > warps_small ? (gbig - g128) / (warps_big - warps_small) : 0.0;
  per_warp = std::max(0.0, per_warp);
  const double intercept = std::max(0.0, g128 - warps_small * per_warp);
  const std::string gaps_text = "median same-SM gaps (block end -> next block start, %globaltimer/%smid) in grids of 8 "
                                "waves, one block per SM at a time, " + std::to_string(runs) + " runs each: " +
                                fmt(g128, 0) + " ns at 128 threads (" + std::to_string(n128) + " gaps), " +
                                fmt(gbig, 0) + " ns at " + std::to_string(big) + " threads (" + std::to_string(n1024) +
                                " gaps)";
  p.block_dispatch_ns = measured(intercept, "intercept of gap = block_dispatch_ns + warps x block_dispatch_per_warp_ns "
                                            "through two points, " + gaps_text);
  p.block_dispatch_per_warp_ns =
      measured(per_warp, "slope per warp (clamped at >= 0) of gap = block_dispatch_ns + warps x this through two "
                         "points, " + gaps_text);
  note("block replacement gap: " + fmt(g128) + " ns (128 threads), " + fmt(gbig) + " ns (" + std::to_string(big) +
       " threads) -> " + fmt(intercept) + " ns + " + fmt(per_warp, 2) + " ns/warp");

  // Warp launch rate (ramp_slope): the blocks' start times in one wave rise by warps x rate per block.
  const unsigned per_sm_big = std::max(1u, static_cast<unsigned>(info_.props.maxThreadsPerMultiProcessor) / big);
  const unsigned per_sm_small =
      std::max(1u, std::min(static_cast<unsigned>(info_.props.maxThreadsPerMultiProcessor) / 128,
                            static_cast<unsigned>(info_.props.maxBlocksPerMultiProcessor)));
  const double wl_big = ramp_slope(a, sms, big, per_sm_big, runs);
  const double wl_small = ramp_slope(a, sms, 128, per_sm_small, runs);
  p.warp_launch_ns = measured(
      std::max(0.0, wl_big),
      "median over " + std::to_string(runs) + " runs of the block start spread (%globaltimer, last - first) "
      "over block ranks, divided by warps per block, in a one-wave grid of " +
          std::to_string(sms * static_cast<int>(per_sm_big)) + " x " + std::to_string(big) +
          "-thread blocks spinning 100 us (cross-check, " + std::to_string(sms * static_cast<int>(per_sm_small)) +
          " x 128-thread blocks: " + fmt(wl_small, 2) + " ns/warp)");
  note("warp launch: " + fmt(wl_big, 3) + " ns/warp (" + std::to_string(big) + "-thread blocks), " +
       fmt(wl_small, 3) + " ns/warp (128-thread blocks)");

  // Task fetch: the executor's task-pool kernel on one 128-thread block per SM, 32 uniform 2 us tasks per
  // block, static vs dynamic (shared atomic counter) on the same task list. Span = last task end - first
  // task start (device clock, per-task records); the dynamic span is longer by the fetches between tasks,
  // (tasks per block - 1) of them on every block's critical path.
  {
    const std::uint32_t workers = static_cast<std::uint32_t>(sms);
    constexpr std::uint32_t kPerBlock = 32;
    const std::uint32_t tasks = workers * kPerBlock;
    buffer task_ns = device_buffer(tasks * sizeof(std::int64_t), "calibrate (task fetch)");
    const std::vector<std::int64_t> h_ns(tasks, 2'000);
    check(cudaMemcpy(task_ns.data(), h_ns.data(), task_ns.size(), cudaMemcpyHostToDevice), "calibrate");
    buffer state = device_buffer(sizeof(kernels::TaskPoolState), "calibrate (task fetch)");
    check(cudaMemset(state.data(), 0, state.size()), "calibrate");
    buffer rec = device_buffer(tasks * sizeof(kernels::BlockRecord), "calibrate (task fetch)");
    auto span = [&](bool dynamic) {
      std::vector<double> v;
      for (int r = -1; r < runs; ++r) {
        check(kernels::launch_task_pool(dim3(workers), dim3(128), 0, a.get(), task_ns.as<std::int64_t>(), tasks, dynamic,
                                        state.as<kernels::TaskPoolState>(), rec.as<kernels::BlockRecord>()),
              "calibrate (task fetch)");
        a.sync("calibrate (task fetch)");
        if (r < 0) continue;
        const std::vector<kernels::BlockRecord> h = block_records(rec, tasks);
        std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
        for (const auto& x : h) lo = std::min(lo, x.start_ns), hi = std::max(hi, x.end_ns);
        if (hi > lo) v.push_back(static_cast<double>(hi - lo));
      }
      return median(std::move(v));
    };
    const double st = span(false);
    const double dy = span(true);
    const double fetch = std::max(0.0, (dy - st) / (kPerBlock - 1));
    p.task_fetch_ns = measured(
        fetch, "(dynamic - static) task-pool span / " + std::to_string(kPerBlock - 1) +
                   " fetches per block: medians over " + std::to_string(runs) + " runs of the executor's task-pool "
                   "kernel, " + std::to_string(workers) + " x 128-thread blocks, " + std::to_string(tasks) +
                   " uniform 2 us tasks; span = last task end - first task start (%globaltimer): static " + fmt(st, 0) +
                   " ns, dynamic " + fmt(dy, 0) + " ns");
    note("task fetch: " + fmt(fetch) + " ns per task (static span " + fmt(st, 0) + " ns, dynamic " + fmt(dy, 0) +
         " ns)");
  }
}

std::string Calibrator::traced_launch_method() const {
  return "median over " + std::to_string(reps_) + " batches of " + std::to_string(kTracedOps) +
         " spin-kernel launches with CUPTI attached (a fresh CuptiTracer per batch: copy and memset records on, "
         "kernel records off, as streamlab run traces a program with copies)";
}

double Calibrator::traced_launch_cost(stream& s, std::string& why) {
  auto batch = [&]() {
    const auto t0 = Clock::now();
    for (int k = 0; k < kTracedOps; ++k)
      check(kernels::launch_spin(dim3(1), dim3(32), 0, s.get(), 0), "calibrate (traced launch)");
    const auto t1 = Clock::now();
    s.sync("calibrate (traced launch)");
    return ns_between(t0, t1) / kTracedOps;
  };
  std::vector<double> traced_v;
  for (int r = -warm_; r < reps_; ++r) {
    double b = -1;
    try {
      CuptiTracer tracer(CuptiCorrelation::issue_order, false, false);
      b = batch();
      (void)tracer.take();
    } catch (const CuptiUnavailable& e) {
      why = e.what();
      return -1;
    }
    if (r >= 0) traced_v.push_back(b);
  }
  return median(std::move(traced_v));
}

void Calibrator::copy_arbitration() const {
  // A diagnostic, not a profile field: which order a run's copies see depends on the process's streams
  // (H100 run 98: each quick calibrate's first round read oldest-first, its second bit-reversed, every run
  // of a round alike), so the simulator predicts both (sim --copy-queue-order) rather than one per machine.
  std::string seen;
  for (const auto& a : arbitration_runs_) {
    seen += seen.empty() ? "" : ", ";
    seen += a ? std::to_string(a->queues) + (a->bit_reversed ? " bit-reversed" : " oldest") : std::string("none");
  }
  note("copy queues (per run: queues per engine, order): " + (seen.empty() ? std::string("not measured") : seen));
}

void Calibrator::traced_launch_overhead(model::DeviceProfile& p) {
  // Host cost of a kernel launch with CUPTI attached, as `streamlab run` traces a program with copies
  // (copy and memset activity on, kernel records off): batches of launches of the spin kernel, each batch
  // under a fresh tracer. The untraced reference is this round's kernel_launch_ns, measured before CUPTI
  // was ever attached: once attached, CUPTI stays in the process, and every later launch pays for it
  // whether a tracer exists or not (H100, 2026-11-24: about 1 us per launch, validation run 9), so
  // untraced batches alternating with traced ones here would measure CUPTI on both sides.
  stream s(StreamFlags::non_blocking, 0);
  std::string why;
  const double traced = traced_launch_cost(s, why);
  const double plain = p.kernel_launch_ns.value;
  // Block dispatch with tracing on, as real kernels run in a measured run: 1024-thread blocks, two per SM
  // (no shared memory), the shape whose dispatch tracing slows most. The same probes without tracing give
  // the baseline the per-warp extra is taken against.
  const int sms = info_.props.multiProcessorCount;
  const int runs = opt_.quick ? 3 : 5;
  const unsigned big = static_cast<unsigned>(std::min(1024, info_.props.maxThreadsPerBlock));
  const unsigned per_sm = std::max(1u, static_cast<unsigned>(info_.props.maxThreadsPerMultiProcessor) / big);
  const double warps = std::ceil(big / 32.0);
  // The traced per-wave cost grows with the block length (H100, 2026-11-21: about 4.6-5.7 us with 25 us
  // blocks, 7-8.4 us with 100-400 us blocks, each +-1.5 us run to run): the profile carries a short-block and
  // a long-block probe, and the simulator interpolates by a kernel's mean block time.
  constexpr std::uint32_t kWaves = 8;
  constexpr std::uint64_t kShortNs = 25'000, kLongNs = 100'000;
  double ramp_traced = 0, wave_traced = 0, median_traced = 0, wave_short = 0, wave_long = 0;
  double median_plain = 0, ramp_half = 0, span_pad = 0, traced_gap = 0, cupti_pad = 0;
  CopyRecordCosts copies;
  std::vector<std::optional<model::CopyArbitration>> arbitration;
  const unsigned half = std::max(32u, big / 2);
  const double wave_plain = wave_gap(s, sms, big, per_sm, kLongNs, kWaves, runs, median_plain);
  if (why.empty()) {
    try {
      CuptiTracer tracer(CuptiCorrelation::issue_order, false);
      ramp_traced = ramp_slope(s, sms, big, per_sm, runs);
      double median_short = 0;
      wave_short = wave_gap(s, sms, big, per_sm, kShortNs, kWaves, runs, median_short);
      wave_long = wave_gap(s, sms, big, per_sm, kLongNs, kWaves, runs, median_traced);
      wave_traced = wave_long;
      // Half-full first wave (half the block size, as many per SM): tracing delays no blocks there.
      ramp_half = ramp_slope(s, sms, half, per_sm, runs);
      traced_chain(s, tracer, static_cast<unsigned>(sms), 128, 20'000, runs, span_pad, traced_gap);
      (void)tracer.take();
      // The pad of CUPTI's own kernel records, as a profiler that records kernels (and so an imported
      // trace) has it.
      tracer.set_kernel_records(true);
      double records_gap = 0;
      traced_chain(s, tracer, static_cast<unsigned>(sms), 128, 20'000, runs, cupti_pad, records_gap);
      (void)tracer.take();
      tracer.set_kernel_records(false);
      copies = copy_record_costs(s, tracer, runs);
      arbitration = copy_arbitration_runs(tracer, runs, [this](const std::string& line) { note(line); });
    } catch (const CuptiUnavailable& e) {
      why = e.what();
    }
  }
  if (!why.empty() || traced < 0) {
    const std::string none = "CUPTI unavailable (" + why + "): not measured; the untraced value is charged";
    p.traced_launch_overhead_ns = measured(0, "CUPTI unavailable (" + why + "): not measured, 0 charged");
    p.traced_warp_launch_ns = measured(p.warp_launch_ns.value, none);
    p.traced_block_dispatch_per_warp_ns = measured(p.block_dispatch_per_warp_ns.value, none);
    p.traced_block_dispatch_per_warp_long_ns = measured(p.block_dispatch_per_warp_ns.value, none);
    p.traced_dispatch_short_block_ns = measured(static_cast<double>(kShortNs), "probe setting (not measured: " + why + ")");
    p.traced_dispatch_long_block_ns = measured(static_cast<double>(kLongNs), "probe setting (not measured: " + why + ")");
    p.traced_warp_launch_half_fill_ns = measured(p.warp_launch_ns.value, none);
    p.traced_span_pad_ns = measured(0, "CUPTI unavailable (" + why + "): not measured, 0 charged");
    p.cupti_kernel_pad_ns = measured(0, "CUPTI unavailable (" + why + "): not measured, 0 charged");
    p.traced_same_stream_gap_ns = measured(p.same_stream_gap_ns.value, none);
    p.traced_copy_record_ns = measured(0, "CUPTI unavailable (" + why + "): not measured, 0 charged");
    p.traced_copy_issue_overhead_ns = measured(0, "CUPTI unavailable (" + why + "): not measured, 0 charged");
    note("traced launch overhead: CUPTI unavailable (" + why + ")");
    return;
  }
  const std::string shape = std::to_string(sms * static_cast<int>(per_sm)) + " x " + std::to_string(big) +
                            "-thread blocks (" + std::to_string(per_sm) + " per SM)";
  p.traced_warp_launch_ns = measured(
      std::max(0.0, ramp_traced),
      "with CUPTI activity tracing on as CudaBackend runs it (copy and memset records; kernels time themselves): median over " + std::to_string(runs) +
          " runs of the block start spread (last - first) over block ranks, per warp, in a one-wave grid "
          "of " + shape + " spinning 100 us (untraced: warp_launch_ns)");
  p.traced_warp_launch_half_fill_ns = measured(
      std::max(0.0, ramp_half),
      "with CUPTI activity tracing on: median over " + std::to_string(runs) + " runs of the block start spread "
      "(last - first) over block ranks, per warp, in a one-wave grid of " + std::to_string(sms * static_cast<int>(per_sm)) +
          " x " + std::to_string(half) + "-thread blocks (" + std::to_string(per_sm) + " per SM: half of every SM's "
          "thread slots) spinning 100 us (full wave: traced_warp_launch_ns)");
  const std::string chain = "chains of 9 kernels of " + std::to_string(sms) + " x 128-thread blocks spinning 20 us on one "
                            "stream (issued together, then one sync; the first kernel of each chain left out), " +
                            std::to_string(runs) + " chains after a warm-up chain, CUPTI activity tracing on";
  p.traced_span_pad_ns = measured(
      std::max(0.0, span_pad), "mean of the middle half over " + chain + " of the traced kernel span minus the kernel's own span (last block end - "
                               "first block start, %globaltimer in device memory); 0 when CudaBackend's tracing "
                               "takes kernel spans from the blocks themselves (kernel records off)");
  p.cupti_kernel_pad_ns = measured(
      std::max(0.0, cupti_pad), "mean of the middle half over " + chain + ", with CUPTI kernel records on (as a profiler records "
                                "kernels), of the kernel record's span minus the kernel's own span (last block end - "
                                "first block start, %globaltimer in device memory)");
  p.traced_same_stream_gap_ns = measured(
      std::max(0.0, traced_gap), "mean of the middle half over " + chain + " of a kernel's first block start minus the previous "
                                 "kernel's last block end (%globaltimer in device memory; untraced: same_stream_gap_ns)");
  note("traced spans: pad " + fmt(span_pad, 0) + " ns per kernel (CUPTI kernel records: " + fmt(cupti_pad, 0) + " ns), same-stream gap " + fmt(traced_gap, 0) +
       " ns, warp launch at half fill " + fmt(ramp_half, 3) + " ns/warp (full " + fmt(ramp_traced, 3) + ")");
  // The simulator's same-SM replacement gap is block_dispatch_ns + warps x per-warp; take the per-warp
  // value that makes it the per-wave cost a traced kernel shows end to end.
  auto per_warp = [&](double wave) { return std::max(0.0, (wave - p.block_dispatch_ns.value) / warps); };
  auto wave_method = [&](std::uint64_t block_ns, double wave) {
    return "(per-wave replacement cost with CUPTI tracing on - block_dispatch_ns) / warps per block; per-wave "
           "cost = (kernel span - first-wave start spread - waves x block time) / (waves - 1), median over " +
           std::to_string(runs) + " runs of " + std::to_string(kWaves) + " waves of " + shape + " spinning " +
           std::to_string(block_ns / 1000) + " us: " + fmt(wave, 0) + " ns";
  };
  p.traced_block_dispatch_per_warp_ns = measured(per_warp(wave_short), wave_method(kShortNs, wave_short));
  p.traced_block_dispatch_per_warp_long_ns =
      measured(per_warp(wave_long), wave_method(kLongNs, wave_long) + " (untraced: " + fmt(wave_plain, 0) +
                                        " ns; median same-SM gap " + fmt(median_traced, 0) + " ns traced, " +
                                        fmt(median_plain, 0) + " ns untraced)");
  p.traced_dispatch_short_block_ns =
      measured(static_cast<double>(kShortNs), "block time of the traced_block_dispatch_per_warp_ns probe (a setting)");
  p.traced_dispatch_long_block_ns =
      measured(static_cast<double>(kLongNs), "block time of the traced_block_dispatch_per_warp_long_ns probe (a setting)");
  note("traced block dispatch: warp launch " + fmt(ramp_traced, 3) + " ns/warp, per-wave replacement " +
       fmt(wave_traced, 0) + " ns (" + fmt(wave_short, 0) + " at 25 us, " + fmt(wave_long, 0) + " at 100 us) vs " +
       fmt(wave_plain, 0) + " ns untraced (median same-SM gap " +
       fmt(median_traced, 0) + " vs " + fmt(median_plain, 0) + " ns, " + std::to_string(big) + " threads)");
  const std::string copy_probe = "median over " + std::to_string(runs) + " batches each way of 64 pinned 64 KiB H2D "
                                 "copies back to back on one stream behind a 1 ms spin kernel, CUPTI attached, its "
                                 "copy records off and on in alternate batches";
  p.traced_copy_record_ns = measured(
      std::max(0.0, copies.engine_on - copies.engine_off),
      "GPU time per copy with CUPTI's copy records on minus off (two timed events around the batch), " + copy_probe +
          ": " + fmt(copies.engine_on, 0) + " vs " + fmt(copies.engine_off, 0) + " ns; the simulator charges it to "
          "every copy and memset of a traced run, after the transfer");
  p.traced_copy_issue_overhead_ns = measured(
      std::max(0.0, copies.issue_on - copies.issue_off),
      "host time per cudaMemcpyAsync call with CUPTI's copy records on minus off (host clock around the calls), " +
          copy_probe + ": " + fmt(copies.issue_on, 0) + " vs " + fmt(copies.issue_off, 0) + " ns");
  note("traced copies: " + fmt(copies.engine_on, 0) + " vs " + fmt(copies.engine_off, 0) + " ns of GPU time per 64 KiB "
       "copy, " + fmt(copies.issue_on, 0) + " vs " + fmt(copies.issue_off, 0) + " ns per call (copy records on vs off)");
  arbitration_runs_.insert(arbitration_runs_.end(), arbitration.begin(), arbitration.end());
  const double extra = std::max(0.0, traced - plain);
  p.traced_launch_overhead_ns = measured(
      extra, traced_launch_method() + ", minus this round's untraced kernel_launch_ns (measured before CUPTI was "
                 "first attached): " + fmt(traced, 0) + " ns traced, " + fmt(plain, 0) + " ns untraced");
  note("traced launch overhead: " + fmt(extra) + " ns per op (" + fmt(traced) + " traced vs " + fmt(plain) + ")");
}

void Calibrator::carveouts(model::DeviceProfile& p) {
  const auto& d = info_.props;
  const int reserved = static_cast<int>(d.reservedSharedMemPerBlock);
  const auto smem_per_sm = static_cast<int>(d.sharedMemPerMultiprocessor);

  // The allocation unit of a block's shared memory: of 8, 16, ..., 1024 bytes, the one with which the
  // blocks per SM (the block, thread and shared-memory limits) reproduce the runtime's occupancy for
  // 32-thread spin blocks of every size from 8 bytes to 20000 in steps of 8.
  std::vector<int> sizes, occupancy;
  for (int bytes = 8; bytes <= 20000; bytes += 8) {
    cudaFuncAttributes attr{};
    int blocks = 0;
    check(kernels::spin_occupancy(32, static_cast<std::size_t>(bytes), &attr, &blocks), "calibrate (occupancy)");
    sizes.push_back(bytes);
    occupancy.push_back(blocks);
  }
  int unit = 0;
  for (int u = 8; u <= 1024 && unit == 0; u *= 2) {
    bool all = true;
    for (std::size_t i = 0; i < sizes.size() && all; ++i) {
      const int per_block = (sizes[i] + u - 1) / u * u + reserved;
      const int expect = std::min({d.maxBlocksPerMultiProcessor, d.maxThreadsPerMultiProcessor / 32, smem_per_sm / per_block});
      all = occupancy[i] == expect;
    }
    if (all) unit = u;
  }
  if (unit == 0) throw std::runtime_error("calibrate (carveout): no allocation unit of 8..1024 bytes reproduces the runtime's occupancy");
  p.shared_mem_alloc_unit_bytes = measured(
      unit, "the shared-memory allocation unit (of 8, 16, ..., 1024 bytes) with which blocks per SM = min(block, "
            "thread and shared-memory limits, a block's bytes rounded up to it plus the per-block reservation) "
            "reproduces cudaOccupancyMaxActiveBlocksPerMultiprocessor for 32-thread blocks of " +
            std::to_string(sizes.size()) + " sizes, 8 to 20000 bytes");

  // The configuration a running grid leaves: one block of SMs x T-thread blocks on every SM (no shared
  // memory, 200 us), then a probe of one 512-thread block on another stream whose full-occupancy need (4
  // blocks by the thread limit) is exactly one carveout step. The largest step whose probe starts beside
  // the grid is what the grid's SMs are configured for. The steps are the sm_80/sm_90 carveout sizes, as
  // probe points only: the value is the largest probe need that started beside.
  const int sms = d.multiProcessorCount;
  stream bg(StreamFlags::non_blocking, 0), fg(StreamFlags::non_blocking, 0);
  buffer rec = device_buffer((static_cast<std::size_t>(sms) + 1) * sizeof(kernels::BlockRecord), "calibrate");
  constexpr unsigned kProbeThreads = 512;
  const int probe_blocks = std::min(d.maxBlocksPerMultiProcessor, d.maxThreadsPerMultiProcessor / static_cast<int>(kProbeThreads));
  std::vector<int> steps;
  for (int kb : {8, 16, 32, 64, 100, 132, 164, 196, 228})
    if (kb * 1024 <= smem_per_sm && kb * 1024 / probe_blocks >= reserved) steps.push_back(kb * 1024);
  // 1 admitted, 0 not, -1 inconclusive (the grid did not cover every SM, or the probe ran on an SM it left
  // idle).
  auto trial = [&](unsigned threads, int need) {
    auto* r = rec.as<kernels::BlockRecord>();
    check(kernels::launch_spin(dim3(static_cast<unsigned>(sms)), dim3(threads), 0, bg.get(), 200'000, r), "calibrate (carveout)");
    // Let the grid's blocks reach every SM before the probe is issued.
    const auto until = Clock::now() + std::chrono::microseconds(30);
    while (Clock::now() < until) {
    }
    const auto shared = static_cast<unsigned>(need / probe_blocks - reserved);
    check(kernels::launch_spin(dim3(1), dim3(kProbeThreads), shared, fg.get(), 1'000, r + sms), "calibrate (carveout probe)");
    bg.sync("calibrate (carveout)");
    fg.sync("calibrate (carveout probe)");
    const std::vector<kernels::BlockRecord> h = block_records(rec, static_cast<std::size_t>(sms) + 1);
    const kernels::BlockRecord& probe = h.back();
    std::set<std::uint32_t> used;
    std::uint64_t first_end = ~std::uint64_t{0};
    bool beside_one = false;
    for (int b = 0; b < sms; ++b) {
      used.insert(h[static_cast<std::size_t>(b)].sm);
      first_end = std::min(first_end, h[static_cast<std::size_t>(b)].end_ns);
      beside_one = beside_one || (h[static_cast<std::size_t>(b)].sm == probe.sm && h[static_cast<std::size_t>(b)].start_ns <= probe.start_ns &&
                                  probe.start_ns < h[static_cast<std::size_t>(b)].end_ns);
    }
    if (static_cast<int>(used.size()) != sms) return -1;
    if (probe.start_ns >= first_end) return 0;
    return beside_one ? 1 : -1;
  };
  const auto rows = model::carveout_fields();
  std::string line;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const unsigned threads = 32u << row;
    const int own = std::min({d.maxBlocksPerMultiProcessor, d.maxThreadsPerMultiProcessor / static_cast<int>(threads),
                              smem_per_sm / reserved}) * reserved;
    int largest = 0, inconclusive = 0;
    for (int need : steps) {
      int yes = 0, no = 0;
      for (int t = 0; t < 5 && yes < 2 && no < 2; ++t) {
        const int r = trial(threads, need);
        yes += r == 1 ? 1 : 0;
        no += r == 0 ? 1 : 0;
        inconclusive += r < 0 ? 1 : 0;
      }
      if (yes < 2 && no < 2) throw std::runtime_error("calibrate (carveout): " + std::to_string(threads) +
                                                      "-thread grid: no clear answer in 5 probe trials");
      if (yes < 2) break;
      largest = need;
    }
    (p.*(rows[row].member)) = measured(
        std::max(largest, own),
        "the largest full-occupancy shared-memory need (probes at " + std::to_string(steps.size()) +
            " carveout steps, 8 KB up) of a " + std::to_string(kProbeThreads) + "-thread block on another stream "
            "that started beside a running grid of one " + std::to_string(threads) + "-thread block per SM without "
            "shared memory (two agreeing trials per step, %globaltimer block records; " + std::to_string(inconclusive) +
            " inconclusive trials repeated); at least the grid's own need, " + std::to_string(own) + " bytes");
    line += " " + std::to_string(threads) + ":" + std::to_string(std::max(largest, own) / 1024) + "K";
  }
  note("shared-memory allocation unit " + std::to_string(unit) + " B; carveout by block threads:" + line);
}

model::DeviceProfile Calibrator::run() {
  model::DeviceProfile p;
  p.name = info_.name;
  p.driver = info_.driver;
  p.cuda_version = info_.cuda_runtime;
  p.date = iso_date_utc();
  // Warm up the context, module loading and the clocks before anything is timed; then, before anything
  // else makes a stream, the first use of never-used streams (the probes of --host-processes add theirs).
  warm_up();
  const FirstUse never_used = first_use_of_new_streams(kBatch);
  note("device: " + info_.name + ", driver " + info_.driver + ", CUDA runtime " + info_.cuda_runtime);
  // Whole rounds, each measuring every parameter once; the profile takes each parameter's median over the
  // rounds. A machine has slow and fast spells longer than one measurement (a VM's host, the copy link under
  // other tenants), which a median inside one measurement cannot see past; rounds spread over the whole run
  // can. The traced measurements come after every round: once CUPTI attached it stays for the process, and
  // the untraced host costs of a later round would pay for it.
  const int rounds = std::max(1, opt_.quick ? std::min(opt_.rounds, 2) : opt_.rounds);
  std::vector<model::DeviceProfile> measured(static_cast<std::size_t>(rounds), p);
  for (int k = 0; k < rounds; ++k) {
    round_ = rounds > 1 ? "[round " + std::to_string(k + 1) + "/" + std::to_string(rounds) + "] " : "";
    model::DeviceProfile& q = measured[static_cast<std::size_t>(k)];
    occupancy_limits(q);
    carveouts(q);
    host_api_costs(q);
    device_latencies(q);
    stream_gaps(q);
    scheduling_details(q);
    copies(q);
    throughput(q);
  }
  round_.clear();
  // The host's own speed: a virtual machine's host has slow and fast spells of seconds to tens of seconds
  // (H100, 2026-11-24: the fastest of 9 rounds moved 14% between two back-to-back calibrates, and every
  // round of the first was slower than most of the second's), so the host-call costs are sampled for
  // opt_.host_seconds more, untraced, and each becomes the median of every sample with its 5th..95th
  // percentile as its range (what a program meets on this host, and how far it moves).
  if (opt_.process_probes.empty()) {
    sample_host_speed(measured.back(), opt_.quick ? std::min(opt_.host_seconds, 2.0) : opt_.host_seconds);
  } else {
    for (const HostProbe& probe : opt_.process_probes)
      for (const model::ParamField& f : model::device_profile_fields()) {
        if (!f.host_call) continue;
        const auto it = probe.samples.find(std::string(f.name));
        if (it == probe.samples.end()) continue;
        auto& v = host_samples_[f.name];
        v.insert(v.end(), it->second.begin(), it->second.end());
        if (f.member == &model::DeviceProfile::kernel_launch_ns) probe_samples_ += it->second.size();
      }
    for (const HostProbe& probe : opt_.process_probes)
      for (const auto& [name, v] : probe.contention) {
        const std::string_view key = name == kBusyQueueParam ? kBusyQueueParam : kQueueSwitchParam;
        auto& all = contention_samples_[key];
        all.insert(all.end(), v.begin(), v.end());
        if (key == kQueueSwitchParam) contention_probe_samples_ += v.size();
      }
  }
  for (int k = 0; k < rounds; ++k) {
    round_ = rounds > 1 ? "[round " + std::to_string(k + 1) + "/" + std::to_string(rounds) + "] " : "";
    traced_launch_overhead(measured[static_cast<std::size_t>(k)]);
  }
  round_.clear();
  p = combine_rounds(measured, opt_.log);
  copy_arbitration();
  combine_host_samples(p, measured);
  combine_contention_samples(p, rounds);
  combine_per_process(p);
  first_use(p, never_used);
  // streamlab's clock is integer nanoseconds: durations are written as whole ns (medians and fits carry
  // sub-ns fractions that no consumer can use).
  for (const model::ParamField& f : model::device_profile_fields()) {
    if (f.unit != "ns") continue;
    model::Param& q = p.*(f.member);
    q.value = std::round(q.value);
    if (q.range) q.range = model::Param::Range{std::min(q.value, std::round(q.range->low)), std::max(q.value, std::round(q.range->high))};
  }
  return p;
}

}  // namespace

model::DeviceProfile calibrate(const CalibrationOptions& options) { return Calibrator(options).run(); }

HostProbe probe_host(const CalibrationOptions& options, double seconds) { return Calibrator(options).probe(seconds); }

std::string host_probe_to_json(const HostProbe& probe) {
  nlohmann::ordered_json j;
  j["format"] = kHostProbeFormat;
  j["stream_first_use_ns"] = probe.stream_first_use_ns;
  j["stream_first_use_recycled_ns"] = probe.stream_first_use_recycled_ns;
  if (probe.queue_first_use_ns) j["queue_first_use_ns"] = *probe.queue_first_use_ns;
  j["program_first_call_ns"] = probe.program_first_call_ns;
  j["connections"] = probe.connections;
  j["passes"] = probe.passes;
  j["seconds"] = probe.seconds;
  j["samples"] = probe.samples;
  j["contention"] = probe.contention;
  j["per_process"] = probe.per_process;
  return j.dump();
}

HostProbe parse_host_probe(std::string_view json_text, const std::string& source) {
  const auto fail = [&](const std::string& place, const std::string& why) -> model::InputError {
    return model::InputError(source, place, "", why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw fail("byte " + std::to_string(e.byte), "not JSON: " + std::string(e.what()));
  }
  if (!j.is_object()) throw fail("/", "expected an object");
  if (j.value("format", "") != kHostProbeFormat) throw fail("/format", std::string("expected \"") + kHostProbeFormat + "\"");
  const auto number = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number()) throw fail(std::string("/") + key, "missing or not a number");
    const double v = j[key].get<double>();
    if (!std::isfinite(v)) throw fail(std::string("/") + key, "not finite");
    return v;
  };
  HostProbe p;
  for (const auto& [key, value] : j.items()) {
    (void)value;
    static const std::set<std::string> known{"format", "stream_first_use_ns", "stream_first_use_recycled_ns",
                                             "queue_first_use_ns", "program_first_call_ns", "connections", "passes",
                                             "seconds", "samples", "contention", "per_process"};
    if (!known.count(key)) throw fail("/" + key, "unknown key");
  }
  p.stream_first_use_ns = number("stream_first_use_ns");
  p.stream_first_use_recycled_ns = number("stream_first_use_recycled_ns");
  if (j.contains("queue_first_use_ns")) p.queue_first_use_ns = number("queue_first_use_ns");
  p.program_first_call_ns = number("program_first_call_ns");
  const double connections = number("connections");
  if (connections < 1 || connections > 32 || connections != std::floor(connections))
    throw fail("/connections", "not a connection count in [1, 32]");
  p.connections = static_cast<int>(connections);
  p.seconds = number("seconds");
  const double passes = number("passes");
  if (passes < 0 || passes > 1e9 || passes != std::floor(passes)) throw fail("/passes", "not a count");
  p.passes = static_cast<int>(passes);
  if (!j.contains("samples") || !j["samples"].is_object()) throw fail("/samples", "missing or not an object");
  for (const auto& [name, v] : j["samples"].items()) {
    const auto& fields = model::device_profile_fields();
    const bool host_call = std::any_of(fields.begin(), fields.end(), [&](const model::ParamField& f) {
      return f.host_call && f.name == name;
    });
    if (!host_call) throw fail("/samples/" + name, "not a host-call parameter");
    if (!v.is_array()) throw fail("/samples/" + name, "expected an array of numbers");
    std::vector<double>& out = p.samples[name];
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (!v[k].is_number() || !std::isfinite(v[k].get<double>()) || v[k].get<double>() < 0)
        throw fail("/samples/" + name + "/" + std::to_string(k), "expected a finite non-negative number");
      out.push_back(v[k].get<double>());
    }
  }
  if (!j.contains("contention") || !j["contention"].is_object()) throw fail("/contention", "missing or not an object");
  for (const auto& [name, v] : j["contention"].items()) {
    if (!is_contention_param(name)) throw fail("/contention/" + name, "not a launch-contention parameter");
    if (!v.is_array()) throw fail("/contention/" + name, "expected an array of numbers");
    std::vector<double>& out = p.contention[name];
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (!v[k].is_number() || !std::isfinite(v[k].get<double>()))  // slopes and differences may be negative
        throw fail("/contention/" + name + "/" + std::to_string(k), "expected a finite number");
      out.push_back(v[k].get<double>());
    }
  }
  if (!j.contains("per_process") || !j["per_process"].is_object()) throw fail("/per_process", "missing or not an object");
  for (const auto& [name, v] : j["per_process"].items()) {
    if (!is_per_process_param(name)) throw fail("/per_process/" + name, "not a per-process parameter");
    if (!v.is_number() || !std::isfinite(v.get<double>()))  // a slope may be negative
      throw fail("/per_process/" + name, "expected a finite number");
    p.per_process[name] = v.get<double>();
  }
  return p;
}

}  // namespace streamlab::executor
