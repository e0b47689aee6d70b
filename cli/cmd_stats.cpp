// `streamlab stats TRACE...`: per op kind, stream and engine the spans, their summed and busy time, and
// how the engines overlapped, as a table with one column per trace (or long-form CSV with --csv).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/stats.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/units.hpp"

namespace streamlab::cli {
namespace {

struct StatsOptions {
  std::vector<std::string> traces;
  bool csv = false;
  std::string output;  // --csv to a file instead of stdout
};

struct Loaded {
  std::string file;
  model::Trace trace;
  model::TraceStats stats;
};

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", f * 100);
  return buf;
}

std::string duration(model::Nanos ns) { return model::format_duration(static_cast<double>(ns)); }

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// "12.1 ms (43.6%) / 12.3 ms / 10": busy (of the makespan) / sum / spans.
std::string totals_cell(const model::SpanTotals& t) {
  return duration(t.busy_ns) + " (" + percent(t.busy_fraction) + ") / " + duration(t.sum_ns) + " / " +
         std::to_string(t.spans);
}

std::string overlap_cell(const model::Overlap& o) { return duration(o.ns) + " (" + percent(o.fraction) + ")"; }

// One row label and, per trace, its cell ("" when the trace has no such group).
using Row = std::pair<std::string, std::vector<std::string>>;

template <typename Key, typename Label>
void add_group(std::vector<Row>& rows, const std::vector<Loaded>& in,
               const std::map<Key, model::SpanTotals> model::TraceStats::*member, Label label) {
  std::set<Key> keys;
  for (const auto& l : in)
    for (const auto& [k, v] : l.stats.*member) keys.insert(k);
  for (const Key& k : keys) {
    Row row{label(k), {}};
    for (const auto& l : in) {
      const auto& m = l.stats.*member;
      const auto it = m.find(k);
      row.second.push_back(it == m.end() ? "" : totals_cell(it->second));
    }
    rows.push_back(std::move(row));
  }
}

void print_table(const std::vector<Loaded>& in) {
  std::vector<Row> rows;
  auto row = [&](const std::string& label, auto cell) {
    Row r{label, {}};
    for (const auto& l : in) r.second.push_back(cell(l));
    rows.push_back(std::move(r));
  };
  row("trace", [](const Loaded& l) { return std::filesystem::path(l.file).filename().string(); });
  row("backend", [](const Loaded& l) { return or_dash(l.trace.meta.backend); });
  row("policy", [](const Loaded& l) { return or_dash(l.trace.meta.policy); });
  row("device", [](const Loaded& l) { return or_dash(l.trace.meta.device_name); });
  row("workload", [](const Loaded& l) { return or_dash(l.trace.meta.workload); });
  row("makespan", [](const Loaded& l) { return duration(l.stats.makespan_ns); });
  row("concurrency mean / max", [](const Loaded& l) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f / %u", l.stats.mean_concurrency, l.stats.max_concurrency);
    return std::string(buf);
  });
  row("overlap copy/compute", [](const Loaded& l) { return overlap_cell(l.stats.copy_compute); });
  row("overlap H2D/D2H", [](const Loaded& l) { return overlap_cell(l.stats.h2d_d2h); });
  row("overlap host/device", [](const Loaded& l) { return overlap_cell(l.stats.host_device); });
  row("all spans", [](const Loaded& l) { return totals_cell(l.stats.all); });
  add_group(rows, in, &model::TraceStats::by_kind, [](model::OpKind k) { return "kind " + std::string(model::to_string(k)); });
  add_group(rows, in, &model::TraceStats::by_engine, [](model::Engine e) { return "engine " + std::string(model::to_string(e)); });
  add_group(rows, in, &model::TraceStats::by_stream, [](std::uint32_t s) { return "stream " + std::to_string(s); });

  std::size_t label_w = 0;
  std::vector<std::size_t> col_w(in.size(), 0);
  for (const auto& [label, cells] : rows) {
    label_w = std::max(label_w, label.size());
    for (std::size_t i = 0; i < cells.size(); ++i) col_w[i] = std::max(col_w[i], or_dash(cells[i]).size());
  }
  for (const auto& [label, cells] : rows) {
    std::cout << label << std::string(label_w - label.size() + 2, ' ');
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string c = or_dash(cells[i]);
      std::cout << c << (i + 1 < cells.size() ? std::string(col_w[i] - c.size() + 3, ' ') : "");
    }
    std::cout << "\n";
  }
  std::cout << "groups: busy time (share of the makespan) / summed durations / spans; overlap: time both ran "
               "(share of the shorter side)\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Long form: one row per trace and group key (columns in docs/formats.md, "stats CSV").
std::string to_csv(const std::vector<Loaded>& in) {
  std::ostringstream os;
  os << "trace,backend,policy,device,workload,makespan_ns,mean_concurrency,max_concurrency,group,key,spans,sum_ns,"
        "busy_ns,fraction\n";
  for (const auto& l : in) {
    const auto& st = l.stats;
    char conc[32];
    std::snprintf(conc, sizeof conc, "%.6g", st.mean_concurrency);
    const std::string head = csv_field(l.file) + "," + csv_field(l.trace.meta.backend) + "," +
                             csv_field(l.trace.meta.policy) + "," + csv_field(l.trace.meta.device_name) + "," +
                             csv_field(l.trace.meta.workload) + "," + std::to_string(st.makespan_ns) + "," + conc +
                             "," + std::to_string(st.max_concurrency) + ",";
    auto totals = [&](const std::string& group, const std::string& key, const model::SpanTotals& t) {
      char f[32];
      std::snprintf(f, sizeof f, "%.6g", t.busy_fraction);
      os << head << group << "," << csv_field(key) << "," << t.spans << "," << t.sum_ns << "," << t.busy_ns << "," << f << "\n";
    };
    auto overlap = [&](const std::string& key, const model::Overlap& o) {
      char f[32];
      std::snprintf(f, sizeof f, "%.6g", o.fraction);
      os << head << "overlap," << key << ",,," << o.ns << "," << f << "\n";
    };
    totals("all", "all", st.all);
    for (const auto& [k, t] : st.by_kind) totals("kind", std::string(model::to_string(k)), t);
    for (const auto& [k, t] : st.by_engine) totals("engine", std::string(model::to_string(k)), t);
    for (const auto& [k, t] : st.by_stream) totals("stream", std::to_string(k), t);
    overlap("copy/compute", st.copy_compute);
    overlap("h2d/d2h", st.h2d_d2h);
    overlap("host/device", st.host_device);
  }
  return os.str();
}

void run(const StatsOptions& o) {
  std::vector<Loaded> in;
  for (const auto& f : o.traces) {
    Loaded l{f, model::load_trace(f), {}};  // a bad trace throws InputError naming the file: nothing printed
    l.stats = model::compute_stats(l.trace);
    in.push_back(std::move(l));
  }
  if (!o.csv) {
    print_table(in);
  } else if (o.output.empty()) {
    std::cout << to_csv(in);
  } else {
    model::write_file_atomically(o.output, to_csv(in));
  }
}

const bool registered = register_command(
    {"stats", "Totals of traces per op kind, stream and engine (busy, summed, spans) and engine overlap, side by side",
     [](CLI::App& app) {
       auto o = std::make_shared<StatsOptions>();
       app.add_option("traces", o->traces, "Trace files (predicted or measured; one column each)")->required();
       app.add_flag("--csv", o->csv, "Long-form CSV (one row per trace and group) instead of the table");
       app.add_option("-o,--output", o->output, "With --csv: write the CSV to this file (atomically)");
       app.callback([o] { run(*o); });
     }});

}  // namespace
}  // namespace streamlab::cli
