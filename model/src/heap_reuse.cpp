#include "streamlab/model/heap_reuse.hpp"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace streamlab::model {

void keep_freed_memory_for_reuse() noexcept {
#if defined(M_MMAP_MAX) && defined(M_TRIM_THRESHOLD)
  // No allocation is mapped on its own (the heap serves them all; glibc still maps when the heap cannot
  // grow), and the heap's top is never trimmed.
  (void)::mallopt(M_MMAP_MAX, 0);
  (void)::mallopt(M_TRIM_THRESHOLD, -1);  // read as the largest size: never
#endif
}

}  // namespace streamlab::model
