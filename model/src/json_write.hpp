#pragma once
// Private: pieces of hand-written JSON output (workload and trace writers). Files of millions of ops or
// spans are written straight into a text buffer, never through a DOM; the text equals what nlohmann's
// dump gives for the same values, so files stay byte-identical to those written before.

#include <charconv>
#include <string>
#include <string_view>

namespace streamlab::model::detail {

/// A JSON string literal, escaped as nlohmann's dump does (UTF-8 passes through; text that is not valid
/// UTF-8 is refused with nlohmann's own error).
void append_string(std::string& out, std::string_view s);

template <class Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

}  // namespace streamlab::model::detail
