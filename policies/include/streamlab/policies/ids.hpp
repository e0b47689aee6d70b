#pragma once
/// \file ids.hpp
/// Strong ids for backend objects. Policies and the Dispatcher only ever hold ids, never handles.

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace streamlab::policies {

template <class Tag>
class Id {
 public:
  static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
  constexpr Id() noexcept = default;
  constexpr explicit Id(std::uint32_t v) noexcept : value_(v) {}
  /// Rejects `Id(nullptr)` (an id is not a handle) while keeping `StreamId{0}` (the legacy NULL stream)
  /// unambiguous: a plain `Id(std::nullptr_t)` overload would make the literal 0 ambiguous.
  template <class T>
    requires std::same_as<T, std::nullptr_t>
  Id(T) = delete;
  [[nodiscard]] constexpr std::uint32_t value() const noexcept { return value_; }
  [[nodiscard]] constexpr bool valid() const noexcept { return value_ != kInvalid; }
  friend constexpr auto operator<=>(Id, Id) noexcept = default;

 private:
  std::uint32_t value_ = kInvalid;
};

using StreamId = Id<struct StreamTag>;
using EventId = Id<struct EventTag>;

}  // namespace streamlab::policies

template <class Tag>
struct std::hash<streamlab::policies::Id<Tag>> {
  std::size_t operator()(streamlab::policies::Id<Tag> id) const noexcept { return id.value(); }
};
