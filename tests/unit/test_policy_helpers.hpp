#pragma once
// Small builders for hand-made workloads in the policy / dispatcher / coordinator tests.
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "streamlab/model/workload.hpp"

namespace streamlab::testing {

struct OpSpec {
  std::string id;
  std::vector<std::string> deps = {};
  model::OpKind kind = model::OpKind::kernel;
  std::optional<std::uint32_t> hint = std::nullopt;
  model::Priority priority = model::Priority::normal;
  model::WorkloadType type = model::WorkloadType::compute;
  model::Nanos ns = 10'000;  ///< kernel: one block of this duration; copies: bytes = ns * 25 (25 GB/s)
};

/// A validated workload; kernels are one block of 64 threads running `ns`.
inline model::Workload make_workload(std::initializer_list<OpSpec> specs, std::string name = "test") {
  model::Workload w;
  w.name = std::move(name);
  for (const auto& s : specs) {
    model::Op op;
    op.id = op.name = w.intern(s.id);
    op.kind = s.kind;
    op.priority = s.priority;
    op.type = s.type;
    op.stream_hint = s.hint;
    if (model::runs_on_sms(s.kind)) {
      model::KernelShape shape;
      shape.block.x = 64;
      op.shape = shape;
      op.duration = model::FixedPerBlock{s.ns};
    } else if (model::is_copy(s.kind) || s.kind == model::OpKind::memset || s.kind == model::OpKind::prefetch) {
      op.bytes = static_cast<std::uint64_t>(s.ns) * 25;
    } else if (s.kind == model::OpKind::host_func) {
      op.host_ns = s.ns;
    }
    w.add(op, s.deps);
  }
  model::resolve_and_check(w, "<test>");
  return w;
}

/// `n` independent kernels k0..k{n-1}.
inline model::Workload independent(std::uint32_t n, model::Nanos ns = 10'000) {
  model::Workload w;
  w.name = "independent";
  for (std::uint32_t i = 0; i < n; ++i) {
    model::Op op;
    std::string id = "k";  // not "k" + to_string(i): GCC 12's -Wrestrict misfires on it at -O2 (GCC bug 105329)
    id += std::to_string(i);
    op.id = op.name = w.intern(id);
    model::KernelShape shape;
    shape.block.x = 64;
    op.shape = shape;
    op.duration = model::FixedPerBlock{ns};
    w.ops.push_back(std::move(op));
  }
  model::resolve_and_check(w, "<test>");
  return w;
}

/// Lines of a multi-line string.
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

}  // namespace streamlab::testing
