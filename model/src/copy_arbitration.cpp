#include "streamlab/model/copy_arbitration.hpp"

#include <algorithm>

namespace streamlab::model {

std::uint32_t bit_reversed_rank(std::uint32_t slot, std::uint32_t queues) noexcept {
  std::uint32_t slots = 1;
  while (slots < queues) slots <<= 1;
  std::uint32_t rank = 0;
  for (std::uint32_t bit = 1, to = slots >> 1; bit < slots; bit <<= 1, to >>= 1)
    if ((slot & bit) != 0) rank |= to;
  return rank;
}

std::uint32_t bit_reversed_distance(std::uint32_t from, std::uint32_t to, std::uint32_t queues) noexcept {
  std::uint32_t slots = 1;
  while (slots < queues) slots <<= 1;
  return (bit_reversed_rank(to, queues) + slots - bit_reversed_rank(from, queues) - 1) % slots;
}

std::vector<std::uint32_t> copy_service_order(const std::vector<std::uint32_t>& streams, std::uint32_t queues,
                                              bool bit_reversed, std::uint32_t offset) {
  std::vector<std::uint32_t> order;
  if (streams.empty() || queues == 0) return order;
  auto queue = [&](std::uint32_t i) { return (streams[i] + offset) % queues; };
  std::vector<bool> done(streams.size(), false);
  std::uint32_t last = queue(0);
  order.push_back(0);
  done[0] = true;
  while (order.size() < streams.size()) {
    std::uint32_t pick = static_cast<std::uint32_t>(streams.size());
    for (std::uint32_t i = 0; i < streams.size() && pick == streams.size(); ++i)
      if (!done[i] && queue(i) == last) pick = i;  // the oldest copy of the queue served last
    if (pick == streams.size()) {
      if (!bit_reversed) {
        pick = static_cast<std::uint32_t>(std::find(done.begin(), done.end(), false) - done.begin());
      } else {
        std::uint32_t best = ~0u;
        for (std::uint32_t i = 0; i < streams.size(); ++i) {
          if (done[i]) continue;
          const std::uint32_t d = bit_reversed_distance(last, queue(i), queues);
          if (d < best) best = d, pick = i;
        }
      }
    }
    done[pick] = true;
    last = queue(pick);
    order.push_back(pick);
  }
  return order;
}

std::optional<CopyArbitration> classify_copy_arbitration(const std::vector<std::uint32_t>& streams,
                                                         const std::vector<std::uint32_t>& observed) {
  std::optional<CopyArbitration> found;
  for (const std::uint32_t queues : {4u, 8u})
    for (const bool bit_reversed : {false, true})
      for (std::uint32_t offset = 0; offset < queues; ++offset) {
        if (copy_service_order(streams, queues, bit_reversed, offset) != observed) continue;
        const CopyArbitration a{queues, bit_reversed};
        if (found && !(*found == a)) return std::nullopt;  // two models explain it
        found = a;
        break;
      }
  return found;
}

}  // namespace streamlab::model
