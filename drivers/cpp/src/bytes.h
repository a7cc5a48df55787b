#pragma once
// A growable byte buffer with 64-byte aligned storage, so an object placed at an 8-aligned
// offset is 8-aligned in memory too (in-place objects are read by a cast). Reused across
// objects and pages: clear() keeps the storage.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace serbench {

class Bytes {
 public:
  static constexpr std::size_t kAlignment = 64;

  Bytes() = default;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  Bytes(Bytes&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  ~Bytes() { release(); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }

  void reserve(std::size_t n) {
    if (n > capacity_) reallocate(std::max(n, capacity_ * 2));
  }
  // New bytes are zero.
  void resize(std::size_t n) {
    reserve(n);
    if (n > size_) std::memset(data_ + size_, 0, n - size_);
    size_ = n;
  }
  // n more zero bytes at the end; returns where they start.
  uint8_t* grow_zeroed(std::size_t n) {
    std::size_t at = size_;
    resize(size_ + n);
    return data_ + at;
  }
  void append(const void* p, std::size_t n) {
    if (n == 0) return;  // p may be null then (an empty vector's data)
    reserve(size_ + n);
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void push(uint8_t b) { append(&b, 1); }

 private:
  void reallocate(std::size_t capacity) {
    auto* fresh = static_cast<uint8_t*>(::operator new(capacity, std::align_val_t(kAlignment)));
    if (size_) std::memcpy(fresh, data_, size_);
    release();
    data_ = fresh;
    capacity_ = capacity;
  }
  void release() {
    if (data_) ::operator delete(data_, std::align_val_t(kAlignment));
  }

  uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace serbench
