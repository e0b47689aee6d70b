#include "streamlab/viz/alignment.hpp"

#include <algorithm>

#include "streamlab/model/errors.hpp"

namespace streamlab::viz {

Alignment parse_alignment(std::string_view text) {
  if (text == "first") return {};
  if (text == "none") return {Alignment::Mode::none, {}};
  if (text.starts_with("op:") && text.size() > 3) return {Alignment::Mode::op, std::string(text.substr(3))};
  throw model::InputError("command line", "--align", "",
                          "bad value '" + std::string(text) + "': expected first, none or op:ID");
}

std::string to_string(const Alignment& a) {
  switch (a.mode) {
    case Alignment::Mode::first_op: return "first";
    case Alignment::Mode::none: return "none";
    case Alignment::Mode::op: return "op:" + a.op_id;
  }
  return "first";
}

AlignmentOffsets alignment_offsets(const TraceSet& set, const Alignment& a) {
  AlignmentOffsets out;
  out.offsets.assign(set.size(), 0);
  if (a.mode == Alignment::Mode::none) return out;
  const auto keys = a.mode == Alignment::Mode::op ? set.keys_of_op_id(a.op_id) : std::vector<std::uint32_t>{};
  std::vector<std::string> missing;
  for (TraceIndex t = 0; t < set.size(); ++t) {
    out.offsets[t] = set.first_device_start(t);
    if (a.mode != Alignment::Mode::op) continue;
    // The op's earliest span (an op with a host call and a device span starts at its call).
    bool found = false;
    model::Nanos start = 0;
    for (const auto k : keys) {
      const auto s = set.span_of_key(t, k);
      if (s == kNone) continue;
      start = found ? std::min(start, set.trace(t).spans[s].start_ns) : set.trace(t).spans[s].start_ns;
      found = true;
    }
    if (found) out.offsets[t] = start;
    else missing.push_back(set.tag(t));
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    out.problem = "--align: op '" + a.op_id + "' is not in trace" + (missing.size() > 1 ? "s " : " ") + list +
                  (keys.empty() ? " (nor in any other trace)" : "") + "; aligned on the first device span instead";
  }
  return out;
}

}  // namespace streamlab::viz
