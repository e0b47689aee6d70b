#pragma once
/// \file heap_reuse.hpp
/// Keeping freed memory in the process for the next allocation, for commands that build and drop arrays
/// of hundreds of megabytes (ten-million-op workloads and traces).
///
/// By default the C library maps every allocation above a few megabytes afresh and unmaps it when it is
/// freed, so each large temporary array (sort buffers, interval lists, CSR rows) is faulted in and
/// cleared page by page again, and on a virtual machine whose freed pages go back to the host each of
/// those pages also costs the host a fault. A million-op run never notices (its arrays are small enough
/// to be reused from the heap); at ten million ops this was a second or more of system time per command
/// (tests/bench/scale_table.md). Kept in the heap, a page is faulted once per run. The cost: memory the
/// process freed stays counted as its own until it exits (peak resident memory grows by the heap's
/// fragmentation only, a few percent where measured).

namespace streamlab::model {

/// From now on, serve every allocation from the heap and never give freed memory back to the system
/// before the process exits. Call once, early, from a command that reads large files; best effort (the
/// C library may ignore it; nothing else changes).
void keep_freed_memory_for_reuse() noexcept;

}  // namespace streamlab::model
