//===- Compare.cpp - compare, select and clamp ----------------------------===//
//
// Floats compare as IEEE (NaN is unordered: only NE is true) unless the
// comparison type is TOTALORDER, which orders
//   -NaN < -inf < -finite < -0 < +0 < +finite < +inf < +NaN
// by reading the bits as sign-magnitude integers.
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mote::eval {

using hlo::ComparisonDirection;
using hlo::errorAt;
using hlo::PrimitiveType;

namespace {

/// The signed integer that orders floats totally: non-negative values keep
/// their bits, negative ones flip the magnitude bits so that larger
/// magnitudes sort lower.
template <typename T> auto totalOrderKey(T value) {
  if constexpr (isHalfFloat<T>) {
    int16_t bits = static_cast<int16_t>(value.bits);
    return bits < 0 ? int16_t(bits ^ 0x7fff) : bits;
  } else if constexpr (std::is_same_v<T, float>) {
    int32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits < 0 ? int32_t(bits ^ 0x7fffffff) : bits;
  } else {
    int64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits < 0 ? int64_t(bits ^ 0x7fffffffffffffffLL) : bits;
  }
}

template <typename T, typename Key>
void compareElements(const hlo::Literal &a, const hlo::Literal &b, hlo::Literal &out,
                     ComparisonDirection direction, Key key) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) == key(y); });
  case ComparisonDirection::NE:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) != key(y); });
  case ComparisonDirection::GE:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) >= key(y); });
  case ComparisonDirection::GT:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) > key(y); });
  case ComparisonDirection::LE:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) <= key(y); });
  case ComparisonDirection::LT:
    return mapElements<T, bool>(a, b, out, [&](T x, T y) { return key(x) < key(y); });
  }
}

/// Copies `count` elements of `Bytes` bytes each, choosing per element
/// (`out` may be one of the inputs).
template <size_t Bytes>
void selectElements(const bool *pred, bool scalarPred, const uint8_t *onTrue,
                    const uint8_t *onFalse, uint8_t *out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t *from = pred[scalarPred ? 0 : i] ? onTrue : onFalse;
    if (from != out)
      std::memcpy(out + i * Bytes, from + i * Bytes, Bytes);
  }
}

} // namespace

llvm::Error evaluateCompare(const hlo::Instruction &instruction, const hlo::Literal &lhs,
                            const hlo::Literal &rhs, hlo::Literal &out) {
  if (llvm::Error error = expectSameArrayShape(instruction, lhs, rhs))
    return error;
  PrimitiveType type = lhs.shape().elementType();
  if (llvm::Error error = checkOutput(instruction, out, PrimitiveType::Pred, lhs.shape().dims()))
    return error;
  const auto &attributes = instruction.attributes();
  ComparisonDirection direction = attributes.comparisonDirection;
  bool totalOrder = attributes.comparisonType == hlo::ComparisonType::TotalOrder;
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        if constexpr (isComplexValue<T>) {
          if (direction != ComparisonDirection::EQ && direction != ComparisonDirection::NE)
            return errorAt(instruction, "complex values compare only with EQ or NE");
          bool equal = direction == ComparisonDirection::EQ;
          mapElements<T, bool>(lhs, rhs, out, [equal](T x, T y) { return (x == y) == equal; });
        } else if constexpr (isRealFloat<T>) {
          if (totalOrder)
            compareElements<T>(lhs, rhs, out, direction, [](T v) { return totalOrderKey(v); });
          else
            compareElements<T>(lhs, rhs, out, direction, [](T v) { return widen(v); });
        } else {
          compareElements<T>(lhs, rhs, out, direction, [](T v) { return v; });
        }
        return llvm::Error::success();
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
}

llvm::Error evaluateSelect(const hlo::Instruction &instruction, Operands operands,
                           hlo::Literal &out) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 3))
    return error;
  const hlo::Literal &pred = *operands[0];
  const hlo::Literal &onTrue = *operands[1];
  const hlo::Literal &onFalse = *operands[2];
  if (pred.shape().elementType() != PrimitiveType::Pred)
    return errorAt(instruction,
                   "select needs a pred selector, got " + pred.shape().toString(false));
  if (llvm::Error error = expectSameArrayShape(instruction, onTrue, onFalse))
    return error;
  bool scalarPred = pred.shape().isScalar();
  if (!scalarPred && pred.shape().dims() != onTrue.shape().dims())
    return errorAt(instruction, "selector shape " + pred.shape().toString(false) +
                                    " does not match " + onTrue.shape().toString(false));
  if (llvm::Error error =
          checkOutput(instruction, out, onTrue.shape().elementType(), onTrue.shape().dims()))
    return error;
  const bool *flags = reinterpret_cast<const bool *>(pred.bytes().data());
  const uint8_t *t = onTrue.bytes().data();
  const uint8_t *f = onFalse.bytes().data();
  uint8_t *o = out.bytes().data();
  int64_t count = out.elementCount();
  switch (hlo::storageBytes(onTrue.shape().elementType())) {
  case 1:
    selectElements<1>(flags, scalarPred, t, f, o, count);
    break;
  case 2:
    selectElements<2>(flags, scalarPred, t, f, o, count);
    break;
  case 4:
    selectElements<4>(flags, scalarPred, t, f, o, count);
    break;
  case 8:
    selectElements<8>(flags, scalarPred, t, f, o, count);
    break;
  case 16:
    selectElements<16>(flags, scalarPred, t, f, o, count);
    break;
  default:
    return unsupportedElementType(instruction, onTrue.shape().elementType());
  }
  return llvm::Error::success();
}

llvm::Error evaluateClamp(const hlo::Instruction &instruction, Operands operands,
                          hlo::Literal &out) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 3))
    return error;
  const hlo::Literal &low = *operands[0];
  const hlo::Literal &x = *operands[1];
  const hlo::Literal &high = *operands[2];
  PrimitiveType type = x.shape().elementType();
  for (const hlo::Literal *bound : {&low, &high}) {
    if (bound->shape().elementType() != type ||
        (!bound->shape().isScalar() && bound->shape().dims() != x.shape().dims()))
      return errorAt(instruction, "clamp bound " + bound->shape().toString(false) +
                                      " must be a scalar or match " + x.shape().toString(false));
  }
  if (llvm::Error error = checkOutput(instruction, out, type, x.shape().dims()))
    return error;
  const int64_t lowStride = low.shape().isScalar() ? 0 : 1;
  const int64_t highStride = high.shape().isScalar() ? 0 : 1;
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        if constexpr (isComplexValue<T>) {
          return unsupportedElementType(instruction, type);
        } else {
          using C = ComputeType<T>;
          const int64_t count = out.elementCount();
          for (int64_t i = 0; i < count; ++i) {
            C lo = widen(low.get<T>(i * lowStride));
            C value = widen(x.get<T>(i));
            C hi = widen(high.get<T>(i * highStride));
            C clamped;
            if constexpr (isRealFloat<T>) {
              if (std::isnan(lo) || std::isnan(value) || std::isnan(hi)) {
                clamped = std::isnan(lo) ? lo : std::isnan(value) ? value : hi;
                out.set<T>(i, narrow<T>(clamped));
                continue;
              }
            }
            clamped = std::min(hi, std::max(value, lo));
            out.set<T>(i, narrow<T>(clamped));
          }
          return llvm::Error::success();
        }
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
}

} // namespace mote::eval
