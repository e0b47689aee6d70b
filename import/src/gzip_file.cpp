#include "gzip_file.hpp"

#include <zlib.h>

#include <cstring>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace streamlab::import::detail {

std::string read_maybe_gzip(const std::filesystem::path& file) {
  std::string raw = model::read_text_file(file);
  if (raw.size() < 2 || static_cast<unsigned char>(raw[0]) != 0x1f || static_cast<unsigned char>(raw[1]) != 0x8b)
    return raw;
  const std::string name = file.string();
  std::string out;
  // The trailer's ISIZE (size mod 2^32) is a good first guess for the inflated size; deflate never
  // expands more than ~1032:1, so a larger ISIZE is a damaged or truncated trailer and is not trusted.
  std::uint32_t isize = 0;
  if (raw.size() >= 4) std::memcpy(&isize, raw.data() + raw.size() - 4, 4);
  const std::size_t guess = isize <= raw.size() * 1032 ? isize : raw.size() * 4;
  out.resize(std::max<std::size_t>(guess, raw.size() * 4) + 1);
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw model::InputError(name, "", "", "cannot start gzip inflate");
  zs.next_in = reinterpret_cast<Bytef*>(raw.data());
  std::size_t produced = 0;
  int rc = Z_OK;
  std::size_t consumed = 0;
  while (true) {
    if (produced == out.size()) out.resize(out.size() * 2);
    const std::size_t in_left = raw.size() - consumed;
    const std::size_t out_left = out.size() - produced;
    zs.next_in = reinterpret_cast<Bytef*>(raw.data() + consumed);
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in_left, 1u << 30));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(out_left, 1u << 30));
    const uInt in_before = zs.avail_in, out_before = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    consumed += in_before - zs.avail_in;
    produced += out_before - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && consumed == raw.size()) break;  // input ran out before the end: truncated
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
  }
  const std::string msg = zs.msg != nullptr ? zs.msg : "";
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    const std::string why = (rc == Z_BUF_ERROR || rc == Z_OK)
                                ? "truncated gzip: the compressed stream ends early (after " +
                                      std::to_string(produced) + " inflated bytes)"
                                : "corrupt gzip" + (msg.empty() ? std::string() : " (" + msg + ")");
    throw model::InputError(name, "", "", why);
  }
  out.resize(produced);
  return out;
}

}  // namespace streamlab::import::detail
