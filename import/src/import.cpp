#include "streamlab/import/import.hpp"

#include "streamlab/import/kineto.hpp"
#include "streamlab/import/nsys.hpp"
#include "streamlab/model/errors.hpp"

namespace streamlab::import {

Capture read_trace(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) throw model::InputError(file.string(), "", "", "no such file");
  return is_sqlite_file(file) ? read_nsys(file) : read_kineto(file);
}

Imported import_trace(const std::filesystem::path& file, const BuildOptions& options) {
  return build_program(read_trace(file), options);
}

}  // namespace streamlab::import
