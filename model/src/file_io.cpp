#include "streamlab/model/file_io.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <signal.h>
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

// Paths of live TemporaryFiles, readable from a signal handler: fixed storage, one atomic flag per slot.
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> ready{false};  // path written completely
  char path[kPathMax];
};
Slot g_slots[kSlots];

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (Slot& s : g_slots)
    if (s.ready.load(std::memory_order_acquire)) ::unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace

TemporaryFile::TemporaryFile(std::string path) : path_(std::move(path)) {
  if (path_.size() >= kPathMax) throw InputError(path_, "", "", "path too long for a temporary file");
  install_handlers_once();
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_slots[i].path, path_.c_str(), path_.size() + 1);
    g_slots[i].ready.store(true, std::memory_order_release);
    slot_ = i;
    return;
  }
  throw std::runtime_error("too many temporary files at once (" + std::to_string(kSlots) + ")");
}

void TemporaryFile::release() noexcept {
  if (slot_ < 0) return;
  g_slots[slot_].ready.store(false, std::memory_order_release);
  g_slots[slot_].used.store(false, std::memory_order_release);
  slot_ = -1;
}

TemporaryFile::~TemporaryFile() {
  if (slot_ < 0) return;
  ::unlink(path_.c_str());
  release();
}

void create_output_directory(const std::filesystem::path& dir, const std::string& for_file) {
  if (dir.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(for_file, "", "", "cannot create the folder " + dir.string() + ": " + ec.message());
}

namespace {

// The temporary file of one atomic write: written through a buffer, renamed over the target by commit(),
// removed when abandoned (an exception on the way).
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& file)
      : target_(file.string()), guard_((create_output_directory(file.parent_path(), target_), temp_name())) {
    fd_ = ::open(guard_.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int err = errno;
      guard_.release();  // never created
      fail(err);
    }
    buffer_.reserve(kBuffer);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);  // the guard then removes the file unless it was committed
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
    if (err == 0 && std::rename(guard_.path().c_str(), target_.c_str()) != 0) err = errno;
    if (err != 0) fail(err);
    guard_.release();  // renamed into place
  }

 private:
  // Every write() hands the kernel at most this much. Writes of a megabyte into the page cache cost
  // several times the system time of 64 KiB ones on the development machine (Linux 6.18, ext4, a virtual
  // machine; `perf`: nearly all of it copying into fresh page-cache folios). Large writes get large
  // folios, taken from large blocks of free memory, which is what such a machine's kernel hands back to
  // its host, so their first touch likely faults on the host too. sim/README's table of phases (the
  // `write` row) measures it on a multi-gigabyte trace.
  static constexpr std::size_t kBuffer = std::size_t{64} << 10;

  void flush() {
    write_all(buffer_);
    buffer_.clear();
  }
  void write_all(std::string_view data) {
    const char* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, std::min(left, kBuffer));
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

  // Same directory as the target, so rename() stays within one file system and is atomic.
  std::string temp_name() const {
    std::random_device rd;
    return target_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  }

  std::string target_;
  TemporaryFile guard_;  // removes the temporary on failure and on SIGINT/SIGTERM/SIGHUP
  int fd_ = -1;
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
