// ===- mote/span.h - A non-owning view of contiguous elements (C++17) -----===
//
// std::span arrives only in C++20 and <span> is not in every freestanding
// toolchain; this is the few lines the runtime needs. A Span never owns: the
// memory it views must outlive it.
//
// ===--------------------------------------------------------------------===
#ifndef MOTE_SPAN_H
#define MOTE_SPAN_H

#include <stddef.h>

namespace mote {

template <typename T> class Span {
public:
  constexpr Span() = default;
  constexpr Span(T *data, size_t size) : data_(data), size_(size) {}
  template <size_t N> constexpr Span(T (&array)[N]) : data_(array), size_(N) {}
  // A Span<const T> from a Span<T>.
  template <typename U>
  constexpr Span(const Span<U> &other) : data_(other.data()), size_(other.size()) {}

  constexpr T *data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr size_t size_bytes() const { return size_ * sizeof(T); }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T &operator[](size_t i) const { return data_[i]; }
  constexpr T *begin() const { return data_; }
  constexpr T *end() const { return data_ + size_; }
  // Elements [offset, offset + count), clamped to the view.
  constexpr Span subspan(size_t offset, size_t count) const {
    if (offset > size_)
      offset = size_;
    if (count > size_ - offset)
      count = size_ - offset;
    return Span(data_ + offset, count);
  }

private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace mote

#endif // MOTE_SPAN_H
