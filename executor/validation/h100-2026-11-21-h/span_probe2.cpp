// Exploration probe behind span-probe-2.txt (2026-11-21): span_probe.cpp with grids around a full first wave and a count
// of the blocks that start late (more than 3 us after the first, before the first block ends). Built as span_probe.cpp.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <map>
#include "streamlab/executor/kernels.hpp"
#include "streamlab/executor/tracer.hpp"
using namespace streamlab::executor;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1);} } while (0)
static double med(std::vector<double> v) { if (v.empty()) return -1; std::sort(v.begin(), v.end()); return v[v.size()/2]; }
struct KStat { double first_start, last_start, last_end; int late; double late_min; int late_sm; };
static KStat kstat(kernels::BlockRecord* d, unsigned n) {
  std::vector<kernels::BlockRecord> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(kernels::BlockRecord), cudaMemcpyDeviceToHost));
  KStat s{1e30, 0, 0};
  double first_end = 1e30;
  for (auto& x : h) { s.first_start = std::min(s.first_start, (double)x.start_ns); first_end = std::min(first_end, (double)x.end_ns); s.last_end = std::max(s.last_end, (double)x.end_ns); }
  for (auto& x : h) if (x.start_ns < first_end) s.last_start = std::max(s.last_start, (double)x.start_ns);
  s.late = 0; s.late_min = 1e30; s.late_sm = -1;
  for (auto& x : h) if (x.start_ns > s.first_start + 3000 && x.start_ns < first_end) { ++s.late; s.late_min = std::min(s.late_min, x.start_ns - s.first_start); s.late_sm = (int)x.sm; }
  return s;
}
int main() {
  CK(cudaSetDevice(0)); CK(cudaFree(nullptr));
  cudaStream_t s, s2; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  struct Shape { unsigned g, t; std::uint64_t ns; };
  std::vector<Shape> shapes = {{262,1024,20000},{263,1024,20000},{264,1024,20000},{264,1024,60000},{1050,256,20000},{1055,256,20000},{1056,256,20000},{1056,256,60000},
    {792,256,20000},{924,256,20000},{396,512,20000},{528,512,20000},{2112,128,20000},{2100,128,20000},{1584,128,20000},{2112,1024,25000}};
  const int K = 9;
  std::vector<kernels::BlockRecord*> rec(K);
  for (auto& r : rec) CK(cudaMalloc(&r, 4096 * sizeof(kernels::BlockRecord)));
  for (int traced = 0; traced < 2; ++traced) {
    std::printf("\n=== %s\n", traced ? "TRACED (CUPTI on)" : "untraced");
    std::printf("%5s %5s %7s | %9s %9s %9s | %9s %9s %9s %9s\n", "grid","thr","blk_us","spread","ik_span-b","ik_gap","cu_span-b","pad","cu_gap","head");
    CuptiTracer* tr = traced ? new CuptiTracer() : nullptr;
    for (auto& sh : shapes) {
      std::vector<double> spread, ikspan, ikgap, cuspan, pad, cugap, head;
      for (int rep = 0; rep < 3; ++rep) {
        if (tr) (void)tr->take();
        for (int k = 0; k < K; ++k) {
          if (tr) CuptiTracer::push(k + 1);
          CK(kernels::launch_spin(dim3(sh.g), dim3(sh.t), 0, s, sh.ns, rec[k]));
          if (tr) CuptiTracer::pop();
        }
        CK(cudaStreamSynchronize(s));
        std::vector<KStat> ks; for (int k = 0; k < K; ++k) ks.push_back(kstat(rec[k], sh.g));
        std::map<std::uint64_t, std::pair<double,double>> cu;
        if (tr) for (auto& a : tr->take()) if (a.kind == ActivityRecord::Kind::kernel && a.external_id) cu[a.external_id] = {(double)a.start_ns, (double)a.end_ns};
        for (int k = 1; k < K; ++k) {  // skip the first (issue lag)
          spread.push_back(ks[k].last_start - ks[k].first_start);
          ikspan.push_back(ks[k].last_end - ks[k].first_start - sh.ns);
          ikgap.push_back(ks[k].first_start - ks[k-1].last_end);
          if (cu.count(k+1) && cu.count(k)) {
            auto c = cu[k+1]; auto p = cu[k];
            cuspan.push_back(c.second - c.first - sh.ns);
            pad.push_back((c.second - c.first) - (ks[k].last_end - ks[k].first_start));
            cugap.push_back(c.first - p.second);
            head.push_back(ks[k].first_start - c.first);
          }
        }
      }
      std::printf("   late blocks in first wave (last rep, kernels 1..): ");
      for (int k = 1; k < K; ++k) { auto q = kstat(rec[k], sh.g); std::printf("%d@%.0f(sm%d) ", q.late, q.late < 1 ? 0.0 : q.late_min, q.late_sm); }
      std::printf("\n");
      std::printf("%5u %5u %7.0f | %9.0f %9.0f %9.0f | %9.0f %9.0f %9.0f %9.0f\n", sh.g, sh.t, sh.ns/1000.0, med(spread), med(ikspan), med(ikgap), med(cuspan), med(pad), med(cugap), med(head));
    }
    // cross-stream event wait: A on s (1x64 20us), record, s2 waits, B on s2
    {
      cudaEvent_t e; CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      std::vector<double> ik, cug;
      for (int rep = 0; rep < 11; ++rep) {
        if (tr) (void)tr->take();
        if (tr) CuptiTracer::push(1);
        CK(kernels::launch_spin(dim3(1), dim3(64), 0, s, 50000, rec[0]));
        if (tr) CuptiTracer::pop();
        CK(cudaEventRecord(e, s)); CK(cudaStreamWaitEvent(s2, e, 0));
        if (tr) CuptiTracer::push(2);
        CK(kernels::launch_spin(dim3(1), dim3(64), 0, s2, 20000, rec[1]));
        if (tr) CuptiTracer::pop();
        CK(cudaDeviceSynchronize());
        auto a = kstat(rec[0], 1), b = kstat(rec[1], 1);
        if (rep) ik.push_back(b.first_start - a.last_end);
        if (tr) { std::map<std::uint64_t, std::pair<double,double>> cu; for (auto& x : tr->take()) if (x.kind == ActivityRecord::Kind::kernel && x.external_id) cu[x.external_id] = {(double)x.start_ns, (double)x.end_ns};
          if (rep && cu.count(1) && cu.count(2)) cug.push_back(cu[2].first - cu[1].second); }
      }
      std::printf("event wait (1x64): in-kernel gap %.0f ns, CUPTI gap %.0f ns\n", med(ik), med(cug));
    }
    delete tr;
  }
  return 0;
}
