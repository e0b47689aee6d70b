// Output files: one rule for folders (created when missing) and no temporary file left behind, on error
// or when the process is interrupted.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "streamlab/model/errors.hpp"
#include "streamlab/model/file_io.hpp"

namespace fs = std::filesystem;
using namespace streamlab::model;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("streamlab-output-files-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  return d;
}

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// Finding: `experiment --out` created missing folders while sim, gen and report refused them.
TEST(OutputFiles, MissingFoldersAreCreated) {
  const fs::path dir = scratch("created");
  const fs::path file = dir / "a" / "b" / "out.json";
  write_file_atomically(file, "{}\n");
  EXPECT_EQ(read_text_file(file), "{}\n");
  EXPECT_EQ(files_in(dir / "a" / "b"), 1U);  // no temporary left
  fs::remove_all(dir.parent_path());
}

TEST(OutputFiles, FailedWriteLeavesNothing) {
  const fs::path dir = scratch("failed");
  fs::create_directories(dir / "target.json");  // a folder where the file should go: rename fails
  EXPECT_THROW(write_file_atomically(dir / "target.json", "x"), InputError);
  EXPECT_EQ(files_in(dir), 1U);
  fs::remove_all(dir.parent_path());
}

// Finding: an interrupted `sim` left its *.tmp.* file behind. A live temporary file is removed when
// SIGINT or SIGTERM ends the process, which still dies of the signal.
TEST(OutputFiles, InterruptRemovesLiveTemporaryFiles) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path dir = scratch("signal-" + std::to_string(sig));
    fs::create_directories(dir);
    const fs::path tmp = dir / "out.json.tmp.1";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      TemporaryFile guard(tmp.string());
      write_file_atomically(dir / "other.json", "done");  // guards come and go; this one stays
      FILE* f = std::fopen(tmp.c_str(), "w");
      if (f != nullptr) std::fclose(f);
      std::raise(sig);
      ::_exit(0);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), sig);
    }
    EXPECT_FALSE(fs::exists(tmp));
    EXPECT_TRUE(fs::exists(dir / "other.json"));
    EXPECT_EQ(files_in(dir), 1U);
    fs::remove_all(dir.parent_path());
  }
}

}  // namespace

namespace {

// Finding: out of memory printed only "std::bad_alloc". Each step names its file and itself.
TEST(OutputFiles, OutOfMemoryNamesTheFileAndTheStep) {
  try {
    with_step("big.json", "parsing", []() -> int { throw std::bad_alloc(); });
    ADD_FAILURE() << "no error";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(std::string(e.what()).rfind("big.json: parsing: out of memory", 0), 0U) << e.what();
  }
  EXPECT_EQ(with_step("f", "reading", [] { return 7; }), 7);
}

}  // namespace
