#pragma once
/// \file import.hpp
/// One entry point: detect the trace's format (SQLite header -> Nsight Systems, otherwise Kineto JSON,
/// gzip or not), read it and build the program.

#include <filesystem>

#include "streamlab/import/program_builder.hpp"

namespace streamlab::import {

[[nodiscard]] Capture read_trace(const std::filesystem::path& file);
[[nodiscard]] Imported import_trace(const std::filesystem::path& file, const BuildOptions& options);

}  // namespace streamlab::import
