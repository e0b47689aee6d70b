#include "streamlab/model/resource_usage.hpp"

#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

namespace streamlab::model {

ResourceUsage resource_usage() noexcept {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return {};
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return {sec(ru.ru_utime), sec(ru.ru_stime), ru.ru_minflt, ru.ru_maxrss / 1024};  // ru_maxrss: KiB on Linux
}

long resident_mib() noexcept {
  long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  const int n = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) / 1024 : -1;
}

}  // namespace streamlab::model
