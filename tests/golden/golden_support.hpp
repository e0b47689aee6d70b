#pragma once
// Golden scenarios: a tiny workload built in code, a host program driving SimBackend through the Backend
// API (exactly what a host thread would do), and the trace compared with a checked-in file under
// tests/golden/expected/ whose numbers were computed by hand (the arithmetic is in that file's comments).
// There is deliberately no "update expected files" switch: a golden file is written by a person.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"
#include "streamlab/sim/sim_backend.hpp"
#include "test_profile.hpp"

namespace streamlab::golden {

using model::Nanos;
using model::OpIndex;

/// A workload under construction plus the expected-file check.
class Scenario {
 public:
  explicit Scenario(std::string name) : name_(std::move(name)) {
    workload_.name = name_;
    profile_ = test_profile();
  }

  model::DeviceProfile& profile() { return profile_; }
  model::Workload& workload() { return workload_; }

  OpIndex kernel(const std::string& id, std::uint32_t blocks, std::uint32_t threads, Nanos ns_per_block,
                 std::uint32_t smem = 0) {
    model::Op op = base(id, model::OpKind::kernel);
    op.shape = model::KernelShape{{blocks, 1, 1}, {threads, 1, 1}, 32, smem};
    op.duration = model::FixedPerBlock{ns_per_block};
    return add(std::move(op));
  }
  OpIndex kernel_per_block(const std::string& id, std::uint32_t threads, std::vector<Nanos> ns) {
    model::Op op = base(id, model::OpKind::kernel);
    op.shape = model::KernelShape{{static_cast<std::uint32_t>(ns.size()), 1, 1}, {threads, 1, 1}, 32, 0};
    op.duration = model::PerBlockList{std::move(ns)};
    return add(std::move(op));
  }
  OpIndex kernel_cost(const std::string& id, std::uint32_t blocks, std::uint32_t threads, double bytes,
                      double flops) {
    model::Op op = base(id, model::OpKind::kernel);
    op.shape = model::KernelShape{{blocks, 1, 1}, {threads, 1, 1}, 32, 0};
    op.duration = model::CostModel{bytes, flops};
    return add(std::move(op));
  }
  OpIndex copy(const std::string& id, model::OpKind kind, std::uint64_t bytes,
               model::HostMemory mem = model::HostMemory::pinned) {
    model::Op op = base(id, kind);
    op.bytes = bytes;
    op.host_memory = mem;
    op.type = model::WorkloadType::memory;
    return add(std::move(op));
  }
  OpIndex host_func(const std::string& id, Nanos host_ns) {
    model::Op op = base(id, model::OpKind::host_func);
    op.host_ns = host_ns;
    op.type = model::WorkloadType::coordination;
    return add(std::move(op));
  }
  OpIndex task_pool(const std::string& id, std::uint32_t workers, std::uint32_t threads, std::vector<Nanos> tasks,
                    model::TaskAssignment how) {
    model::Op op = base(id, model::OpKind::task_pool);
    op.shape = model::KernelShape{{workers, 1, 1}, {threads, 1, 1}, 32, 0};
    op.tasks = model::TaskList{std::move(tasks), how};
    return add(std::move(op));
  }

  /// A prepared backend on the scenario's workload and profile (call after adding every op).
  std::unique_ptr<sim::SimBackend> backend(sim::SimOptions options = {}) {
    options.date = "2026-01-01";
    options.source = name_;
    // The synthetic device launches warps instantly (no block ramp) unless a scenario says otherwise, so
    // the hand-computed timelines stay round numbers.
    if (!options.warp_launch_ns) options.warp_launch_ns = 0.0;
    auto b = std::make_unique<sim::SimBackend>(profile_, options);
    b->prepare(workload_);
    return b;
  }

  /// A named host-side number (host clock after a call, a query result) that goes into the expected file.
  void mark(const std::string& label, Nanos value) { marks_.emplace_back(label, value); }

  /// The scenario's trace, rendered: one line per span in op order, then the marks.
  [[nodiscard]] std::string render(const model::Trace& t, const std::string& prefix = "") const {
    std::ostringstream out;
    for (const model::Span& s : t.spans)
      out << prefix << s.op_id << " stream=" << s.stream << " engine=" << model::to_string(s.engine)
          << " start=" << s.start_ns << " end=" << s.end_ns << "\n";
    return out.str();
  }

  /// Appends already rendered lines (a scenario that renders its own, e.g. with host API calls).
  void add_text(const std::string& lines) { actual_ += lines; }

  /// Appends a run's spans (several runs may go in one file, each with its own prefix).
  void add_run(const model::Trace& t, const std::string& prefix = "") { actual_ += render(t, prefix); }

  /// Compares everything added (runs, then marks) with tests/golden/expected/<name>.txt; comment lines
  /// (#...) and blank lines in the file are ignored.
  void check() {
    std::string actual = actual_;
    for (const auto& [label, value] : marks_) actual += "mark " + label + " " + std::to_string(value) + "\n";
    const std::filesystem::path file =
        std::filesystem::path(STREAMLAB_GOLDEN_DIR) / "expected" / (name_ + ".txt");
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << "missing expected file " << file << "\nactual:\n" << actual;
    std::string expected, line;
    while (std::getline(in, line)) {
      const auto first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      expected += line.substr(first) + "\n";
    }
    EXPECT_EQ(expected, actual) << "golden file " << file;
  }

 private:
  model::Op base(const std::string& id, model::OpKind kind) {
    model::Op op;
    op.id = op.name = workload_.intern(id);
    op.kind = kind;
    return op;
  }
  OpIndex add(model::Op op) {
    workload_.ops.push_back(std::move(op));
    return static_cast<OpIndex>(workload_.ops.size() - 1);
  }

  std::string name_;
  model::Workload workload_;
  model::DeviceProfile profile_;
  std::vector<std::pair<std::string, Nanos>> marks_;
  std::string actual_;
};

}  // namespace streamlab::golden
