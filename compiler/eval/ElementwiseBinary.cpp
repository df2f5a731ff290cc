//===- ElementwiseBinary.cpp - Two-operand elementwise ops ----------------===//
//
// XLA's integer rules: arithmetic wraps; x / 0 is -1 (signed) or all ones
// (unsigned) and x % 0 is x; INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0;
// shifts by at least the bit width give 0 (shift-left, logical right) or the
// sign fill (arithmetic right). Floats: maximum/minimum propagate NaN, and
// pow(1, y) = pow(x, 0) = 1.
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include "hlo/Opcode.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mote::eval {

using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

template <typename T, typename Fn>
llvm::Error mapSame(const hlo::Instruction &instruction, const hlo::Literal &a,
                    const hlo::Literal &b, hlo::Literal &out, Fn &&fn) {
  if (llvm::Error error = checkOutput(instruction, out, a.shape().elementType(), a.shape().dims()))
    return error;
  mapElements<T, T>(a, b, out, fn);
  return llvm::Error::success();
}

/// x^n by squaring in unsigned arithmetic, so overflow wraps.
template <typename U> U integerPower(U base, U exponent) {
  U result = 1;
  while (exponent) {
    if (exponent & 1)
      result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
    exponent >>= 1;
  }
  return result;
}

template <typename T>
llvm::Error binaryInteger(const hlo::Instruction &instruction, const hlo::Literal &a,
                          const hlo::Literal &b, hlo::Literal &out) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  // Arithmetic in at least `unsigned` width: narrower types would promote to
  // int, where overflow is undefined.
  using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
  PrimitiveType type = a.shape().elementType();
  const int bits = hlo::bitWidth(type);
  const bool subByte = bits < 8 * int(sizeof(T));
  const U mask = subByte ? U((U(1) << bits) - 1) : U(~U(0));
  auto outOfRange = [bits](T amount) { return W(U(amount)) >= W(bits); };
  auto map = [&](auto fn) -> llvm::Error {
    if (llvm::Error error = mapSame<T>(instruction, a, b, out, fn))
      return error;
    wrapSubByteIntegers(out);
    return llvm::Error::success();
  };

  switch (instruction.opcode()) {
  case Opcode::Add:
    return map([](T x, T y) { return T(W(x) + W(y)); });
  case Opcode::Subtract:
    return map([](T x, T y) { return T(W(x) - W(y)); });
  case Opcode::Multiply:
    return map([](T x, T y) { return T(W(x) * W(y)); });
  case Opcode::Divide:
    return map([](T x, T y) -> T {
      if (y == 0)
        return std::is_signed_v<T> ? T(-1) : std::numeric_limits<T>::max();
      if constexpr (std::is_signed_v<T>)
        if (y == T(-1))
          return T(W(0) - W(x)); // also INT_MIN / -1 == INT_MIN
      return T(x / y);
    });
  case Opcode::Remainder:
    return map([](T x, T y) -> T {
      if (y == 0)
        return x;
      if constexpr (std::is_signed_v<T>)
        if (y == T(-1))
          return 0;
      return T(x % y);
    });
  case Opcode::Maximum:
    return map([](T x, T y) { return std::max(x, y); });
  case Opcode::Minimum:
    return map([](T x, T y) { return std::min(x, y); });
  case Opcode::Power:
    return map([](T x, T y) -> T {
      if (x == 1 || y == 0)
        return 1;
      if constexpr (std::is_signed_v<T>)
        if (y < 0)
          return 0;
      return T(integerPower<W>(W(x), W(U(y))));
    });
  case Opcode::And:
    return map([](T x, T y) { return T(x & y); });
  case Opcode::Or:
    return map([](T x, T y) { return T(x | y); });
  case Opcode::Xor:
    return map([](T x, T y) { return T(x ^ y); });
  case Opcode::ShiftLeft:
    return map([outOfRange](T x, T y) { return outOfRange(y) ? T(0) : T(W(x) << W(y)); });
  case Opcode::ShiftRightArithmetic:
    return map([outOfRange, subByte, bits](T x, T y) {
      S value = S(x);
      if (subByte) // sign-extend the stored bits of an unsigned sub-byte value
        value = S(S(U(value) << (8 - bits)) >> (8 - bits));
      if (outOfRange(y))
        return value < 0 ? T(-1) : T(0);
      return T(value >> y);
    });
  case Opcode::ShiftRightLogical:
    return map(
        [outOfRange, mask](T x, T y) { return outOfRange(y) ? T(0) : T(W(U(x) & mask) >> W(y)); });
  default:
    return unsupportedElementType(instruction, a.shape().elementType());
  }
}

template <typename T>
llvm::Error binaryFloat(const hlo::Instruction &instruction, const hlo::Literal &a,
                        const hlo::Literal &b, hlo::Literal &out) {
  using C = ComputeType<T>;
  auto map = [&](auto fn) {
    return mapSame<T>(instruction, a, b, out,
                      [&](T x, T y) { return narrow<T>(fn(widen(x), widen(y))); });
  };
  switch (instruction.opcode()) {
  case Opcode::Add:
    return map([](C x, C y) { return x + y; });
  case Opcode::Subtract:
    return map([](C x, C y) { return x - y; });
  case Opcode::Multiply:
    return map([](C x, C y) { return x * y; });
  case Opcode::Divide:
    return map([](C x, C y) { return x / y; });
  case Opcode::Remainder:
    return map([](C x, C y) { return std::fmod(x, y); });
  case Opcode::Maximum:
    return map([](C x, C y) { return std::isnan(x) ? x : std::isnan(y) ? y : std::max(x, y); });
  case Opcode::Minimum:
    return map([](C x, C y) { return std::isnan(x) ? x : std::isnan(y) ? y : std::min(x, y); });
  case Opcode::Power:
    return map([](C x, C y) { return x == C(1) || y == C(0) ? C(1) : std::pow(x, y); });
  case Opcode::Atan2:
    return map([](C y, C x) { return std::atan2(y, x); });
  default:
    return unsupportedElementType(instruction, a.shape().elementType());
  }
}

template <typename T>
llvm::Error binaryComplex(const hlo::Instruction &instruction, const hlo::Literal &a,
                          const hlo::Literal &b, hlo::Literal &out) {
  using R = typename T::value_type;
  auto map = [&](auto fn) { return mapSame<T>(instruction, a, b, out, fn); };
  switch (instruction.opcode()) {
  case Opcode::Add:
    return map([](T x, T y) { return x + y; });
  case Opcode::Subtract:
    return map([](T x, T y) { return x - y; });
  case Opcode::Multiply:
    return map([](T x, T y) { return x * y; });
  case Opcode::Divide:
    return map([](T x, T y) { return x / y; });
  case Opcode::Power:
    return map([](T x, T y) -> T {
      if (x == T(1) || y == T(0))
        return T(1);
      // inf^(a + 0i) is inf for a > 0 and 0 for a < 0.
      if (x.imag() == 0 && x.real() > 0 && std::isinf(x.real()) && y.imag() == 0) {
        if (y.real() > 0)
          return x;
        if (y.real() < 0)
          return T(0);
      }
      return std::pow(x, y);
    });
  case Opcode::Atan2:
    return map([](T y, T x) {
      // atan2(y, x) = -i * log((x + iy) / sqrt(x^2 + y^2)).
      const T i(R(0), R(1));
      return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
    });
  default:
    return unsupportedElementType(instruction, a.shape().elementType());
  }
}

/// pred follows XLA's evaluator, which computes in bool: add is or, multiply
/// and minimum are and, subtract is xor.
llvm::Error binaryPred(const hlo::Instruction &instruction, const hlo::Literal &a,
                       const hlo::Literal &b, hlo::Literal &out) {
  auto map = [&](auto fn) { return mapSame<bool>(instruction, a, b, out, fn); };
  switch (instruction.opcode()) {
  case Opcode::And:
  case Opcode::Multiply:
  case Opcode::Minimum:
    return map([](bool x, bool y) { return x && y; });
  case Opcode::Or:
  case Opcode::Add:
  case Opcode::Maximum:
    return map([](bool x, bool y) { return x || y; });
  case Opcode::Xor:
  case Opcode::Subtract:
    return map([](bool x, bool y) { return x != y; });
  case Opcode::Power:
    return map([](bool x, bool y) { return x || !y; });
  case Opcode::Divide: // x / 0 is "all ones", x / 1 is x
    return map([](bool x, bool y) { return y ? x : true; });
  case Opcode::Remainder:
    return map([](bool x, bool y) { return y ? false : x; });
  default:
    return unsupportedElementType(instruction, PrimitiveType::Pred);
  }
}

} // namespace

llvm::Error evaluateBinary(const hlo::Instruction &instruction, const hlo::Literal &lhs,
                           const hlo::Literal &rhs, hlo::Literal &out) {
  PrimitiveType type = lhs.shape().elementType();
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>)
          return binaryPred(instruction, lhs, rhs, out);
        else if constexpr (isIntegerValue<T>)
          return binaryInteger<T>(instruction, lhs, rhs, out);
        else if constexpr (isComplexValue<T>)
          return binaryComplex<T>(instruction, lhs, rhs, out);
        else
          return binaryFloat<T>(instruction, lhs, rhs, out);
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
}

} // namespace mote::eval
