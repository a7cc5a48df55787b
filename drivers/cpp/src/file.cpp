#include "file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "protocol.h"

namespace serbench {

namespace {

Failure io_failure(const std::string& path, int error, const char* what) {
  return {error == ENOENT ? Kind::not_found : Kind::internal,
          path + ": " + what + ": " + std::strerror(error)};
}

int open_timed(const std::string& path, int flags, IoTimer& timer) {
  int fd = timer.time([&] { return ::open(path.c_str(), flags | O_CLOEXEC, 0644); });
  if (fd < 0) throw io_failure(path, errno, "open");
  return fd;
}

}  // namespace

File File::open_read(const std::string& path, IoTimer& timer) {
  return File(open_timed(path, O_RDONLY, timer), path, timer);
}

File File::create(const std::string& path, IoTimer& timer) {
  return File(open_timed(path, O_WRONLY | O_CREAT | O_TRUNC, timer), path, timer);
}

File::File(File&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), timer_(other.timer_) {}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

void File::fail(int error) const { throw io_failure(path_, error, "I/O"); }

uint64_t File::size() {
  struct stat st;
  if (timer_->time([&] { return ::fstat(fd_, &st); }) != 0) fail(errno);
  return uint64_t(st.st_size);
}

void File::read_exact(void* buf, std::size_t n, uint64_t offset) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = timer_->time([&] { return ::pread(fd_, p, n, off_t(offset)); });
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    if (got == 0) {
      throw corrupt(path_ + ": ends before byte " + std::to_string(offset + n) + ": truncated");
    }
    p += got;
    n -= std::size_t(got);
    offset += uint64_t(got);
  }
}

void File::write_all(const void* data, std::size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t put = timer_->time([&] { return ::write(fd_, p, n); });
    if (put < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    p += put;
    n -= std::size_t(put);
  }
}

void File::sync() {
  if (timer_->time([&] { return ::fsync(fd_); }) != 0) fail(errno);
}

std::string read_whole(const std::string& path, IoTimer& timer) {
  File file = File::open_read(path, timer);
  std::string bytes(file.size(), '\0');
  file.read_exact(bytes.data(), bytes.size(), 0);
  return bytes;
}

Residency residency(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_failure(path, errno, "open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw io_failure(path, err, "fstat");
  }
  const auto len = static_cast<size_t>(st.st_size);
  if (len == 0) {
    ::close(fd);
    return {};
  }
  void* addr = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (addr == MAP_FAILED) throw io_failure(path, err, "mmap");
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((len + page - 1) / page);
  int rc = ::mincore(addr, len, resident.data());
  err = errno;
  ::munmap(addr, len);
  if (rc != 0) throw io_failure(path, err, "mincore");
  Residency r{0, resident.size()};
  for (unsigned char v : resident) r.cached += v & 1;
  return r;
}

Residency evict(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_failure(path, errno, "open");
  int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (rc != 0) throw io_failure(path, rc, "posix_fadvise(DONTNEED)");
  return residency(path);
}

}  // namespace serbench
