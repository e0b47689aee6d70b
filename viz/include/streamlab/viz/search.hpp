#pragma once
/// \file search.hpp
/// Finding ops by id or name: the viewer's search box. Runs when the text changes, never per frame.

#include <cstdint>
#include <string_view>
#include <vector>

#include "streamlab/viz/trace_set.hpp"

namespace streamlab::viz {

/// Keys whose op id or name (in any trace) contains `text`, ignoring ASCII case, in key order. An empty
/// text matches nothing.
[[nodiscard]] std::vector<std::uint32_t> search_ops(const TraceSet& set, std::string_view text);

/// The full name of a key's op (from the first trace that has it), "" when no trace has it.
[[nodiscard]] std::string_view op_name_of_key(const TraceSet& set, std::uint32_t key) noexcept;

}  // namespace streamlab::viz
