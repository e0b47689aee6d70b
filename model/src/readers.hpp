#pragma once
// Private: the readers of each file kind over a parsed JsonDocument, so one parse serves a caller that
// first asks the document what it holds (load_any).

#include "json_view.hpp"
#include "streamlab/model/any_file.hpp"
#include "streamlab/model/device_profile.hpp"
#include "streamlab/model/progress.hpp"
#include "streamlab/model/trace.hpp"
#include "streamlab/model/workload.hpp"

namespace streamlab::model::detail {

[[nodiscard]] Workload read_workload(JsonDocument& doc, const ShapeLimits& limits, ProgressCounter* progress);
/// A workload text laid out one op per line (as streamlab writes them), read a few thousand ops at a
/// time with the file's pages given back behind the reader; nothing for any other layout or for any
/// problem, which the whole-file reader (read_workload) then reads and reports as always. With
/// `work_items`, a workload read also gets its simulation_work_items there (counted as its ops came).
/// With `hash`, its Workload::hash() goes there, computed as the ops came, where it can be (left as it
/// was otherwise: the caller then asks the workload).
[[nodiscard]] std::optional<Workload> read_workload_by_lines(std::string_view text, const std::string& source,
                                                             const PaddedText* mapped, const ShapeLimits& limits,
                                                             ProgressCounter* progress,
                                                             std::uint64_t* work_items = nullptr,
                                                             std::string* hash = nullptr);
/// read_workload_by_lines of a file, mapped (pages read in as the reader goes).
[[nodiscard]] std::optional<Workload> read_workload_file_by_lines(const std::filesystem::path& file,
                                                                  const ShapeLimits& limits, ProgressCounter* progress,
                                                                  std::uint64_t* work_items = nullptr,
                                                                  std::string* hash = nullptr);
/// read_workload_by_lines' checks of a workload, for a caller that needs only its counts: no op is
/// kept. Nothing where it cannot tell so (any other layout, any problem, and workloads whose checks need
/// the ops: a dep on a later op or by an id not numbered as IdRuns numbers them, a program, declared
/// streams), for which read_workload_by_lines or read_workload must read the file.
[[nodiscard]] std::optional<WorkloadCounts> check_workload_by_lines(std::string_view text, const std::string& source,
                                                                   const PaddedText* mapped, const ShapeLimits& limits,
                                                                   ProgressCounter* progress);
/// check_workload_by_lines of a file, mapped (pages read in as the checks go).
[[nodiscard]] std::optional<WorkloadCounts> check_workload_file_by_lines(const std::filesystem::path& file,
                                                                         const ShapeLimits& limits,
                                                                         ProgressCounter* progress);
[[nodiscard]] Trace read_trace(JsonDocument& doc, ProgressCounter* progress, const TraceReadOptions& options = {});
/// A trace as write_chrome_json lays it out (one event per line), its span events read straight from
/// their lines and the text's pages given back behind the reader (`mapped`, when the text is a mapped
/// file); nothing for any other layout or any problem, which read_trace then reads and reports.
[[nodiscard]] std::optional<Trace> read_trace_by_lines(std::string_view text, const std::string& source,
                                                       const PaddedText* mapped, ProgressCounter* progress,
                                                       const TraceReadOptions& options = {});
[[nodiscard]] DeviceProfile read_device_profile(JsonDocument& doc);

}  // namespace streamlab::model::detail
