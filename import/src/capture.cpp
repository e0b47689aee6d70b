#include "streamlab/import/capture.hpp"

#include <cctype>
#include <cstring>

namespace streamlab::import {
namespace {

/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (Nsight Systems names carry the API version);
/// "_ptsz" / "_ptds" per-thread-stream suffixes are dropped too.
std::string_view base_name(std::string_view n) {
  for (;;) {
    const auto us = n.rfind('_');
    if (us == std::string_view::npos) return n;
    const std::string_view tail = n.substr(us + 1);
    const bool version = tail.size() > 1 && tail[0] == 'v' &&
                         std::isdigit(static_cast<unsigned char>(tail[1])) != 0;
    if (!version && tail != "ptsz" && tail != "ptds") return n;
    n = n.substr(0, us);
  }
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

}  // namespace

CallKind classify_call(std::string_view api_name) noexcept {
  const std::string_view n = base_name(api_name);
  if (contains(n, "LaunchKernel") || contains(n, "LaunchCooperativeKernel") || n == "cudaGraphLaunch" ||
      n == "cuGraphLaunch" || n == "cudaLaunch" || n == "cuLaunchGrid" || n == "cuLaunchGridAsync")
    return CallKind::launch;
  if (starts_with(n, "cudaMemcpy") || starts_with(n, "cuMemcpy"))
    return contains(n, "Async") ? CallKind::memcpy_async : CallKind::memcpy_sync;
  if (starts_with(n, "cudaMemset") || starts_with(n, "cuMemset"))
    return contains(n, "Async") ? CallKind::memset_async : CallKind::memset_sync;
  if (n == "cudaEventRecord" || n == "cudaEventRecordWithFlags" || n == "cuEventRecord" ||
      n == "cuEventRecordWithFlags")
    return CallKind::event_record;
  if (n == "cudaStreamWaitEvent" || n == "cuStreamWaitEvent") return CallKind::stream_wait_event;
  if (n == "cudaStreamSynchronize" || n == "cuStreamSynchronize") return CallKind::stream_sync;
  if (n == "cudaEventSynchronize" || n == "cuEventSynchronize") return CallKind::event_sync;
  if (n == "cudaDeviceSynchronize" || n == "cuCtxSynchronize" || n == "cudaThreadSynchronize")
    return CallKind::device_sync;
  return CallKind::other;
}

std::string_view NameTable::intern(std::string_view s) {
  // Fingerprint: length and the first and last bytes; a hit is checked in full.
  std::size_t f = s.size();
  if (!s.empty()) f = f * 31 + static_cast<unsigned char>(s.front()) * 7 + static_cast<unsigned char>(s.back());
  std::string_view& recent = recent_[f % recent_.size()];
  // (A slot never filled holds a null view: memcmp must not see it, even for 0 bytes.)
  if (recent.data() != nullptr && recent.size() == s.size() && (s.empty() || std::memcmp(recent.data(), s.data(), s.size()) == 0))
    return recent;
  auto at = index_.find(s);
  if (at == index_.end()) at = index_.insert(std::string_view(kept_.emplace_back(s))).first;
  recent = *at;
  return *at;
}

}  // namespace streamlab::import
