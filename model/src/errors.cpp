#include "streamlab/model/errors.hpp"

namespace streamlab::model {
namespace {
std::string compose(const std::string& file, const std::string& place, const std::string& op,
                    const std::string& what) {
  std::string msg = file.empty() ? std::string("<input>") : file;
  if (!place.empty()) msg += ": " + place;
  if (!op.empty()) msg += ": op '" + op + "'";
  msg += ": " + what;
  return msg;
}
}  // namespace

InputError::InputError(std::string file, std::string place, std::string op, const std::string& what)
    : std::runtime_error(compose(file, place, op, what)),
      file_(std::move(file)),
      place_(std::move(place)),
      op_(std::move(op)),
      reason_(what) {}
OutOfMemory::OutOfMemory(const std::string& file, const std::string& step)
    : std::runtime_error((file.empty() ? std::string("<input>") : file) + ": " + step +
                         ": out of memory (the input is too large for this machine's memory)") {}

}  // namespace streamlab::model
