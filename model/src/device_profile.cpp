// Device profile JSON I/O (format: docs/formats.md). Iterates the field table of
// device_profile_fields.cpp, so a new parameter needs no change here.
#include "streamlab/model/device_profile.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "json_util.hpp"
#include "json_view.hpp"
#include "readers.hpp"
#include "streamlab/model/bundled_profile_data.hpp"
#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"
#include "streamlab/model/input_limits.hpp"

namespace streamlab::model {

using detail::Json;
using detail::JsonRef;
using detail::Reader;

namespace {

constexpr int kProfileFormatVersion = 1;

bool is_count_unit(std::string_view unit) {
  return unit == "count" || unit == "threads" || unit == "blocks" || unit == "registers" || unit == "grids" ||
         unit == "queues" || unit == "engines" || unit == "bytes";
}

// Range rules by unit, plus the few fields with a tighter meaning. The bounds (input_limits.hpp) keep
// every time the simulator derives within 64 bits and every count within the 32-bit fields it fills;
// the simulator applies the same ones (sim/src/device_params.cpp), so validate refuses what sim refuses.
void check_value(const Reader& r, const ParamField& f, double v, const std::string& ptr) {
  const std::string name(f.name);
  const auto is_integer = [&] { return std::nearbyint(v) == v; };
  const auto over = [&](double max, const std::string& unit) {
    r.fail(ptr, name + " must be at most " + detail::format_number(max) + " " + unit + ", got " +
                    detail::format_number(v));
  };
  if (is_count_unit(f.unit)) {
    if (!is_integer() || v <= 0) r.fail(ptr, name + " must be a whole number > 0 (" + std::string(f.unit) + ")");
    if (v > kMaxProfileCount) over(kMaxProfileCount, std::string(f.unit));
  } else if (f.unit == "ns") {
    if (v < 0) r.fail(ptr, name + " must be >= 0 " + std::string(f.unit));
    if (v > kMaxProfileNs) over(kMaxProfileNs, "ns");
  } else if (f.unit == "ns/warp") {
    if (v < 0) r.fail(ptr, name + " must be >= 0 " + std::string(f.unit));
    if (v > kMaxProfileNsPerWarp) over(kMaxProfileNsPerWarp, "ns/warp");
  } else if (f.unit == "GB/s" || f.unit == "GFLOP/s") {
    if (!(v > 0)) r.fail(ptr, name + " must be > 0 " + std::string(f.unit));
    if (v < kMinProfileRate)
      r.fail(ptr, name + " must be at least " + detail::format_number(kMinProfileRate) + " " + std::string(f.unit) +
                      ", got " + detail::format_number(v));
    if (v > kMaxProfileRate) over(kMaxProfileRate, std::string(f.unit));
  } else if (f.unit == "ratio") {
    if (!(v > 0 && v <= 1)) r.fail(ptr, name + " must be in (0, 1]");
  } else if (f.unit == "priority") {
    if (!is_integer() || v > 0) r.fail(ptr, name + " must be a whole number <= 0 (CUDA stream priorities)");
    if (v < -1000) r.fail(ptr, name + " must be at least -1000, got " + detail::format_number(v));
  }
  if (f.name == "connections" && v > 32) r.fail(ptr, "connections must be in 1..32 (CUDA_DEVICE_MAX_CONNECTIONS)");
  if (f.name == "copy_engines" && v > 64) r.fail(ptr, "copy_engines must be in 1..64");
  if (f.name == "sm_count" && v > kMaxProfileSms) over(kMaxProfileSms, "SMs");
  if (f.name == "max_resident_grids" && v > 1e6) over(1e6, "grids");
  if (f.name == "max_threads_per_sm" && v < 32) r.fail(ptr, "max_threads_per_sm must be at least 32 (one warp)");
}

std::string get_text(const Reader& r, JsonRef doc, std::string_view key) {
  std::string ptr = "/";
  ptr.append(key);
  return std::string(r.get_string(r.required(doc, "", key), ptr));
}

// Integral values print as integers (132, not 132.0) so a profile reads like its measurements.
Json number_json(double v) {
  if (std::nearbyint(v) == v && std::fabs(v) < 9.007199254740992e15) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace

namespace detail {

DeviceProfile read_device_profile(JsonDocument& document) {
  JsonArena arena;
  const JsonRef doc = document.build_root(arena);
  Reader r(document.source());
  r.expect_object(doc, "");
  const auto version = r.get_int(r.required(doc, "", "format_version"), "/format_version");
  if (version != kProfileFormatVersion)
    r.fail("/format_version", "format_version " + std::to_string(version) + " is not supported (this streamlab " +
                                  "reads version " + std::to_string(kProfileFormatVersion) + ")");
  r.check_keys(doc, "", {"format_version", "name", "driver", "cuda_version", "date", "params"}, "a device profile");
  DeviceProfile p;
  p.source.path = document.source();
  p.name = get_text(r, doc, "name");
  p.driver = get_text(r, doc, "driver");
  p.cuda_version = get_text(r, doc, "cuda_version");
  p.date = get_text(r, doc, "date");

  const JsonRef params = r.required(doc, "", "params");
  r.expect_object(params, "/params");
  const auto fields = device_profile_fields();
  for (JsonRef member : params) {
    const std::string_view key = member.key();
    bool known = false;
    for (const auto& f : fields) known = known || f.name == key;
    if (!known) r.fail(detail::shorten_pointer("/params/" + detail::pointer_token(key)),
                      "unknown parameter '" + detail::clip(key) + "'");
  }
  for (const auto& f : fields) {
    const std::string ptr = "/params/" + std::string(f.name);
    if (f.optional && !params.find(f.name)) continue;  // stays absent: no source
    const JsonRef j = r.required(params, "/params", f.name, "every parameter but the optional ones is required");
    r.check_keys(j, ptr, {"value", "unit", "source", "spread", "range"}, "parameter " + std::string(f.name));
    const std::string_view unit = r.get_string(r.required(j, ptr, "unit"), ptr + "/unit");
    if (unit != f.unit)
      r.fail(ptr + "/unit",
             std::string(f.name) + " is in " + std::string(f.unit) + ", not '" + detail::clip(unit) + "'");
    Param& param = p.*(f.member);
    param.value = r.get_double(r.required(j, ptr, "value"), ptr + "/value");
    check_value(r, f, param.value, ptr + "/value");
    param.source = r.get_string(r.required(j, ptr, "source", "say where the number came from"), ptr + "/source");
    if (param.source.empty()) r.fail(ptr + "/source", std::string(f.name) + " needs a source (measured, public, estimate)");
    if (const auto spread = j.find("spread")) {
      param.spread = r.get_double(*spread, ptr + "/spread");
      if (!(param.spread >= 0)) r.fail(ptr + "/spread", "a spread is a non-negative fraction of the value");
    }
    if (const auto range = j.find("range")) {
      const std::string rptr = ptr + "/range";
      r.expect_array(*range, rptr);
      if (range->size() != 2) r.fail(rptr, "a range is [low, high]");
      double ends[2];
      for (std::size_t i = 0; i < 2; ++i) {
        const std::string eptr = rptr + "/" + std::to_string(i);
        ends[i] = r.get_double((*range)[i], eptr);
        check_value(r, f, ends[i], eptr);
      }
      if (!(ends[0] <= param.value && param.value <= ends[1]))
        r.fail(rptr, std::string(f.name) + "'s range must hold its value: low <= value <= high, got [" +
                         detail::format_number(ends[0]) + ", " + detail::format_number(ends[1]) + "] around " +
                         detail::format_number(param.value));
      param.range = Param::Range{ends[0], ends[1]};
    }
  }

  // Cross-field sanity: limits that contradict each other make the simulator's occupancy meaningless.
  if (p.max_threads_per_block.value > p.max_threads_per_sm.value)
    r.fail("/params/max_threads_per_block/value", "max_threads_per_block exceeds max_threads_per_sm");
  if (p.max_shared_mem_per_block_bytes.value > p.shared_mem_per_sm_bytes.value)
    r.fail("/params/max_shared_mem_per_block_bytes/value",
           "max_shared_mem_per_block_bytes exceeds shared_mem_per_sm_bytes");
  if (p.traced_dispatch_long_block_ns.value < p.traced_dispatch_short_block_ns.value)
    r.fail("/params/traced_dispatch_long_block_ns/value",
           "traced_dispatch_long_block_ns must be >= traced_dispatch_short_block_ns");
  if (p.priority_greatest.value > p.priority_least.value)
    r.fail("/params/priority_greatest/value", "priority_greatest must be <= priority_least (smaller is higher)");
  return p;
}

}  // namespace detail

DeviceProfile parse_device_profile(std::string_view json_text, const std::string& source) {
  detail::JsonDocument doc(json_text, source);
  return detail::read_device_profile(doc);
}

DeviceProfile load_device_profile(const std::filesystem::path& file) {
  return detail::read_json_file(file, [](detail::JsonDocument& doc) { return detail::read_device_profile(doc); });
}

std::string device_profile_to_json(const DeviceProfile& p) {
  Json doc;
  doc["format_version"] = kProfileFormatVersion;
  doc["name"] = p.name;
  doc["driver"] = p.driver;
  doc["cuda_version"] = p.cuda_version;
  doc["date"] = p.date;
  Json params = Json::object();
  for (const auto& f : device_profile_fields()) {
    const Param& param = p.*(f.member);
    if (f.optional && !param.present()) continue;
    Json j;
    j["value"] = number_json(param.value);
    j["unit"] = std::string(f.unit);
    j["source"] = param.source;
    if (param.spread >= 0) j["spread"] = number_json(param.spread);
    if (param.range) j["range"] = Json::array({number_json(param.range->low), number_json(param.range->high)});
    params[std::string(f.name)] = std::move(j);
  }
  doc["params"] = std::move(params);
  return doc.dump(2) + "\n";
}

void save_device_profile(const DeviceProfile& p, const std::filesystem::path& file) {
  write_file_atomically(file, device_profile_to_json(p));
}

ShapeLimits shape_limits(const DeviceProfile& p) {
  ShapeLimits l;
  l.max_threads_per_block = static_cast<std::uint32_t>(p.max_threads_per_block.value);
  l.max_shared_mem_per_block = static_cast<std::uint32_t>(p.max_shared_mem_per_block_bytes.value);
  l.max_registers_per_block = static_cast<std::uint32_t>(p.registers_per_sm.value);
  return l;
}

std::string to_string(HostSpeed s) {
  if (s == HostSpeed::typical) return "typical";
  if (s == HostSpeed::fast) return "fast";
  if (s == HostSpeed::slow) return "slow";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", s.position);
  return text;
}

std::optional<HostSpeed> parse_host_speed(std::string_view text) {
  if (text == "typical") return HostSpeed::typical;
  if (text == "fast") return HostSpeed::fast;
  if (text == "slow") return HostSpeed::slow;
  double position = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), position);
  if (ec != std::errc() || end != text.data() + text.size() || !(position >= -1 && position <= 1)) return std::nullopt;
  return HostSpeed{position};
}

DeviceProfile at_host_speed(const DeviceProfile& p, HostSpeed speed) {
  DeviceProfile out = p;
  if (speed == HostSpeed::typical) return out;
  const bool fast = speed.position < 0;
  const double way = std::min(1.0, std::abs(speed.position));
  // `way` of the way from the value to `end` (exactly the end at the range's ends).
  const auto toward = [way](double value, double end) { return way >= 1 ? end : value + way * (end - value); };
  for (const auto& f : device_profile_fields()) {
    if (f.run_to_run) {
      Param& param = out.*(f.member);
      if (param.range) param.value = toward(param.value, fast ? param.range->high : param.range->low);
      continue;
    }
    if (!f.host_call && !f.host_rate) continue;
    Param& param = out.*(f.member);
    if (f.optional && !param.present()) continue;  // an older profile without it: stays absent
    if (!param.range)
      throw InputError(p.source.path.empty() ? std::string("<profile>") : p.source.path,
                       "/params/" + std::string(f.name), "",
                       std::string(f.name) + " has no measured range, so a " + to_string(speed) +
                           " host cannot be predicted (calibrate this device again: it samples the host's speed)");
    // A fast host: costs toward their low end, rates toward their high end.
    param.value = toward(param.value, fast == f.host_call ? param.range->low : param.range->high);
  }
  // A launch's extras (queue switch, busy queues, first uses, tracing) are more of the launch's own path
  // on the same CPU: they move by the launch's factor. Without them the fast end of a host-bound program
  // over many streams kept about 0.9 us per launch at the typical host's cost (V1 chains, H100 run 103).
  if (p.kernel_launch_ns.value > 0) {
    const double factor = out.kernel_launch_ns.value / p.kernel_launch_ns.value;
    for (const auto& f : device_profile_fields()) {
      if (!f.launch_extra) continue;
      Param& param = out.*(f.member);
      if (f.optional && !param.present()) continue;
      param.value *= factor;
    }
  }
  return out;
}

Param param_from_samples(std::vector<double> samples, std::string source) {
  if (samples.empty()) throw std::invalid_argument("param_from_samples: no samples");
  std::sort(samples.begin(), samples.end());
  // Linear between the closest ranks (the usual sample quantile): q = 0 the smallest, q = 1 the largest.
  const auto quantile = [&](double q) {
    const double at = q * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, samples.size() - 1);
    return samples[lo] + (samples[hi] - samples[lo]) * (at - static_cast<double>(lo));
  };
  Param p;
  p.value = quantile(0.5);
  p.range = Param::Range{quantile(0.05), quantile(0.95)};
  p.spread = p.value != 0 ? (p.range->high - p.range->low) / std::abs(p.value) : 0.0;
  p.source = std::move(source);
  return p;
}

double cupti_kernel_pad_ns(const DeviceProfile& p) noexcept {
  return p.cupti_kernel_pad_ns.present() ? p.cupti_kernel_pad_ns.value : p.traced_span_pad_ns.value;
}

DeviceProfile bundled_h100_profile() {
  return parse_device_profile(detail::kBundledH100ProfileJson, "bundled:model/profiles/h100-sxm.json");
}

}  // namespace streamlab::model
