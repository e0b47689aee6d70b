// Writes a pair of large synthetic traces of one workload (synthetic_trace.hpp) for
// bench_first_frame.sh:  viz_make_big_pair OUT_DIR [SPANS_PER_TRACE]  ->  OUT_DIR/big.{a,b}.json
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>

#include "synthetic_trace.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: viz_make_big_pair OUT_DIR [SPANS_PER_TRACE]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const std::size_t spans = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  try {
    streamlab::model::save_trace(streamlab::viz::bench::synthetic_trace(1, 1.0, 0, spans), dir / "big.a.json");
    streamlab::model::save_trace(streamlab::viz::bench::synthetic_trace(1, 1.05, 2'000, spans), dir / "big.b.json");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "viz_make_big_pair: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
