// GPU test main: exits with 77 (ctest's SKIP_RETURN_CODE) when there is no CUDA device, so a CPU-only
// machine reports the tests as skipped. Listing tests needs no device (gtest_discover_tests).
#include <cstdio>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Death tests (a faulting kernel loses its context) re-run the binary instead of forking a process
  // that already holds a CUDA context.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  if (!GTEST_FLAG_GET(list_tests)) {
    int n = 0;
    const cudaError_t s = cudaGetDeviceCount(&n);
    if (s != cudaSuccess || n == 0) {
      std::printf("no CUDA device (%s): GPU tests skipped\n", s != cudaSuccess ? cudaGetErrorString(s) : "0 devices");
      return 77;
    }
  }
  return RUN_ALL_TESTS();
}
