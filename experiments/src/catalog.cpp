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

model::Op kernel_op(std::string id, std::uint32_t blocks, std::uint32_t threads, Nanos block_ns,
                    std::optional<std::uint32_t> hint, std::vector<std::string> deps, model::Priority priority) {
  model::Op op;
  op.name = id;
  op.id = std::move(id);
  op.kind = model::OpKind::kernel;
  op.type = model::WorkloadType::compute;
  op.priority = priority;
  op.stream_hint = hint;
  model::KernelShape shape;
  shape.grid.x = blocks;
  shape.block.x = threads;
  op.shape = shape;
  op.duration = model::FixedPerBlock{block_ns};
  op.deps = std::move(deps);
  return op;
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

std::function<double(const ConfigResult&, Side)> metric_in(const MetricInfo& m) {
  const double scale = m.scale;
  return [scale](const ConfigResult& r, Side s) {
    const Measurement* x = r.side(s);
    return x ? x->metric * scale : kNone;
  };
}

namespace {
std::string series_name(const ConfigResult& r, const std::vector<std::string>& params) {
  std::string out;
  for (const auto& p : params) out += (out.empty() ? "" : " ") + p + "=" + r.param(p);
  return out;
}
bool any_measured(std::span<const ConfigResult> rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ConfigResult& r) { return r.measured.has_value(); });
}
}  // namespace

Chart line_chart(std::span<const ConfigResult> rows, const std::string& title, const std::string& x_label,
                 const std::string& y_label, const std::string& x_param, const std::vector<std::string>& series_params,
                 const std::function<double(const ConfigResult&, Side)>& y,
                 const std::function<std::string(const ConfigResult&)>& series_label) {
  Chart c;
  c.kind = ChartKind::line;
  c.title = title;
  c.x_label = x_label;
  c.y_label = y_label;
  std::vector<std::string> names;
  std::map<std::string, std::vector<const ConfigResult*>> groups;
  for (const auto& r : rows) {
    const std::string n = series_label ? series_label(r) : series_name(r, series_params);
    if (!groups.count(n)) names.push_back(n);
    groups[n].push_back(&r);
  }
  std::vector<double> xs;
  const bool measured = any_measured(rows);
  for (std::size_t i = 0; i < names.size(); ++i) {
    ChartSeries pred, meas;
    pred.name = names[i].empty() ? "predicted" : names[i];
    pred.color = palette(i);
    pred.mark = Mark::line_dashed;
    meas.name = pred.name;
    meas.color = pred.color;
    meas.mark = Mark::line_solid;
    meas.in_legend = !names[i].empty();
    // One legend row per colour: the measured line when there is one, else the predicted.
    pred.in_legend = !measured && !names[i].empty();
    for (const ConfigResult* r : groups[names[i]]) {
      const double x = std::stod(r->param(x_param));
      xs.push_back(x);
      pred.x.push_back(x);
      pred.y.push_back(y(*r, Side::predicted));
      meas.x.push_back(x);
      meas.y.push_back(y(*r, Side::measured));
    }
    c.series.push_back(std::move(pred));
    if (measured) c.series.push_back(std::move(meas));
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.size() <= 12) c.x_ticks = xs;
  if (measured) c.style_legend = {{Mark::line_solid, "measured (GPU)"}, {Mark::line_dashed, "predicted (simulator)"}};
  else c.style_legend = {{Mark::line_dashed, "predicted (simulator); not measured on a GPU yet"}};
  return c;
}

Chart bar_chart(std::span<const ConfigResult> rows, const std::string& title, const std::string& y_label,
                const std::string& category_param, const std::string& series_param,
                const std::function<double(const ConfigResult&, Side)>& y) {
  Chart c;
  c.kind = ChartKind::bars;
  c.title = title;
  c.y_label = y_label;
  c.categories = distinct(rows, category_param);
  std::vector<std::string> series = series_param.empty() ? std::vector<std::string>{""} : distinct(rows, series_param);
  const bool measured = any_measured(rows);
  for (std::size_t i = 0; i < series.size(); ++i) {
    ChartSeries bar, mark;
    bar.name = series[i].empty() ? "predicted" : series_param + "=" + series[i];
    bar.color = palette(i);
    bar.mark = Mark::bar;
    mark.name = bar.name + " (measured)";
    mark.color = palette(i);
    mark.mark = Mark::marker;
    mark.slot = static_cast<int>(i);
    mark.in_legend = false;
    for (std::size_t k = 0; k < c.categories.size(); ++k) {
      const ConfigResult* row = nullptr;
      for (const auto& r : rows)
        if (r.param(category_param) == c.categories[k] && (series_param.empty() || r.param(series_param) == series[i]))
          row = &r;
      bar.x.push_back(static_cast<double>(k));
      mark.x.push_back(static_cast<double>(k));
      bar.y.push_back(row ? y(*row, Side::predicted) : kNone);
      mark.y.push_back(row ? y(*row, Side::measured) : kNone);
    }
    if (series.size() == 1) bar.in_legend = false;
    c.series.push_back(std::move(bar));
    if (measured) c.series.push_back(std::move(mark));
  }
  if (measured) c.style_legend = {{Mark::bar, "bar: predicted (simulator)"}, {Mark::marker, "diamond: measured (GPU)"}};
  else c.style_legend = {{Mark::bar, "bar: predicted (simulator); not measured on a GPU yet"}};
  return c;
}

}  // namespace detail
}  // namespace streamlab::experiments
