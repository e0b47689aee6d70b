// The table of experiments and the helpers their definitions share.
#include "streamlab/experiments/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "catalog_util.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::experiments {

std::vector<Experiment> all_experiments() {
  return {detail::make_e1(), detail::make_e2(), detail::make_e3(), detail::make_e4(), detail::make_e5(),
          detail::make_e6(), detail::make_e7(), detail::make_e8(), detail::make_e9()};
}

std::optional<Experiment> find_experiment(std::string_view name) {
  for (auto& e : all_experiments()) {
    if (e.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size(); ++i)
      same = same && std::toupper(static_cast<unsigned char>(name[i])) == static_cast<unsigned char>(e.name[i]);
    if (same) return std::move(e);
  }
  return std::nullopt;
}

namespace detail {

const ConfigResult* find_row(std::span<const ConfigResult> rows, KeyValues kv) {
  for (const auto& r : rows) {
    bool all = true;
    for (const auto& [k, v] : kv) all = all && r.param(k) == v;
    if (all) return &r;
  }
  return nullptr;
}

double metric_of(const ConfigResult* row, Side side) {
  if (!row) return kNone;
  const Measurement* m = row->side(side);
  return m ? m->metric : kNone;
}

double extra_of(const ConfigResult* row, Side side, const std::string& key) {
  if (!row) return kNone;
  const Measurement* m = row->side(side);
  if (!m) return kNone;
  auto it = m->extra.find(key);
  return it == m->extra.end() ? kNone : it->second;
}

std::vector<std::string> distinct(std::span<const ConfigResult> rows, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    const std::string v = r.param(key);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::string fmt_ms(double ns) {
  if (!has_value(ns)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}
std::string fmt_us(double ns) {
  if (!has_value(ns)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, ns >= 100'000 ? "%.0f us" : "%.2f us", ns / 1e3);
  return b;
}
std::string fmt_pct(double ratio) {
  if (!has_value(ratio)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", ratio * 100);
  return b;
}
std::string fmt_num(double v, int digits) {
  if (!has_value(v)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

Verdict verdict(Outcome o, std::string why) { return Verdict{o, std::move(why)}; }

Verdict missing(Side side, const std::string& what) {
  return verdict(Outcome::not_measured, std::string(side == Side::measured ? "measured" : "predicted") +
                                            " numbers missing for " + what);
}

model::OpIndex add_kernel(model::Workload& w, std::string_view id, std::uint32_t blocks, std::uint32_t threads,
                          Nanos block_ns, std::optional<std::uint32_t> hint, const std::vector<std::string>& deps,
                          model::Priority priority) {
  model::Op op;
  op.id = op.name = w.intern(id);
  op.kind = model::OpKind::kernel;
  op.type = model::WorkloadType::compute;
  op.priority = priority;
  op.stream_hint = hint;
  model::KernelShape shape;
  shape.grid.x = blocks;
  shape.block.x = threads;
  op.shape = shape;
  op.duration = model::FixedPerBlock{block_ns};
  return w.add(op, deps);
}

model::Workload finish_workload(model::Workload w) {
  model::resolve_and_check(w, "<experiment " + w.name + ">");
  return w;
}

double span_end(const model::Trace& t, std::string_view id) {
  double end = kNone;
  for (const auto& s : t.spans)
    if (s.op_id == id) end = has_value(end) ? std::max(end, static_cast<double>(s.end_ns)) : static_cast<double>(s.end_ns);
  return end;
}
double span_start(const model::Trace& t, std::string_view id) {
  double start = kNone;
  for (const auto& s : t.spans)
    if (s.op_id == id)
      start = has_value(start) ? std::min(start, static_cast<double>(s.start_ns)) : static_cast<double>(s.start_ns);
  return start;
}

}  // namespace detail
}  // namespace streamlab::experiments
