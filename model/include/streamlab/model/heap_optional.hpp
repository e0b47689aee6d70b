#pragma once
/// \file heap_optional.hpp
/// An optional value kept on the heap: the size of one pointer where std::optional is as large as the value.
/// For a field that few records of a large array use (an Op's task list: task_pool ops only), so the
/// records of the many that do not use it stay small; copies copy the value, as std::optional's do.

#include <memory>
#include <optional>
#include <utility>

namespace streamlab::model {

template <class T>
class HeapOptional {
 public:
  HeapOptional() noexcept = default;
  HeapOptional(std::nullopt_t) noexcept {}  // NOLINT(google-explicit-constructor): as std::optional
  HeapOptional(const T& v) : p_(std::make_unique<T>(v)) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) HeapOptional(o).swap(*this);
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) noexcept {
    p_.reset();
    return *this;
  }
  HeapOptional& operator=(const T& v) { return assign(v); }
  HeapOptional& operator=(T&& v) { return assign(std::move(v)); }
  ~HeapOptional() = default;

  [[nodiscard]] bool has_value() const noexcept { return p_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  /// The value; has_value() must hold (as std::optional's operator*).
  [[nodiscard]] T& operator*() noexcept { return *p_; }
  [[nodiscard]] const T& operator*() const noexcept { return *p_; }
  [[nodiscard]] T* operator->() noexcept { return p_.get(); }
  [[nodiscard]] const T* operator->() const noexcept { return p_.get(); }
  /// The value, or throws std::bad_optional_access.
  [[nodiscard]] const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <class U>
  [[nodiscard]] T value_or(U&& fallback) const {
    return p_ ? *p_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <class... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() noexcept { p_.reset(); }
  void swap(HeapOptional& o) noexcept { p_.swap(o.p_); }

  /// Equal when both are empty or both hold equal values (as std::optional).
  friend bool operator==(const HeapOptional& a, const HeapOptional& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }

 private:
  template <class V>
  HeapOptional& assign(V&& v) {
    if (p_)
      *p_ = std::forward<V>(v);
    else
      p_ = std::make_unique<T>(std::forward<V>(v));
    return *this;
  }
  std::unique_ptr<T> p_;
};

}  // namespace streamlab::model
