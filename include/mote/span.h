// ===- mote/span.h - A non-owning view of contiguous elements (C++17) -----===
//
// std::span arrives only in C++20 and <span> is not in every freestanding
// toolchain; this is the few lines the runtime needs. A Span never owns: the
// memory it views must outlive it. It is made implicitly from a C array, or
// from any container with data() and size() (std::vector, std::array, a
// Span of non-const elements), so calls take `x` where they take a Span.
//
// ===--------------------------------------------------------------------===
#ifndef MOTE_SPAN_H
#define MOTE_SPAN_H

#include <stddef.h>

namespace mote {

namespace span_detail {
// <type_traits> is not in every bare-metal toolchain: the two traits needed.
template <bool Condition> struct EnableIf {};
template <> struct EnableIf<true> { using type = int; };
template <typename T> struct RemovePointer {};
template <typename T> struct RemovePointer<T *> { using type = T; };
template <typename C> C &lvalue();
} // namespace span_detail

template <typename T> class Span {
public:
  using element_type = T;

  constexpr Span() = default;
  constexpr Span(T *data, size_t size) : data_(data), size_(size) {}
  template <size_t N> constexpr Span(T (&array)[N]) : data_(array), size_(N) {}
  // A container whose data() points to elements a T* can point to.
  template <typename C, typename Pointer = decltype(span_detail::lvalue<C>().data()),
            typename span_detail::EnableIf<sizeof(static_cast<T *>(Pointer())) != 0>::type = 0,
            typename = decltype(span_detail::lvalue<C>().size())>
  constexpr Span(C &container) : data_(container.data()), size_(container.size()) {}
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

// The Span an array or container is viewed as, its element type deduced:
// make_span(x) for `float x[8]` is a Span<float>, for a const
// std::vector<int8_t> a Span<const int8_t>.
template <typename T, size_t N> constexpr Span<T> make_span(T (&array)[N]) {
  return Span<T>(array);
}
template <typename C, typename T = typename span_detail::RemovePointer<
                          decltype(span_detail::lvalue<C>().data())>::type>
constexpr Span<T> make_span(C &container) {
  return Span<T>(container.data(), container.size());
}

} // namespace mote

#endif // MOTE_SPAN_H
