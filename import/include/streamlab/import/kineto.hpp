#pragma once
/// \file kineto.hpp
/// Reader of PyTorch profiler (Kineto) Chrome traces: `.json` or gzip-compressed `.json.gz`.

#include <filesystem>
#include <string>
#include <string_view>

#include "streamlab/import/capture.hpp"

namespace streamlab::import {

/// Reads a Kineto trace file (gzip detected by its magic bytes, not its name). A missing file, a truncated
/// or corrupt gzip stream and malformed JSON are InputErrors naming the file.
[[nodiscard]] Capture read_kineto(const std::filesystem::path& file);

/// Parses Kineto trace text. Takes `traceEvents` entries with `ph: "X"` and `cat` kernel, gpu_memcpy,
/// gpu_memset, cuda_runtime, cuda_driver, cuda_sync and cuda_event, and `ac2g` flow events (used to link a
/// record whose args carry no correlation id). `source` names the file in errors.
[[nodiscard]] Capture parse_kineto(std::string_view json_text, const std::string& source);

}  // namespace streamlab::import
