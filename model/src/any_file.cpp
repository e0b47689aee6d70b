#include "streamlab/model/any_file.hpp"

#include <algorithm>

#include "json_view.hpp"
#include "readers.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::model {

std::optional<WorkloadCounts> check_workload_file(const std::filesystem::path& file, const ShapeLimits& limits,
                                                 ProgressCounter* progress) {
  return with_step(file.string(), "parsing", [&] { return detail::check_workload_file_by_lines(file, limits, progress); });
}

AnyFile load_any(const std::filesystem::path& file, const ShapeLimits& limits, std::optional<FileKind> kind,
                 ProgressCounter* progress) {
  // A workload as streamlab writes it is read piece by piece; anything else (or any problem) by one
  // parse of the whole file.
  if (!kind || *kind == FileKind::workload) {
    std::uint64_t work_items = 0;
    if (auto w = with_step(file.string(), "parsing",
                           [&] { return detail::read_workload_file_by_lines(file, limits, progress, &work_items); })) {
      AnyFile out;
      out.kind = FileKind::workload;
      out.workload = std::move(*w);
      out.work_items = work_items;
      return out;
    }
  }
  return detail::read_json_file(file, [&](detail::JsonDocument& doc) {
    AnyFile out;
    if (kind) {
      out.kind = *kind;
    } else {
      // The top level's keys (values skipped); the reader then starts over on the same parse.
      const std::vector<std::string> keys = doc.root_keys();
      const auto has = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
      out.kind = has("traceEvents")              ? FileKind::trace
                 : has("params") && !has("ops") ? FileKind::profile
                                                : FileKind::workload;
    }
    switch (out.kind) {
      case FileKind::workload:
        out.workload = detail::read_workload(doc, limits, progress);
        out.work_items = simulation_work_items(*out.workload);
        break;
      case FileKind::trace: out.trace = detail::read_trace(doc, progress); break;
      case FileKind::profile: out.profile = detail::read_device_profile(doc); break;
    }
    return out;
  });
}

}  // namespace streamlab::model
