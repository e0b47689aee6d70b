#include "streamlab/model/text.hpp"

#include <algorithm>
#include <cstring>

namespace streamlab::model {

Text StringTable::intern(std::string_view s) {
  if (s.empty()) return Text();
  const std::lock_guard lock(mutex_);
  if (s.size() > left_) {
    // A new block (a text longer than a block gets one of its own size); the last block's few free
    // bytes are left unused.
    const std::size_t size = std::max(kBlock, s.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    capacity_ += size;
    next_ = blocks_.back().get();
    left_ = size;
  }
  std::memcpy(next_, s.data(), s.size());
  const Text t(std::string_view(next_, s.size()));
  next_ += s.size();
  left_ -= s.size();
  return t;
}

Text StringTable::adopt(Text t) {
  {
    const std::lock_guard lock(mutex_);
    if (t.empty() || (!blocks_.empty() && t.data() >= blocks_.back().get() && t.data() + t.size() <= next_)) return t;
  }
  return intern(t);
}

std::size_t StringTable::capacity() const {
  const std::lock_guard lock(mutex_);
  return capacity_;
}

}  // namespace streamlab::model
