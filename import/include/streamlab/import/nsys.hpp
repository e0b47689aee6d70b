#pragma once
/// \file nsys.hpp
/// Reader of Nsight Systems SQLite exports (`nsys export --type sqlite`).

#include <filesystem>
#include <string>

#include "streamlab/import/capture.hpp"

namespace streamlab::import {

/// Export schema major versions this reader knows (META_DATA_EXPORT's EXPORT_SCHEMA_VERSION).
inline constexpr int kNsysSchemaMajorMin = 2;
inline constexpr int kNsysSchemaMajorMax = 3;

/// Reads CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET / _RUNTIME (and _SYNCHRONIZATION, _DRIVER,
/// TARGET_INFO_CUDA_STREAM where present) with names from StringIds. An unknown schema version, a missing
/// required table or column and a file that is not an SQLite database are InputErrors naming the file and
/// what is missing.
[[nodiscard]] Capture read_nsys(const std::filesystem::path& file);

/// True when the file starts with SQLite's header ("SQLite format 3").
[[nodiscard]] bool is_sqlite_file(const std::filesystem::path& file);

}  // namespace streamlab::import
