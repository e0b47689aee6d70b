#include "streamlab/executor/tracer.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <unordered_map>

#include <cupti.h>
#include <nvtx3/nvToolsExt.h>

namespace streamlab::executor {
namespace {

// CUPTI calls back through plain C function pointers: the active tracer is found here. This is the one
// process-wide pointer in the executor, forced by CUPTI's API; it is never a second owner.
std::atomic<CuptiTracer*> g_active{nullptr};
std::atomic<bool> g_started{false};

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kAlign = 8;

std::string cupti_message(const char* what, CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return std::string(what) + ": " + (s != nullptr ? s : "unknown CUPTI error");
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  if (CuptiTracer* t = g_active.load(std::memory_order_acquire); t != nullptr) t->on_buffer(buffer, valid);
  std::free(buffer);
}

void CUPTIAPI resource_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED || data == nullptr) return;
  const auto* res = static_cast<const CUpti_ResourceData*>(data);
  const auto* g = static_cast<const CUpti_GraphData*>(res->resourceDescriptor);
  if (g == nullptr || g->node == nullptr || g->originalNode == nullptr) return;
  std::uint64_t clone = 0, original = 0;
  if (cuptiGetGraphNodeId(g->node, &clone) != CUPTI_SUCCESS) return;
  if (cuptiGetGraphNodeId(g->originalNode, &original) != CUPTI_SUCCESS) return;
  static_cast<CuptiTracer*>(user)->on_node_cloned(clone, original);
}

}  // namespace

bool cupti_started_in_process() noexcept { return g_started.load(std::memory_order_acquire); }

CuptiTracer::CuptiTracer(CuptiCorrelation correlation, bool kernel_records, bool graph_callbacks)
    : correlation_(correlation), kernel_records_(kernel_records) {
  CuptiTracer* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, this)) {
    throw CuptiUnavailable("CUPTI tracer already active in this process");
  }
  g_started.store(true, std::memory_order_release);
  auto fail = [this](const char* what, CUptiResult r) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    g_active.store(nullptr, std::memory_order_release);
    throw CuptiUnavailable(cupti_message(what, r));
  };
  if (auto r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    fail("cuptiActivityRegisterCallbacks", r);
  }
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  // Issue order needs only the device records: the runtime-API records are what cost the host per call.
  const std::size_t enabled = correlation_ == CuptiCorrelation::external_ids ? std::size(kinds) : 3;
  for (std::size_t i = kernel_records_ ? 0 : 1; i < enabled; ++i) {
    if (auto r = cuptiActivityEnable(kinds[i]); r != CUPTI_SUCCESS) fail("cuptiActivityEnable", r);
  }
  // Optional: node clone notifications, to match graph replays to ops. Another subscriber may hold the
  // callback API; tracing works without it.
  CUpti_SubscriberHandle sub = nullptr;
  if (graph_callbacks && cuptiSubscribe(&sub, &resource_callback, this) == CUPTI_SUCCESS) {
    if (cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) == CUPTI_SUCCESS) {
      subscriber_ = sub;
    } else {
      cuptiUnsubscribe(sub);
    }
  }
}

void CuptiTracer::set_kernel_records(bool on) {
  if (on == kernel_records_) return;
  const CUptiResult r = on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                           : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) throw CuptiUnavailable(cupti_message(on ? "cuptiActivityEnable" : "cuptiActivityDisable", r));
  kernel_records_ = on;
}

void CuptiTracer::set_copy_records(bool on) {
  if (on == copy_records_) return;
  for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
    const CUptiResult r = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
    if (r != CUPTI_SUCCESS) throw CuptiUnavailable(cupti_message(on ? "cuptiActivityEnable" : "cuptiActivityDisable", r));
  }
  copy_records_ = on;
}

void CuptiTracer::on_node_cloned(std::uint64_t clone, std::uint64_t original) {
  std::lock_guard lock(mutex_);
  clones_.emplace_back(clone, original);
}

std::uint64_t CuptiTracer::original_node(std::uint64_t id) const {
  std::lock_guard lock(mutex_);
  // Follow clone -> original until the captured graph's own node (a clone of a clone is possible).
  for (int depth = 0; depth < 8; ++depth) {
    auto it = std::find_if(clones_.rbegin(), clones_.rend(), [&](const auto& c) { return c.first == id; });
    if (it == clones_.rend()) break;
    id = it->second;
  }
  return id;
}

CuptiTracer::~CuptiTracer() {
  if (subscriber_ != nullptr) cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_active.store(nullptr, std::memory_order_release);
}

std::uint64_t CuptiTracer::timestamp() {
  g_started.store(true, std::memory_order_release);
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

std::uint64_t CuptiTracer::graph_node_id(void* cu_graph_node) {
  std::uint64_t id = 0;
  if (cuptiGetGraphNodeId(static_cast<CUgraphNode>(cu_graph_node), &id) != CUPTI_SUCCESS) return 0;
  return id;
}

void CuptiTracer::push(std::uint64_t id) {
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void CuptiTracer::pop() {
  std::uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

namespace {
/// The fields every device activity record (kernel, memcpy, memset) carries, under the same names.
template <class Record>
ActivityRecord common_fields(ActivityRecord::Kind kind, const Record& rec) {
  ActivityRecord r;
  r.kind = kind;
  r.start_ns = rec.start;
  r.end_ns = rec.end;
  r.correlation = rec.correlationId;
  r.cupti_stream = rec.streamId;
  r.graph_node = rec.graphNodeId;
  return r;
}
}  // namespace

void CuptiTracer::on_buffer(std::uint8_t* buffer, std::size_t valid_size) {
  std::lock_guard lock(mutex_);
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        ActivityRecord r = common_fields(ActivityRecord::Kind::kernel, *k);
        if (k->name != nullptr) r.name = k->name;
        records_.push_back(std::move(r));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        ActivityRecord r = common_fields(ActivityRecord::Kind::memcpy, *m);
        r.bytes = m->bytes;
        r.copy_kind = m->copyKind;
        records_.push_back(std::move(r));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        ActivityRecord r = common_fields(ActivityRecord::Kind::memset, *m);
        r.bytes = m->bytes;
        records_.push_back(std::move(r));
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
        if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
          external_.emplace_back(x->correlationId, x->externalId);
        }
        break;
      }
      default:
        break;  // runtime API records: only enabled so external correlation records are produced
    }
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) dropped_ += dropped;
}

std::vector<ActivityRecord> CuptiTracer::take() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(mutex_);
  std::unordered_map<std::uint32_t, std::uint64_t> ext;
  ext.reserve(external_.size());
  for (const auto& [c, id] : external_) ext[c] = id;
  std::vector<ActivityRecord> out = std::move(records_);
  records_.clear();
  for (auto& r : out) {
    if (auto it = ext.find(r.correlation); it != ext.end()) r.external_id = it->second;
  }
  external_.clear();
  return out;
}

std::uint64_t CuptiTracer::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void nvtx_push(const char* name) noexcept { nvtxRangePushA(name); }
void nvtx_pop() noexcept { nvtxRangePop(); }

NvtxRange::NvtxRange(const char* name) noexcept { nvtxRangePushA(name); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

}  // namespace streamlab::executor
