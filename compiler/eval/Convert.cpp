//===- Convert.cpp - convert, reduce-precision, stochastic-convert --------===//
//
// convert follows XLA's literal conversion: float -> integer truncates toward
// zero and saturates (NaN -> 0); anything -> pred is `x != 0`; conversions
// into bf16/f16 go through f32 and round to nearest even; complex values
// convert only to complex types.
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace mote::eval {

using hlo::errorAt;
using hlo::PrimitiveType;

namespace {

/// Saturating float -> integer (NaN -> 0), exact for every source type since
/// all of them widen to double without rounding.
template <typename To> To floatToInteger(double value, int bits) {
  if (std::isnan(value))
    return To(0);
  if constexpr (std::is_signed_v<To>) {
    const double limit = std::ldexp(1.0, bits - 1); // 2^(bits-1)
    if (value >= limit)
      return To(std::numeric_limits<To>::max() >> (8 * sizeof(To) - bits));
    if (value <= -limit)
      return To(std::numeric_limits<To>::lowest() >> (8 * sizeof(To) - bits));
    return To(static_cast<int64_t>(value));
  } else {
    const double limit = std::ldexp(1.0, bits); // 2^bits
    if (value >= limit)
      return To(std::numeric_limits<To>::max() >> (8 * sizeof(To) - bits));
    if (value <= 0)
      return To(0);
    return To(static_cast<uint64_t>(value));
  }
}

template <typename From, typename To> To convertElement(From value, int toBits) {
  if constexpr (std::is_same_v<From, To>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    return widen(value) != ComputeType<From>(0);
  } else if constexpr (isComplexValue<To>) {
    using R = typename To::value_type;
    if constexpr (isComplexValue<From>)
      return To(static_cast<R>(value.real()), static_cast<R>(value.imag()));
    else
      return To(static_cast<R>(widen(value)), R(0));
  } else if constexpr (isHalfFloat<To>) {
    return To(static_cast<float>(widen(value)));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(widen(value));
  } else if constexpr (isRealFloat<From>) {
    return floatToInteger<To>(static_cast<double>(widen(value)), toBits);
  } else {
    // Integer or pred to integer: two's complement truncation or extension.
    return static_cast<To>(value);
  }
}

/// XLA's reduce-precision on the bits of a float with `SrcMantissa` explicit
/// mantissa bits: round the mantissa to nearest even, then flush values
/// outside the reduced exponent range to signed zero or infinity (denormals
/// of the reduced format become zero). NaN stays NaN unless no mantissa bits
/// remain, where it becomes +inf.
template <typename Bits, int SrcExponent, int SrcMantissa>
Bits reducePrecisionBits(Bits value, int exponentBits, int mantissaBits, bool isNan) {
  constexpr int totalBits = 8 * sizeof(Bits);
  Bits x = value;
  if (mantissaBits < SrcMantissa) {
    const Bits lastMantissaBit = Bits(Bits(1) << (SrcMantissa - mantissaBits));
    const Bits baseRoundingBias = Bits((lastMantissaBit >> 1) - 1);
    const Bits xLastMantissaBit = Bits((x & lastMantissaBit) >> (SrcMantissa - mantissaBits));
    x = Bits(x + Bits(xLastMantissaBit + baseRoundingBias));
    x = Bits(x & Bits(~Bits(lastMantissaBit - 1)));
  }
  if (exponentBits < SrcExponent) {
    const Bits signBit = Bits(Bits(1) << (totalBits - 1));
    const Bits exponentMask = Bits(((Bits(1) << SrcExponent) - 1) << SrcMantissa);
    const Bits bias = Bits((Bits(1) << (SrcExponent - 1)) - 1);
    const Bits reducedBias = Bits((Bits(1) << (exponentBits - 1)) - 1);
    const Bits maxExponent = Bits(bias + reducedBias);
    const Bits minExponent = Bits(bias - reducedBias);
    const Bits exponent = Bits(x & exponentMask);
    const Bits signedZero = Bits(x & signBit);
    if (exponent > Bits(maxExponent << SrcMantissa))
      x = Bits(signedZero | exponentMask);
    else if (exponent <= Bits(minExponent << SrcMantissa))
      x = signedZero;
  }
  if (isNan)
    x = mantissaBits > 0 ? value : Bits(((Bits(1) << SrcExponent) - 1) << SrcMantissa);
  return x;
}

template <typename T> T reducePrecision(T value, int exponentBits, int mantissaBits) {
  if constexpr (std::is_same_v<T, hlo::BFloat16>) {
    return T::fromBits(reducePrecisionBits<uint16_t, 8, 7>(value.bits, exponentBits, mantissaBits,
                                                           std::isnan(static_cast<float>(value))));
  } else if constexpr (std::is_same_v<T, hlo::Float16>) {
    return T::fromBits(reducePrecisionBits<uint16_t, 5, 10>(value.bits, exponentBits, mantissaBits,
                                                            std::isnan(static_cast<float>(value))));
  } else if constexpr (std::is_same_v<T, float>) {
    uint32_t bits = reducePrecisionBits<uint32_t, 8, 23>(hlo::floatBits(value), exponentBits,
                                                         mantissaBits, std::isnan(value));
    return hlo::floatFromBits(bits);
  } else {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits =
        reducePrecisionBits<uint64_t, 11, 52>(bits, exponentBits, mantissaBits, std::isnan(value));
    double result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
  }
}

} // namespace

llvm::Error evaluateConvert(const hlo::Instruction &instruction, const hlo::Literal &operand,
                            hlo::Literal &out) {
  PrimitiveType from = operand.shape().elementType();
  PrimitiveType to = instruction.shape().elementType();
  if (llvm::Error error = checkOutput(instruction, out, to, operand.shape().dims()))
    return error;
  if (hlo::isComplex(from) && !hlo::isComplex(to))
    return errorAt(instruction, "convert from complex " + hlo::primitiveTypeName(from) +
                                    " to real " + hlo::primitiveTypeName(to) +
                                    " is not defined (use real/imag)");
  const int toBits = hlo::bitWidth(to);
  auto fail = [&]() -> llvm::Error {
    return errorAt(instruction, "convert from " + hlo::primitiveTypeName(from) + " to " +
                                    hlo::primitiveTypeName(to) + " is not supported");
  };
  llvm::Error error = hlo::visitElementType(
      from,
      [&](auto fromTag) -> llvm::Error {
        using From = typename decltype(fromTag)::type;
        return hlo::visitElementType(
            to,
            [&](auto toTag) -> llvm::Error {
              using To = typename decltype(toTag)::type;
              if constexpr (isComplexValue<From> && !isComplexValue<To>) {
                return fail();
              } else {
                mapElements<From, To>(
                    operand, out, [toBits](From v) { return convertElement<From, To>(v, toBits); });
                return llvm::Error::success();
              }
            },
            fail);
      },
      fail);
  if (error)
    return error;
  wrapSubByteIntegers(out);
  return llvm::Error::success();
}

llvm::Error evaluateReducePrecision(const hlo::Instruction &instruction,
                                    const hlo::Literal &operand, hlo::Literal &out) {
  PrimitiveType type = operand.shape().elementType();
  int64_t exponentBits = instruction.attributes().exponentBits;
  int64_t mantissaBits = instruction.attributes().mantissaBits;
  if (exponentBits < 1 || exponentBits > 64 || mantissaBits < 0 || mantissaBits > 64)
    return errorAt(instruction, "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  if (llvm::Error error = checkOutput(instruction, out, type, operand.shape().dims()))
    return error;
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        if constexpr (isRealFloat<T>) {
          int e = static_cast<int>(exponentBits), m = static_cast<int>(mantissaBits);
          mapElements<T, T>(operand, out, [e, m](T v) { return reducePrecision(v, e, m); });
          return llvm::Error::success();
        } else {
          return unsupportedElementType(instruction, type);
        }
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, type); });
}

/// XLA defines stochastic-convert (float -> signed integer) by its
/// decomposition: the fraction of |x|, scaled to the random operand's bit
/// width, rounds the magnitude up when the random value is below it; the
/// sign is restored and values beyond the integer range saturate.
llvm::Error evaluateStochasticConvert(const hlo::Instruction &instruction,
                                      const hlo::Literal &operand, const hlo::Literal &random,
                                      hlo::Literal &out) {
  PrimitiveType from = operand.shape().elementType();
  PrimitiveType randomType = random.shape().elementType();
  PrimitiveType to = instruction.shape().elementType();
  if (!hlo::isFloatingPoint(from) || !hlo::isUnsignedInteger(randomType) ||
      hlo::bitWidth(randomType) != hlo::bitWidth(from) || !hlo::isSignedInteger(to))
    return errorAt(instruction, "stochastic-convert needs a float operand, unsigned random bits "
                                "of the same width and a signed integer result");
  if (random.shape().dims() != operand.shape().dims())
    return errorAt(instruction, "random bits " + random.shape().toString(false) +
                                    " do not match the operand " + operand.shape().toString(false));
  if (llvm::Error error = checkOutput(instruction, out, to, operand.shape().dims()))
    return error;
  const int toBits = hlo::bitWidth(to);
  const int randomBits = hlo::bitWidth(randomType);
  const int64_t minValue = -(int64_t(1) << (toBits - 1));
  const int64_t maxValue = int64_t((uint64_t(1) << (toBits - 1)) - 1);
  return hlo::visitElementType(
      from,
      [&](auto tag) -> llvm::Error {
        using F = typename decltype(tag)::type;
        if constexpr (!isRealFloat<F>) {
          return unsupportedElementType(instruction, from);
        } else {
          using C = ComputeType<F>;
          for (int64_t i = 0, n = out.elementCount(); i < n; ++i) {
            C x = widen(operand.get<F>(i));
            uint64_t bits = random.getAsUint64(i);
            int64_t value;
            if (std::isnan(x)) {
              value = 0;
            } else if (x <= C(minValue)) {
              value = minValue;
            } else if (x >= C(maxValue)) {
              value = maxValue;
            } else {
              // The fraction scaled by 2^randomBits is exact in double and
              // truncates like the decomposition's float -> unsigned convert.
              C magnitude = std::fabs(x);
              C whole = std::floor(magnitude);
              C fraction = magnitude - whole; // exact in every binary float format
              double scaled = static_cast<double>(fraction) * std::ldexp(1.0, randomBits);
              uint64_t threshold = floatToInteger<uint64_t>(scaled, randomBits);
              int64_t truncated = static_cast<int64_t>(whole);
              if (bits < threshold)
                ++truncated;
              value = x < 0 ? -truncated : truncated;
            }
            out.setFromInt64(i, value);
          }
          return llvm::Error::success();
        }
      },
      [&]() -> llvm::Error { return unsupportedElementType(instruction, from); });
}

} // namespace mote::eval
