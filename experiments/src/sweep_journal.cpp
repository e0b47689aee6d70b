// The sweep journal: checksummed lines, appended whole, recovered on open.
#include "streamlab/experiments/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "streamlab/experiments/sweep_plan.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::experiments {

namespace {
constexpr std::string_view kHeader = "# streamlab sweep journal v1\n";

[[noreturn]] void fail(const std::filesystem::path& f, const std::string& what) {
  throw model::InputError(f.string(), "", "", what);
}

/// key and payload of one line (without its newline), or false when the line is not valid.
bool parse_line(std::string_view line, std::string& key, std::string& payload) {
  const std::size_t t2 = line.rfind('\t');
  if (t2 == std::string_view::npos) return false;
  const std::size_t t1 = line.rfind('\t', t2 - 1);
  if (t1 == std::string_view::npos || t2 == 0) return false;
  if (fnv1a_hex(line.substr(0, t2)) != line.substr(t2 + 1)) return false;
  try {
    key = nlohmann::json::parse(line.substr(0, t1)).get<std::string>();
  } catch (const std::exception&) {
    return false;
  }
  payload = std::string(line.substr(t1 + 1, t2 - t1 - 1));
  return true;
}
}  // namespace

std::string SweepJournal::format_line(std::string_view key, std::string_view payload) {
  std::string line = nlohmann::json(std::string(key)).dump();
  line += '\t';
  line += payload;
  const std::string sum = fnv1a_hex(line);
  line += '\t';
  line += sum;
  return line;
}

SweepJournal::SweepJournal(std::filesystem::path file) : file_(std::move(file)) {
  fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(file_, std::string("cannot open the sweep journal: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fail(file_, "another sweep is writing into this folder (its journal is locked)");
  }
  std::string text;
  char buf[1 << 16];
  ssize_t n = 0;
  while ((n = ::read(fd_, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  // A new journal, or one whose header a kill tore: start it over.
  const auto start_fresh = [&] {
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0 ||
        ::write(fd_, kHeader.data(), kHeader.size()) != static_cast<ssize_t>(kHeader.size()))
      fail(file_, std::string("cannot write the sweep journal: ") + std::strerror(errno));
  };
  if (text.size() < kHeader.size() && kHeader.rfind(text, 0) == 0) {
    start_fresh();
    return;
  }
  if (text.rfind(kHeader, 0) != 0)
    fail(file_, "not a streamlab sweep journal (first line differs); remove it or choose another -o folder");
  std::size_t good_end = kHeader.size();
  std::size_t pos = good_end;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {  // torn last line
      ++dropped_;
      break;
    }
    std::string key, payload;
    if (parse_line(std::string_view(text).substr(pos, nl - pos), key, payload)) {
      entries_[std::move(key)] = std::move(payload);
      good_end = nl + 1;
    } else {
      ++dropped_;
      // A bad line in the middle (not a torn tail) is skipped; its unit runs again.
      if (nl + 1 < text.size()) good_end = nl + 1;
    }
    pos = nl + 1;
  }
  if (good_end < text.size() && ::ftruncate(fd_, static_cast<off_t>(good_end)) != 0)
    fail(file_, std::string("cannot cut the torn tail of the sweep journal: ") + std::strerror(errno));
  if (::lseek(fd_, 0, SEEK_END) < 0) fail(file_, std::string("cannot seek the sweep journal: ") + std::strerror(errno));
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

void SweepJournal::append(std::string_view key, std::string_view payload) {
  std::string line = format_line(key, payload);
  line += '\n';
  // One write of the whole line: a kill leaves either the line or a torn tail that open() cuts off.
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(file_, std::string("cannot append to the sweep journal: ") + std::strerror(errno));
    }
    off += static_cast<std::size_t>(n);
  }
}

void SweepJournal::sync() {
  if (::fsync(fd_) != 0) fail(file_, std::string("cannot sync the sweep journal: ") + std::strerror(errno));
}

}  // namespace streamlab::experiments
