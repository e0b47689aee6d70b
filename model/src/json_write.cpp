#include "json_write.hpp"

#include <algorithm>

#include <simdjson.h>

#include "json_util.hpp"

namespace streamlab::model::detail {

void append_string(std::string& out, std::string_view s) {
  // The usual id or name: printable ASCII with nothing to escape, copied as it is.
  if (std::all_of(s.begin(), s.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
      })) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  // nlohmann's dump throws on invalid UTF-8: keep that behaviour (and its message) for such text.
  if (!simdjson::validate_utf8(s.data(), s.size())) {
    out += Json(std::string(s)).dump();
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the characters not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

}  // namespace streamlab::model::detail
