//===- ScalarComputation.h - Calling and recognising to_apply ---*- C++ -*-===//
///
/// \file
/// Internal to reduce, reduce-window, select-and-scatter, scatter and sort:
/// they run a small computation on scalars once per element. Running it
/// through the evaluator is exact but slow, so the common shapes
/// (`add(p0, p1)`, `compare(p0, p1), direction=GT`, `ROOT p1`) are recognised
/// and applied with the same semantics as the elementwise evaluator, in
/// typed loops. Anything else goes through ScalarCall.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_SCALARCOMPUTATION_H
#define MOTE_EVAL_SCALARCOMPUTATION_H

#include "eval/Evaluator.h"
#include "eval/HalfReduction.h"
#include "hlo/Computation.h"
#include "hlo/Literal.h"
#include "hlo/Opcode.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

namespace mote::eval {

/// Recognises a two-parameter computation whose root is add, multiply,
/// maximum, minimum, and, or or xor of its two parameters (all scalars of
/// `type`).
std::optional<ScalarBinary> matchScalarBinary(const hlo::Computation &computation,
                                              hlo::PrimitiveType type);

/// Recognises `ROOT parameter(1)` in a two-parameter computation: scatter's
/// "replace the old value" combiner.
bool returnsSecondParameter(const hlo::Computation &computation);

/// `ROOT r = compare(parameter(lhs), parameter(rhs)), direction=D, type=T`.
struct ScalarCompare {
  hlo::ComparisonDirection direction;
  hlo::ComparisonType type;
  int64_t lhsParameter;
  int64_t rhsParameter;
};
std::optional<ScalarCompare> matchScalarCompare(const hlo::Computation &computation);

/// Whether the fast paths below can apply `opcode` to elements of `T`.
template <typename T> constexpr bool isFastBinaryType() {
  return !std::is_same_v<T, std::complex<float>> && !std::is_same_v<T, std::complex<double>>;
}

/// `a op b` with the elementwise evaluator's semantics: integers wrap, bf16
/// and f16 compute in f32 and round, maximum/minimum return the first NaN
/// operand, pred add/multiply are or/and. Only for the opcodes
/// matchScalarBinary accepts and types isFastBinaryType accepts.
template <typename T> T applyScalarBinary(hlo::Opcode opcode, T a, T b) {
  using hlo::Opcode;
  if constexpr (std::is_same_v<T, bool>) {
    switch (opcode) {
    case Opcode::Add:
    case Opcode::Or:
    case Opcode::Maximum:
      return a || b;
    case Opcode::Multiply:
    case Opcode::And:
    case Opcode::Minimum:
      return a && b;
    default: // Xor
      return a != b;
    }
  } else if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    switch (opcode) {
    case Opcode::Add:
      return T(W(a) + W(b));
    case Opcode::Multiply:
      return T(W(a) * W(b));
    case Opcode::Maximum:
      return std::max(a, b);
    case Opcode::Minimum:
      return std::min(a, b);
    case Opcode::And:
      return T(a & b);
    case Opcode::Or:
      return T(a | b);
    default: // Xor
      return T(a ^ b);
    }
  } else {
    // bf16/f16 widen to float; float and double stay themselves.
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    C r;
    switch (opcode) {
    case Opcode::Add:
      r = x + y;
      break;
    case Opcode::Multiply:
      r = x * y;
      break;
    case Opcode::Maximum:
      r = std::isnan(x) ? x : std::isnan(y) ? y : std::max(x, y);
      break;
    default: // Minimum
      r = std::isnan(x) ? x : std::isnan(y) ? y : std::min(x, y);
      break;
    }
    return T(r);
  }
}

/// `a direction b` for a recognised comparator, with XLA's comparison types:
/// Float is IEEE (NaN compares false except NE), TotalOrder orders
/// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
template <typename T>
bool applyScalarCompare(hlo::ComparisonDirection direction, hlo::ComparisonType type, T a, T b);

/// The key that orders floats totally when compared as signed integers.
template <typename T> auto totalOrderKey(T value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using I = std::conditional_t<std::is_same_v<T, float>, int32_t, int64_t>;
    I bits;
    std::memcpy(&bits, &value, sizeof bits);
    // Negative values: flip the magnitude bits so larger magnitudes sort lower.
    using U = std::make_unsigned_t<I>;
    return bits < 0 ? I(U(bits) ^ (~U(0) >> 1)) : bits;
  } else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>) {
    int16_t bits = static_cast<int16_t>(value.bits);
    return bits < 0 ? int16_t(uint16_t(bits) ^ 0x7fffu) : bits;
  } else {
    return value;
  }
}

template <typename T>
bool applyScalarCompare(hlo::ComparisonDirection direction, hlo::ComparisonType type, T a, T b) {
  using hlo::ComparisonDirection;
  auto compare = [direction](auto x, auto y) {
    switch (direction) {
    case ComparisonDirection::EQ:
      return x == y;
    case ComparisonDirection::NE:
      return x != y;
    case ComparisonDirection::GE:
      return x >= y;
    case ComparisonDirection::GT:
      return x > y;
    case ComparisonDirection::LE:
      return x <= y;
    case ComparisonDirection::LT:
      return x < y;
    }
    return false;
  };
  if constexpr (std::is_same_v<T, bool>) {
    return compare(a, b);
  } else if constexpr (std::is_integral_v<T>) {
    if (type == hlo::ComparisonType::Unsigned)
      return compare(std::make_unsigned_t<T>(a), std::make_unsigned_t<T>(b));
    if (type == hlo::ComparisonType::Signed)
      return compare(std::make_signed_t<T>(a), std::make_signed_t<T>(b));
    return compare(a, b);
  } else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>) {
    if (type == hlo::ComparisonType::TotalOrder)
      return compare(totalOrderKey(a), totalOrderKey(b));
    return compare(static_cast<float>(a), static_cast<float>(b));
  } else {
    if (type == hlo::ComparisonType::TotalOrder)
      return compare(totalOrderKey(a), totalOrderKey(b));
    return compare(a, b);
  }
}

/// Runs a computation on scalar arguments again and again, reusing the
/// argument literals.
class ScalarCall {
public:
  /// One scalar argument per entry of `types`.
  /// `caller` is the instruction errors are reported at.
  ScalarCall(Evaluator &evaluator, const hlo::Instruction &caller,
             const hlo::Computation &computation, llvm::ArrayRef<hlo::PrimitiveType> types);

  /// Copies element `index` of `source` into argument `argument`.
  void setArgument(size_t argument, const hlo::Literal &source, int64_t index) {
    size_t size = arguments_[argument].bytes().size();
    std::memcpy(arguments_[argument].bytes().data(), source.bytes().data() + index * size, size);
  }
  void setArgumentBytes(size_t argument, const uint8_t *bytes) {
    std::memcpy(arguments_[argument].bytes().data(), bytes, arguments_[argument].bytes().size());
  }
  const hlo::Literal &argument(size_t argument) const { return arguments_[argument]; }

  /// Runs the computation; the result must be a scalar or a tuple of
  /// `resultCount` scalars, given back as one literal per scalar in `results`.
  llvm::Error run(size_t resultCount, std::vector<hlo::Literal> &results);
  /// Runs a computation returning one pred (comparators, select).
  llvm::Expected<bool> runPredicate();

private:
  Evaluator &evaluator_;
  const hlo::Instruction &caller_;
  const hlo::Computation &computation_;
  std::vector<hlo::Literal> arguments_;
  std::vector<const hlo::Literal *> pointers_;
};

} // namespace mote::eval

#endif // MOTE_EVAL_SCALARCOMPUTATION_H
