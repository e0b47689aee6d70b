#pragma once
// The tables and columns of an `nsys export --type sqlite` file that the Nsight Systems importer reads (and
// a few it ignores, as nsys writes them), in SQL. Shared by the import unit tests, which fill it with rows,
// and the nsys fuzz target, which applies the fuzzer's SQL to a fresh database built from it.

namespace streamlab::testing {

inline constexpr const char* kNsysExportSchema = R"SQL(
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT, correlationId INT,
  nameId INT, returnValue INT, callchainId INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, contextId INT, streamId INT,
  correlationId INT, globalPid INT, demangledName INT, shortName INT, mangledName INT, gridX INT, gridY INT,
  gridZ INT, blockX INT, blockY INT, blockZ INT, registersPerThread INT, staticSharedMemory INT,
  dynamicSharedMemory INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, contextId INT, streamId INT,
  correlationId INT, globalPid INT, bytes INT, copyKind INT, deprecatedSrcId INT, srcKind INT, dstKind INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT, contextId INT, streamId INT,
  correlationId INT, globalPid INT, value INT, bytes INT, memKind INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INT, end INT, deviceId INT, contextId INT, streamId INT,
  correlationId INT, globalPid INT, syncType INT, eventId INT);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INT, hwId INT, vmId INT, processId INT, contextId INT,
  priority INT, flag INT);
)SQL";

}  // namespace streamlab::testing
