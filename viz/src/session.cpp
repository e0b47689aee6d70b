#include "streamlab/viz/session.hpp"

#include <algorithm>
#include <exception>
#include <unordered_set>
#include <system_error>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::viz {
namespace {

std::string quoted(const std::filesystem::path& p) {
  std::string out(1, '\'');  // appending, not "'" + string&& (GCC 12 -Wrestrict false positive)
  out += p.string();
  out += '\'';
  return out;
}

// Runs a loader; a failure becomes one line naming the file and what was being opened.
template <class F>
auto attempt(const std::filesystem::path& file, const char* what, std::vector<std::string>& errors, F&& load)
    -> std::optional<decltype(load())> {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    errors.push_back("cannot open " + std::string(what) + " " + quoted(file) + ": no such file");
    return std::nullopt;
  }
  try {
    return load();
  } catch (const model::InputError& e) {
    // InputError's message already names the file and the place.
    errors.push_back("cannot read " + std::string(what) + ": " + e.what());
  } catch (const std::exception& e) {
    errors.push_back("cannot read " + std::string(what) + " " + quoted(file) + ": " + e.what());
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> mismatch_reason(const model::Trace& p, const std::string& p_file,
                                           const model::Trace& m, const std::string& m_file) {
  const auto& hp = p.meta.workload_hash;
  const auto& hm = m.meta.workload_hash;
  if (!hp.empty() && !hm.empty() && hp != hm) {
    return "traces are of different workloads: " + p_file + " ran '" + p.meta.workload + "' (hash " + hp +
           "), " + m_file + " ran '" + m.meta.workload + "' (hash " + hm + ")";
  }
  if (p.spans.empty() || m.spans.empty()) return std::nullopt;  // an empty trace is shown, not compared
  std::unordered_set<std::string> keys;
  keys.reserve(p.spans.size());
  auto key = [](const model::Span& s) {
    return s.op_id + '\x1f' + static_cast<char>('0' + static_cast<int>(s.engine));
  };
  for (const auto& s : p.spans) keys.insert(key(s));
  const bool any_common =
      std::any_of(m.spans.begin(), m.spans.end(), [&](const model::Span& s) { return keys.count(key(s)) > 0; });
  if (!any_common) {
    return "traces have no op in common (matched by op id and engine): " + p_file + " and " + m_file +
           " are not of the same workload";
  }
  return std::nullopt;
}

Session open_session(const SessionFiles& files) {
  Session s;
  auto predicted = attempt(files.predicted, "predicted trace", s.errors,
                           [&] { return model::load_trace(files.predicted); });
  std::optional<model::Trace> measured;
  if (files.measured) {
    measured = attempt(*files.measured, "measured trace", s.errors,
                       [&] { return model::load_trace(*files.measured); });
    if (measured && predicted) {
      if (auto why = mismatch_reason(*predicted, quoted(files.predicted), *measured, quoted(*files.measured))) {
        s.errors.push_back(*why + "; showing the predicted trace only");
        measured.reset();
      }
    }
  }
  if (!predicted) return s;
  s.pair = std::make_shared<const TracePair>(std::move(*predicted), std::move(measured));
  if (files.workload) {
    auto workload = attempt(*files.workload, "workload", s.errors,
                            [&] { return model::load_workload(*files.workload); });
    if (workload) {
      const auto& trace_hash = s.pair->trace(Side::predicted).meta.workload_hash;
      const auto hash = workload->hash();
      if (!trace_hash.empty() && trace_hash != hash) {
        s.errors.push_back("workload " + quoted(*files.workload) + " (hash " + hash +
                           ") is not the one the trace ran (hash " + trace_hash + "); dependencies not shown");
      } else {
        try {
          s.overlay = std::make_shared<const DependencyOverlay>(*workload, *s.pair);
        } catch (const std::exception& e) {
          s.errors.push_back("cannot analyse workload " + quoted(*files.workload) + ": " + e.what());
        }
      }
    }
  }
  return s;
}

}  // namespace streamlab::viz
