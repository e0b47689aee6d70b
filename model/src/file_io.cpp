#include "streamlab/model/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "streamlab/model/errors.hpp"

namespace streamlab::model {

std::string read_text_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file.string(), "", "", "is a directory, not a file");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw InputError(file.string(), "", "", std::string("cannot open file: ") + std::strerror(err));
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw InputError(file.string(), "", "", std::string("read error: ") + std::strerror(err));
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

namespace {

// The temporary file of one atomic write: written through a buffer, renamed over the target by commit(),
// removed when abandoned (an exception on the way).
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& file) : target_(file.string()) {
    // Same directory as the target, so rename() stays within one file system and is atomic.
    std::random_device rd;
    tmp_ = target_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(errno);
    buffer_.reserve(kBuffer);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) std::remove(tmp_.c_str());
  }

  void write(std::string_view piece) {
    if (buffer_.size() + piece.size() > kBuffer) {
      flush();
      if (piece.size() >= kBuffer) return write_all(piece);
    }
    buffer_.append(piece);
  }

  void commit() {
    flush();
    int err = 0;
    if (::fsync(fd_) != 0) err = errno;
    if (::close(fd_) != 0 && err == 0) err = errno;
    fd_ = -1;
    if (err == 0 && std::rename(tmp_.c_str(), target_.c_str()) != 0) err = errno;
    if (err != 0) fail(err);
    committed_ = true;
  }

 private:
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;

  void flush() {
    write_all(buffer_);
    buffer_.clear();
  }
  void write_all(std::string_view data) {
    const char* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(errno);
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  [[noreturn]] void fail(int err) const {
    throw InputError(target_, "", "", std::string("cannot write file: ") + std::strerror(err));
  }

  std::string target_;
  std::string tmp_;
  int fd_ = -1;
  bool committed_ = false;
  std::string buffer_;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::function<void(const TextSink&)>& produce) {
  TempFile out(file);
  produce([&out](std::string_view piece) { out.write(piece); });
  out.commit();
}

void write_file_atomically(const std::filesystem::path& file, std::string_view contents) {
  write_file_atomically(file, [contents](const TextSink& sink) { sink(contents); });
}

}  // namespace streamlab::model
