#pragma once
// Internal: helpers the experiment definitions share (finding rows, formatting numbers, building ops and
// the two chart shapes every experiment uses), and the definitions' factory functions.

#include <cstdio>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "streamlab/experiments/experiment.hpp"
#include "streamlab/model/op.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::experiments::detail {

Experiment make_e1();
Experiment make_e2();
Experiment make_e3();
Experiment make_e4();
Experiment make_e5();
Experiment make_e6();
Experiment make_e7();
Experiment make_e8();
Experiment make_e9();

using KeyValues = std::initializer_list<std::pair<std::string_view, std::string_view>>;

/// The row whose parameters include every key=value given, or nullptr.
const ConfigResult* find_row(std::span<const ConfigResult> rows, KeyValues kv);
/// The row's metric on that side (NaN when the row or the side is missing).
double metric_of(const ConfigResult* row, Side side);
double extra_of(const ConfigResult* row, Side side, const std::string& key);
/// Distinct values of a parameter in first-appearance order.
std::vector<std::string> distinct(std::span<const ConfigResult> rows, std::string_view key);

std::string fmt_ms(double ns);
std::string fmt_us(double ns);
std::string fmt_pct(double ratio);  ///< 0.123 -> "+12.3%"
std::string fmt_num(double v, int digits = 3);
Verdict verdict(Outcome o, std::string why);
/// "not enough numbers" verdict for a side that lacks rows the rule needs.
Verdict missing(Side side, const std::string& what);

/// Adds to `w` a kernel op of `blocks` x `threads` whose blocks each run `block_ns`, with deps by id.
model::OpIndex add_kernel(model::Workload& w, std::string_view id, std::uint32_t blocks, std::uint32_t threads,
                          Nanos block_ns, std::optional<std::uint32_t> hint = std::nullopt,
                          const std::vector<std::string>& deps = {}, model::Priority priority = model::Priority::normal);
/// resolve_and_check for a workload built in code.
model::Workload finish_workload(model::Workload w);
/// End of the span of op `id` (NaN when absent).
double span_end(const model::Trace& t, std::string_view id);
double span_start(const model::Trace& t, std::string_view id);


}  // namespace streamlab::experiments::detail
