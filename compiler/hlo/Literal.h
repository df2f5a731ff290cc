//===- Literal.h - Host values of HLO shapes --------------------*- C++ -*-===//
///
/// \file
/// A Literal holds a value of an HLO shape in host memory: an array's elements
/// in row-major logical order (independent of the shape's layout), or the
/// elements of a tuple. Constants, evaluator values and .npy data are Literals.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_LITERAL_H
#define MOTE_HLO_LITERAL_H

#include "hlo/FloatTypes.h"
#include "hlo/Shape.h"

#include "llvm/ADT/ArrayRef.h"

#include <cassert>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace mote::hlo {

/// The C++ type a Literal stores one element of `T` as. Sub-byte integers take
/// a byte each; f8 types are kept as their raw bits.
template <PrimitiveType T> struct NativeTypeOf;
#define MOTE_NATIVE_TYPE(PT, CT)                                                                   \
  template <> struct NativeTypeOf<PrimitiveType::PT> {                                             \
    using type = CT;                                                                               \
  };
MOTE_NATIVE_TYPE(Pred, bool)
MOTE_NATIVE_TYPE(S2, int8_t)
MOTE_NATIVE_TYPE(S4, int8_t)
MOTE_NATIVE_TYPE(S8, int8_t)
MOTE_NATIVE_TYPE(S16, int16_t)
MOTE_NATIVE_TYPE(S32, int32_t)
MOTE_NATIVE_TYPE(S64, int64_t)
MOTE_NATIVE_TYPE(U2, uint8_t)
MOTE_NATIVE_TYPE(U4, uint8_t)
MOTE_NATIVE_TYPE(U8, uint8_t)
MOTE_NATIVE_TYPE(U16, uint16_t)
MOTE_NATIVE_TYPE(U32, uint32_t)
MOTE_NATIVE_TYPE(U64, uint64_t)
MOTE_NATIVE_TYPE(BF16, BFloat16)
MOTE_NATIVE_TYPE(F16, Float16)
MOTE_NATIVE_TYPE(F32, float)
MOTE_NATIVE_TYPE(F64, double)
MOTE_NATIVE_TYPE(C64, std::complex<float>)
MOTE_NATIVE_TYPE(C128, std::complex<double>)
#undef MOTE_NATIVE_TYPE
template <PrimitiveType T> using NativeType = typename NativeTypeOf<T>::type;

/// Tag passed to visitors: `Tag::value` is the PrimitiveType, `Tag::type` its NativeType.
template <PrimitiveType T> struct TypeTag {
  static constexpr PrimitiveType value = T;
  using type = NativeType<T>;
};

/// Calls `fn(TypeTag<T>{})` for the element type `type` and returns its result.
/// Only for the types with a NativeType (not f8, tuple, token); `fallback()` is
/// called for the others.
template <typename Fn, typename Fallback>
decltype(auto) visitElementType(PrimitiveType type, Fn &&fn, Fallback &&fallback) {
  switch (type) {
#define MOTE_CASE(PT)                                                                              \
  case PrimitiveType::PT:                                                                          \
    return fn(TypeTag<PrimitiveType::PT>{});
    MOTE_CASE(Pred)
    MOTE_CASE(S2)
    MOTE_CASE(S4)
    MOTE_CASE(S8)
    MOTE_CASE(S16)
    MOTE_CASE(S32)
    MOTE_CASE(S64)
    MOTE_CASE(U2)
    MOTE_CASE(U4)
    MOTE_CASE(U8)
    MOTE_CASE(U16)
    MOTE_CASE(U32)
    MOTE_CASE(U64)
    MOTE_CASE(BF16)
    MOTE_CASE(F16)
    MOTE_CASE(F32)
    MOTE_CASE(F64)
    MOTE_CASE(C64)
    MOTE_CASE(C128)
#undef MOTE_CASE
  default:
    return fallback();
  }
}

class Literal {
public:
  Literal() = default;
  /// A zero-filled value of `shape` (tuples get zero-filled elements).
  explicit Literal(const Shape &shape);

  template <typename T> static Literal scalar(PrimitiveType type, T value) {
    Literal literal(Shape::scalar(type));
    literal.set<T>(0, value);
    return literal;
  }
  static Literal tuple(std::vector<Literal> elements);

  const Shape &shape() const { return shape_; }
  /// Replaces the shape's layout; the logical contents do not change.
  void setLayout(std::optional<Layout> layout) { shape_.setLayout(std::move(layout)); }
  bool isValid() const { return shape_.isValid(); }

  // Arrays -----------------------------------------------------------------
  int64_t elementCount() const { return shape_.isArray() ? shape_.elementCount() : 0; }
  llvm::MutableArrayRef<uint8_t> bytes() { return bytes_; }
  llvm::ArrayRef<uint8_t> bytes() const { return bytes_; }

  template <typename T> T *data() {
    assert(sizeof(T) == static_cast<size_t>(storageBytes(shape_.elementType())));
    return reinterpret_cast<T *>(bytes_.data());
  }
  template <typename T> const T *data() const {
    assert(sizeof(T) == static_cast<size_t>(storageBytes(shape_.elementType())));
    return reinterpret_cast<const T *>(bytes_.data());
  }
  template <typename T> T get(int64_t linear) const {
    T value;
    std::memcpy(&value, bytes_.data() + linear * sizeof(T), sizeof(T));
    return value;
  }
  template <typename T> void set(int64_t linear, T value) {
    std::memcpy(bytes_.data() + linear * sizeof(T), &value, sizeof(T));
  }

  /// Row-major linear position of a multi-dimensional index.
  int64_t linearIndex(llvm::ArrayRef<int64_t> index) const;

  /// Any element as double / int64 / uint64 (complex: the real part; pred: 0 or 1;
  /// f4/f6/f8: their value, exactly).
  double getAsDouble(int64_t linear) const;
  int64_t getAsInt64(int64_t linear) const;
  uint64_t getAsUint64(int64_t linear) const;
  /// Stores `value` converted to the element type (floats round to nearest even,
  /// integers truncate toward zero and wrap like a C cast of an in-range value).
  void setFromDouble(int64_t linear, double value);
  void setFromInt64(int64_t linear, int64_t value);

  // Tuples -----------------------------------------------------------------
  size_t tupleSize() const { return elements_.size(); }
  const Literal &element(size_t i) const { return elements_[i]; }
  Literal &element(size_t i) { return elements_[i]; }
  std::vector<Literal> &elements() { return elements_; }
  const std::vector<Literal> &elements() const { return elements_; }

  /// Same element type, dimensions and bytes (recursively); layouts ignored.
  bool bitwiseEqual(const Literal &other) const;

  /// HLO literal text without the shape: `{{1, 2}, {3, 4}}`, `nan`, `(1, {2})`.
  std::string valueToString() const;
  /// Shape and value: `f32[2,2] {{1, 2}, {3, 4}}`.
  std::string toString() const;

private:
  Shape shape_;
  std::vector<uint8_t> bytes_;
  std::vector<Literal> elements_;
};

/// Formats one element the way HLO text writes it (shortest text that parses
/// back to the same bits: `1`, `0.5`, `-inf`, `nan`, `true`, `(1, 2)`).
std::string formatElement(const Literal &literal, int64_t linear);

} // namespace mote::hlo

#endif // MOTE_HLO_LITERAL_H
