//===- ElementwiseUnary.cpp - One-operand elementwise ops -----------------===//
//
// Math on floats (bf16/f16 through f32), bit ops on integers, and the complex
// versions of the math XLA defines for c64/c128.
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include "hlo/Opcode.h"

#include <bit>
#include <cmath>
#include <limits>

namespace mote::eval {

using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

/// Maps every element through `fn` into `out`, an array of `resultType`.
template <typename In, typename Out, typename Fn>
llvm::Error mapInto(const hlo::Instruction &instruction, const hlo::Literal &operand,
                    hlo::Literal &out, PrimitiveType resultType, Fn &&fn) {
  if (llvm::Error error = checkOutput(instruction, out, resultType, operand.shape().dims()))
    return error;
  mapElements<In, Out>(operand, out, fn);
  return llvm::Error::success();
}

template <typename T, typename Fn>
llvm::Error mapSame(const hlo::Instruction &instruction, const hlo::Literal &operand,
                    hlo::Literal &out, Fn &&fn) {
  return mapInto<T, T>(instruction, operand, out, operand.shape().elementType(), fn);
}

template <typename T>
llvm::Error unaryFloat(const hlo::Instruction &instruction, const hlo::Literal &x,
                       hlo::Literal &out) {
  using C = ComputeType<T>;
  auto map = [&](auto fn) {
    return mapSame<T>(instruction, x, out, [&](T v) { return narrow<T>(fn(widen(v))); });
  };
  switch (instruction.opcode()) {
  case Opcode::Abs:
    return map([](C v) { return std::fabs(v); });
  case Opcode::Negate:
    return map([](C v) { return -v; });
  case Opcode::Sign:
    return map([](C v) -> C { return std::isnan(v) ? v : std::copysign(C(v != C(0)), v); });
  case Opcode::Floor:
    return map([](C v) { return std::floor(v); });
  case Opcode::Ceil:
    return map([](C v) { return std::ceil(v); });
  case Opcode::RoundNearestAfz:
    return map([](C v) { return std::round(v); });
  case Opcode::RoundNearestEven:
    // The default floating-point environment rounds to nearest even.
    return map([](C v) { return std::nearbyint(v); });
  case Opcode::Exp:
    return map([](C v) { return std::exp(v); });
  case Opcode::Expm1:
    return map([](C v) { return std::expm1(v); });
  case Opcode::Log:
    return map([](C v) { return std::log(v); });
  case Opcode::Log1p:
    return map([](C v) { return std::log1p(v); });
  case Opcode::Logistic:
    // For x < 0, e^x / (1 + e^x): the same value without exp(-x) overflowing,
    // so large negative inputs keep their tiny (subnormal) results.
    return map([](C v) {
      if (v < C(0)) {
        C e = std::exp(v);
        return e / (C(1) + e);
      }
      return C(1) / (C(1) + std::exp(-v));
    });
  case Opcode::Sqrt:
    return map([](C v) { return std::sqrt(v); });
  case Opcode::Rsqrt:
    return map([](C v) { return C(1) / std::sqrt(v); });
  case Opcode::Cbrt:
    return map([](C v) { return std::cbrt(v); });
  case Opcode::Sin:
    return map([](C v) { return std::sin(v); });
  case Opcode::Cos:
    return map([](C v) { return std::cos(v); });
  case Opcode::Tan:
    return map([](C v) { return std::tan(v); });
  case Opcode::Tanh:
    return map([](C v) { return std::tanh(v); });
  case Opcode::Sinh:
    return map([](C v) { return std::sinh(v); });
  case Opcode::Cosh:
    return map([](C v) { return std::cosh(v); });
  case Opcode::Asin:
    return map([](C v) { return std::asin(v); });
  case Opcode::Acos:
    return map([](C v) { return std::acos(v); });
  case Opcode::Atan:
    return map([](C v) { return std::atan(v); });
  case Opcode::Asinh:
    return map([](C v) { return std::asinh(v); });
  case Opcode::Acosh:
    return map([](C v) { return std::acosh(v); });
  case Opcode::Atanh:
    return map([](C v) { return std::atanh(v); });
  case Opcode::Erf:
    return map([](C v) { return std::erf(v); });
  case Opcode::IsFinite:
    return mapInto<T, bool>(instruction, x, out, PrimitiveType::Pred,
                            [](T v) { return std::isfinite(widen(v)); });
  default:
    return unsupportedElementType(instruction, x.shape().elementType());
  }
}

template <typename T>
llvm::Error unaryComplex(const hlo::Instruction &instruction, const hlo::Literal &x,
                         hlo::Literal &out) {
  using R = typename T::value_type;
  auto map = [&](auto fn) { return mapSame<T>(instruction, x, out, fn); };
  switch (instruction.opcode()) {
  case Opcode::Abs:
    return mapInto<T, R>(instruction, x, out, hlo::complexComponentType(x.shape().elementType()),
                         [](T v) { return std::abs(v); });
  case Opcode::Negate:
    return map([](T v) { return -v; });
  case Opcode::Sign:
    return map([](T v) {
      R magnitude = std::abs(v);
      return magnitude == R(0) ? T(0) : v / magnitude;
    });
  case Opcode::Exp:
    return map([](T v) { return std::exp(v); });
  case Opcode::Expm1:
    return map([](T v) { return std::exp(v) - T(1); });
  case Opcode::Log:
    return map([](T v) { return std::log(v); });
  case Opcode::Log1p:
    return map([](T v) { return std::log(T(1) + v); });
  case Opcode::Logistic:
    return map([](T v) { return T(1) / (T(1) + std::exp(-v)); });
  case Opcode::Sqrt:
    return map([](T v) { return std::sqrt(v); });
  case Opcode::Rsqrt:
    return map([](T v) { return T(1) / std::sqrt(v); });
  case Opcode::Cbrt:
    return map([](T v) { return std::pow(v, T(R(1) / R(3))); });
  case Opcode::Sin:
    return map([](T v) { return std::sin(v); });
  case Opcode::Cos:
    return map([](T v) { return std::cos(v); });
  case Opcode::Tan:
    return map([](T v) { return std::tan(v); });
  case Opcode::Tanh:
    return map([](T v) { return std::tanh(v); });
  case Opcode::Sinh:
    return map([](T v) { return std::sinh(v); });
  case Opcode::Cosh:
    return map([](T v) { return std::cosh(v); });
  case Opcode::Asin:
    return map([](T v) { return std::asin(v); });
  case Opcode::Acos:
    return map([](T v) { return std::acos(v); });
  case Opcode::Atan:
    return map([](T v) { return std::atan(v); });
  case Opcode::Asinh:
    return map([](T v) { return std::asinh(v); });
  case Opcode::Acosh:
    return map([](T v) { return std::acosh(v); });
  case Opcode::Atanh:
    return map([](T v) { return std::atanh(v); });
  default:
    return unsupportedElementType(instruction, x.shape().elementType());
  }
}

/// Integer ops work on the two's complement bits; signed overflow wraps
/// (abs(INT_MIN) and -INT_MIN stay INT_MIN).
template <typename T>
llvm::Error unaryInteger(const hlo::Instruction &instruction, const hlo::Literal &x,
                         hlo::Literal &out) {
  using U = std::make_unsigned_t<T>;
  PrimitiveType type = x.shape().elementType();
  const int bits = hlo::bitWidth(type);
  const U mask = bits == 8 * int(sizeof(T)) ? U(~U(0)) : U((U(1) << bits) - 1);
  auto map = [&](auto fn) -> llvm::Error {
    if (llvm::Error error = mapSame<T>(instruction, x, out, fn))
      return error;
    wrapSubByteIntegers(out);
    return llvm::Error::success();
  };
  switch (instruction.opcode()) {
  case Opcode::Abs:
    return map([](T v) {
      if constexpr (std::is_signed_v<T>)
        return v < 0 ? T(U(0) - U(v)) : v;
      else
        return v;
    });
  case Opcode::Negate:
    return map([](T v) { return T(U(0) - U(v)); });
  case Opcode::Not:
    return map([](T v) { return T(~v); });
  case Opcode::Sign:
    return map([](T v) { return T((T(0) < v) - (v < T(0))); });
  case Opcode::PopCount:
    return map([mask](T v) { return T(std::popcount(U(U(v) & mask))); });
  case Opcode::Clz:
    return map([mask, bits](T v) {
      return T(std::countl_zero(U(U(v) & mask)) - (8 * int(sizeof(T)) - bits));
    });
  default:
    return unsupportedElementType(instruction, type);
  }
}

llvm::Error unaryPred(const hlo::Instruction &instruction, const hlo::Literal &x,
                      hlo::Literal &out) {
  if (instruction.opcode() == Opcode::Not)
    return mapSame<bool>(instruction, x, out, [](bool v) { return !v; });
  return unsupportedElementType(instruction, PrimitiveType::Pred);
}

} // namespace

llvm::Error evaluateUnary(const hlo::Instruction &instruction, const hlo::Literal &operand,
                          hlo::Literal &out) {
  PrimitiveType type = operand.shape().elementType();
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>)
          return unaryPred(instruction, operand, out);
        else if constexpr (isIntegerValue<T>)
          return unaryInteger<T>(instruction, operand, out);
        else if constexpr (isComplexValue<T>)
          return unaryComplex<T>(instruction, operand, out);
        else
          return unaryFloat<T>(instruction, operand, out);
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
}

} // namespace mote::eval
