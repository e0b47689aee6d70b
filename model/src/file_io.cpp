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

void write_file_atomically(const std::filesystem::path& file, std::string_view contents) {
  const std::string target = file.string();
  // Same directory as the target, so rename() stays within one file system and is atomic.
  std::random_device rd;
  const std::string tmp = target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw InputError(target, "", "", std::string("cannot write file: ") + std::strerror(err));
  }
  const char* p = contents.data();
  std::size_t left = contents.size();
  int err = 0;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    std::remove(tmp.c_str());
    throw InputError(target, "", "", std::string("cannot write file: ") + std::strerror(err));
  }
}

}  // namespace streamlab::model
