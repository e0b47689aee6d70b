#include "gzip_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "streamlab/model/errors.hpp"

namespace streamlab::import::detail {

std::optional<PaddedText> PaddedText::map(const std::filesystem::path& file) {
  auto mapped = model::MappedFile::map(file, kPadding, true);
  if (!mapped) return std::nullopt;
  PaddedText t;
  t.size_ = mapped->size();
  t.capacity_ = mapped->length();
  t.file_ = std::move(mapped);
  return t;
}

void PaddedText::release_before(std::size_t offset) const noexcept {
  if (file_) file_->release_before(offset);
}

char* PaddedText::reserve_more(std::size_t n) {
  if (capacity_ - size_ < n + kPadding) {
    const std::size_t want = std::max(size_ + n + kPadding, capacity_ + capacity_ / 2);
    auto grown = std::make_unique_for_overwrite<char[]>(want);  // not zeroed: the text overwrites it
    if (size_ > 0) std::memcpy(grown.get(), buffer_.get(), size_);
    buffer_ = std::move(grown);
    capacity_ = want;
  }
  return buffer_.get() + size_;
}

namespace {

/// The file's bytes as they are, read straight into a padded buffer sized by the file (no growth copies).
PaddedText read_raw(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw model::InputError(name, "", "", "is a directory, not a file");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw model::InputError(name, "", "", std::string("cannot open file: ") + std::strerror(err));
  }
  struct stat st {};
  const std::size_t expected = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
  PaddedText out;
  // One byte more than the file's size, so that the end of the file is seen without growing the buffer.
  std::size_t chunk = expected > 0 ? expected + 1 : std::size_t{1} << 16;
  for (;;) {
    char* at = out.reserve_more(chunk);
    const ssize_t n = ::read(fd, at, chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw model::InputError(name, "", "", std::string("read error: ") + std::strerror(err));
    }
    out.commit(static_cast<std::size_t>(n));
    chunk = std::max<std::size_t>(out.capacity() - out.size() - PaddedText::kPadding, std::size_t{1} << 16);
  }
  ::close(fd);
  return out;
}

}  // namespace

PaddedText read_maybe_gzip(const std::filesystem::path& file) {
  std::optional<PaddedText> mapped = PaddedText::map(file);
  PaddedText raw = mapped ? std::move(*mapped) : read_raw(file);
  if (raw.size() < 2 || static_cast<unsigned char>(raw.data()[0]) != 0x1f ||
      static_cast<unsigned char>(raw.data()[1]) != 0x8b)
    return raw;
  const std::string name = file.string();
  PaddedText out;
  // The trailer's ISIZE (size mod 2^32) is a good first guess for the inflated size; deflate never
  // expands more than ~1032:1, so a larger ISIZE is a damaged or truncated trailer and is not trusted.
  std::uint32_t isize = 0;
  if (raw.size() >= 4) std::memcpy(&isize, raw.data() + raw.size() - 4, 4);
  const std::size_t guess = isize <= raw.size() * 1032 ? isize : raw.size() * 4;
  std::size_t room = std::max<std::size_t>(guess, raw.size() * 4) + 1;
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw model::InputError(name, "", "", "cannot start gzip inflate");
  int rc = Z_OK;
  std::size_t consumed = 0;
  while (true) {
    char* at = out.reserve_more(room);
    const std::size_t in_left = raw.size() - consumed;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()) + consumed);
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in_left, 1u << 30));
    zs.next_out = reinterpret_cast<Bytef*>(at);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(room, 1u << 30));
    const uInt in_before = zs.avail_in, out_before = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    consumed += in_before - zs.avail_in;
    out.commit(out_before - zs.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && consumed == raw.size()) break;  // input ran out before the end: truncated
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;
    room = out.capacity() - out.size() - PaddedText::kPadding;
    if (room == 0) room = out.size();  // full: grow by half again
  }
  const std::string msg = zs.msg != nullptr ? zs.msg : "";
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    const std::string why = (rc == Z_BUF_ERROR || rc == Z_OK)
                                ? "truncated gzip: the compressed stream ends early (after " +
                                      std::to_string(out.size()) + " inflated bytes)"
                                : "corrupt gzip" + (msg.empty() ? std::string() : " (" + msg + ")");
    throw model::InputError(name, "", "", why);
  }
  return out;
}

}  // namespace streamlab::import::detail
