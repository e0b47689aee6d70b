#include "streamlab/model/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace streamlab::model {
namespace {
std::size_t page_size() noexcept { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
}  // namespace

std::optional<MappedFile> MappedFile::map(const std::filesystem::path& file, std::size_t padding, bool populate) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    ::close(fd);
    return std::nullopt;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::size_t page = page_size();
  const std::size_t length = (size + padding + page - 1) / page * page;
  // Zero pages for the whole length first, then the file over their start: the bytes past the end of
  // the file, in its last page and beyond, read as zeros.
  void* base = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    ::close(fd);
    return std::nullopt;
  }
  void* at = ::mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | (populate ? MAP_POPULATE : 0), fd, 0);
  ::close(fd);
  if (at == MAP_FAILED) {
    ::munmap(base, length);
    return std::nullopt;
  }
  MappedFile m;
  m.base_ = base;
  m.size_ = size;
  m.length_ = length;
  return m;
}

MappedFile::~MappedFile() {
  if (base_ != nullptr) ::munmap(base_, length_);
}

void MappedFile::release_before(std::size_t offset) const noexcept {
  if (base_ == nullptr) return;
  const std::size_t length = std::min(offset, size_) / page_size() * page_size();
  if (length > 0) (void)::madvise(base_, length, MADV_DONTNEED);
}

void MappedFile::load_ahead(std::size_t offset, std::size_t length) const noexcept {
#ifdef MADV_POPULATE_READ
  if (base_ == nullptr || offset >= size_) return;
  const std::size_t begin = offset / page_size() * page_size();
  const std::size_t end = std::min(offset + length, size_);
  (void)::madvise(static_cast<char*>(base_) + begin, end - begin, MADV_POPULATE_READ);
#else
  (void)offset;
  (void)length;
#endif
}

}  // namespace streamlab::model
