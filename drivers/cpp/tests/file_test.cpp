// Eviction shows what it left cached: nothing for a synced disk file, everything on tmpfs.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "file.h"
#include "test_support.h"

namespace serbench {
namespace {

bool on_tmpfs(const std::filesystem::path& dir) {
  struct statfs s {};
  return ::statfs(dir.c_str(), &s) == 0 && s.f_type == TMPFS_MAGIC;
}

// 1 MiB written, fsynced and read back (so cached) in `dir`.
std::string cached_file(const test::Scratch& dir) {
  const std::string path = dir.path("f.bin");
  const std::string bytes(1 << 20, 'x');
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  EXPECT_EQ(::fsync(fd), 0);
  ::close(fd);
  EXPECT_EQ(test::read_file(path), bytes);
  return path;
}

TEST(Evict, ASyncedDiskFileIsEvictedCompletely) {
  // the test's working directory (the build's): on the project's disk, where /tmp may be tmpfs
  const auto here = std::filesystem::current_path();
  SERBENCH_REQUIRE(!on_tmpfs(here), "no disk to show it on");
  test::Scratch dir(here);
  const std::string path = cached_file(dir);
  const uint64_t pages = (1 << 20) / static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  Residency before = residency(path);
  EXPECT_EQ(before.cached, pages);
  EXPECT_EQ(before.pages, pages);
  Residency after = evict(path);
  EXPECT_EQ(after.cached, 0u);
  EXPECT_EQ(after.pages, pages);
}

TEST(Evict, ATmpfsFileStaysCachedAndSaysSo) {
  const std::filesystem::path shm = "/dev/shm";
  SERBENCH_REQUIRE(std::filesystem::is_directory(shm) && on_tmpfs(shm), "no tmpfs at /dev/shm");
  test::Scratch dir(shm);
  const std::string path = cached_file(dir);
  const uint64_t pages = (1 << 20) / static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  Residency after = evict(path);
  EXPECT_EQ(after.cached, pages);
  EXPECT_EQ(after.pages, pages);
}

}  // namespace
}  // namespace serbench
