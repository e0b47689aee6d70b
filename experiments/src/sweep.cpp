// The sweep's result table, dealer, progress and local runner.
#include "streamlab/experiments/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "streamlab/experiments/sweep_unit.hpp"

namespace streamlab::experiments {

namespace {
std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

bool is_error_payload(const std::string& p) {
  return p.find("\"predicted_error\"") != std::string::npos || p.find("\"measured_error\"") != std::string::npos;
}
}  // namespace

// --- progress ----------------------------------------------------------------------------------------

SweepProgress::SweepProgress(std::size_t total, std::size_t already_done, bool quiet)
    : total_(total),
      start_done_(already_done),
      quiet_(quiet),
      tty_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void SweepProgress::update(std::size_t done) {
  if (quiet_ || total_ == 0) return;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const std::size_t decile = done * 10 / total_;
  const bool due = tty_ ? now - last_print_ >= std::chrono::milliseconds(100) || done == total_
                        : decile > last_decile_ || now - last_print_ >= std::chrono::seconds(30);
  if (!due) return;
  last_print_ = now;
  last_decile_ = decile;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::size_t fresh = done - start_done_;
  const double rate = elapsed > 0 ? static_cast<double>(fresh) / elapsed : 0;
  std::string eta = "--:--";
  if (rate > 0) eta = clock_text(static_cast<double>(total_ - done) / rate);
  char line[160];
  std::snprintf(line, sizeof line, "sweep: %zu/%zu units (%.1f%%), %.1f units/s, elapsed %s, ETA %s", done, total_,
                100.0 * static_cast<double>(done) / static_cast<double>(total_), rate, clock_text(elapsed).c_str(),
                eta.c_str());
  std::fprintf(stderr, tty_ ? "\r%s\033[K" : "%s\n", line);
  std::fflush(stderr);
}

void SweepProgress::finish() {
  if (quiet_ || !tty_) return;
  std::lock_guard lock(mutex_);
  std::fputc('\n', stderr);
}

// --- results -----------------------------------------------------------------------------------------

SweepResults::SweepResults(const SweepPlan& plan, SweepJournal* journal, bool retry_failed)
    : plan_(plan), journal_(journal), payloads_(plan.units.size()) {
  if (journal_ == nullptr) return;
  for (std::size_t i = 0; i < plan.units.size(); ++i) {
    auto it = journal_->entries().find(plan.units[i].key);
    if (it == journal_->entries().end() || (retry_failed && is_error_payload(it->second))) continue;
    payloads_[i] = it->second;
    ++done_;
    if (i < plan.simulated_units) ++simulated_done_;
  }
  resumed_ = done_;
}

bool SweepResults::done(std::size_t unit) const {
  std::lock_guard lock(mutex_);
  return !payloads_[unit].empty();
}

void SweepResults::complete(std::size_t unit, std::string payload) {
  std::size_t done = 0;
  {
    std::lock_guard lock(mutex_);
    if (!payloads_[unit].empty()) return;  // a unit reported twice (cannot happen; harmless)
    if (journal_ != nullptr) journal_->append(plan_.units[unit].key, payload);
    payloads_[unit] = std::move(payload);
    done = ++done_;
    if (unit < plan_.simulated_units) ++simulated_done_;
  }
  if (progress_ != nullptr) progress_->update(done);
}

std::size_t SweepResults::completed() const {
  std::lock_guard lock(mutex_);
  return done_;
}
bool SweepResults::simulated_all_done() const {
  std::lock_guard lock(mutex_);
  return simulated_done_ == plan_.simulated_units;
}
bool SweepResults::all_done() const {
  std::lock_guard lock(mutex_);
  return done_ == payloads_.size();
}
void SweepResults::sync_journal() {
  std::lock_guard lock(mutex_);
  if (journal_ != nullptr) journal_->sync();
}

// --- dealer ------------------------------------------------------------------------------------------

UnitDealer::UnitDealer(const SweepPlan& plan, const SweepResults& results) : results_(results) {
  for (std::size_t i = 0; i < plan.units.size(); ++i) {
    if (results.done(i)) continue;
    (i < plan.simulated_units ? simulated_ : measured_).push_back(i);
  }
}

std::vector<std::size_t> UnitDealer::take_simulated(std::size_t max) {
  std::lock_guard lock(mutex_);
  const std::size_t n = std::min(max, simulated_.size() - next_simulated_);
  std::vector<std::size_t> out(simulated_.begin() + static_cast<std::ptrdiff_t>(next_simulated_),
                               simulated_.begin() + static_cast<std::ptrdiff_t>(next_simulated_ + n));
  next_simulated_ += n;
  return out;
}

UnitDealer::Take UnitDealer::take_measured(std::size_t& unit) {
  std::lock_guard lock(mutex_);
  if (next_measured_ == measured_.size()) return Take::none;
  if (!results_.simulated_all_done()) return Take::wait;
  unit = measured_[next_measured_++];
  return Take::unit;
}

std::size_t UnitDealer::simulated_left() const {
  std::lock_guard lock(mutex_);
  return simulated_.size() - next_simulated_;
}
std::size_t UnitDealer::measured_left() const {
  std::lock_guard lock(mutex_);
  return measured_.size() - next_measured_;
}

// --- local runner ------------------------------------------------------------------------------------

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<std::uint32_t> measuring_gpus(const SweepPlan& plan, const SweepRunOptions& options) {
  std::vector<std::uint32_t> gpus;
  if (options.gpus) {
    gpus = *options.gpus;
  } else if (!plan.spec.gpus.empty()) {
    gpus = plan.spec.gpus;
  } else {
    for (std::uint32_t g = 0; g < sweep_gpu_count(); ++g) gpus.push_back(g);
  }
  if (plan.measured_units() > 0 && gpus.empty()) {
    throw std::runtime_error(std::to_string(plan.measured_units()) +
                             " measured units but no GPU to measure on (the driver reports none, or this "
                             "streamlab was built without the CUDA executor); set mode = \"simulated\" to predict only");
  }
  return gpus;
}

namespace {
/// The first exception any worker thread threw; the others stop taking work, the caller rethrows it.
class FirstError {
 public:
  template <class F>
  void guard(F&& f) {
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
    }
  }
  [[nodiscard]] bool failed() const noexcept { return failed_; }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};
}  // namespace

void run_sweep_local(const SweepPlan& plan, SweepResults& results, const SweepRunOptions& options) {
  UnitDealer dealer(plan, results);
  FirstError error;
  const std::vector<std::uint32_t> gpus = dealer.measured_left() > 0 ? measuring_gpus(plan, options)
                                                                     : std::vector<std::uint32_t>{};
  const unsigned jobs = options.jobs == 0 ? default_jobs() : options.jobs;
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::min<std::size_t>(jobs, std::max<std::size_t>(1, dealer.simulated_left())); ++t) {
      pool.emplace_back([&] {
        error.guard([&] {
          for (auto units = dealer.take_simulated(1); !units.empty() && !error.failed(); units = dealer.take_simulated(1))
            results.complete(units[0], run_simulated_unit(plan, plan.units[units[0]].config));
        });
      });
    }
  }
  error.rethrow();
  if (dealer.measured_left() == 0) return;
  // Every simulation is done: the host is quiet while the GPUs measure. One worker per GPU, so two runs
  // never share a GPU.
  std::filesystem::create_directories(options.work_dir);
  {
    std::vector<std::jthread> measuring;
    for (std::uint32_t gpu : gpus) {
      measuring.emplace_back([&, gpu] {
        error.guard([&] {
          const MeasureTarget target{options.streamlab, gpu, options.work_dir};
          std::size_t unit = 0;
          while (!error.failed() && dealer.take_measured(unit) == UnitDealer::Take::unit)
            results.complete(unit, run_measured_unit(plan, unit, target));
        });
      });
    }
  }
  error.rethrow();
}

}  // namespace streamlab::experiments
