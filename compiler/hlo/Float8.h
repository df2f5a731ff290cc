//===- Float8.h - 8-bit float encodings -------------------------*- C++ -*-===//
///
/// \file
/// Conversions between double and the raw bits of the f8 element types a
/// Literal stores. Rounding is to nearest, ties to even; values too large for
/// a type become infinity where the type has one and NaN otherwise.
///
/// The encodings (as in ml_dtypes, which XLA uses):
///   f8e5m2, f8e4m3, f8e3m4        IEEE-like: all-ones exponent is inf/NaN
///   f8e4m3fn                      no inf; only S.1111.111 is NaN
///   f8e4m3fnuz, f8e5m2fnuz,
///   f8e4m3b11fnuz                 no inf, no -0; 0x80 is the only NaN
///   f8e8m0fnu                     unsigned powers of two 2^(e-127); 0xff is NaN
///   f6e2m3fn, f6e3m2fn            6 bits, no inf, no NaN; overflow saturates
///   f4e2m1fn                      4 bits, no inf, no NaN; overflow saturates to 6
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_FLOAT8_H
#define MOTE_HLO_FLOAT8_H

#include "hlo/PrimitiveType.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace mote::hlo {

struct Float8Format {
  /// FiniteOnly: no infinity and no NaN (f4e2m1fn, f6*); overflow saturates.
  enum class Kind : uint8_t { Ieee, FiniteNan, Unsigned0x80Nan, PowerOfTwo, FiniteOnly };
  int exponentBits;
  int mantissaBits;
  int bias;
  Kind kind;
  int totalBits = 8;

  uint8_t signBit() const { return uint8_t(1u << (totalBits - 1)); }

  uint8_t maxFiniteCode() const {
    switch (kind) {
    case Kind::Ieee:
      return uint8_t((((1 << exponentBits) - 1) << mantissaBits) - 1);
    case Kind::FiniteNan:
      return 0x7e;
    case Kind::Unsigned0x80Nan:
      return 0x7f;
    case Kind::PowerOfTwo:
      return 0xfe;
    case Kind::FiniteOnly:
      return uint8_t(signBit() - 1);
    }
    return 0;
  }
  /// The NaN "nan" denotes; `negative` only matters for IEEE-like types.
  uint8_t defaultNan(bool negative) const {
    switch (kind) {
    case Kind::Ieee:
      return uint8_t((negative ? 0x80 : 0) | (((1 << exponentBits) - 1) << mantissaBits) |
                     (1 << (mantissaBits - 1)));
    case Kind::FiniteNan:
      return negative ? 0xff : 0x7f;
    case Kind::Unsigned0x80Nan:
      return 0x80;
    case Kind::PowerOfTwo:
      return 0xff;
    case Kind::FiniteOnly: // no NaN to give: zero, the least surprising value
      return 0;
    }
    return 0;
  }
};

/// The encoding of an f8 type; an E4M3 stand-in for other types.
inline Float8Format float8Format(PrimitiveType type) {
  using K = Float8Format::Kind;
  switch (type) {
  case PrimitiveType::F8E5M2:
    return {5, 2, 15, K::Ieee};
  case PrimitiveType::F8E4M3:
    return {4, 3, 7, K::Ieee};
  case PrimitiveType::F8E3M4:
    return {3, 4, 3, K::Ieee};
  case PrimitiveType::F8E4M3FN:
    return {4, 3, 7, K::FiniteNan};
  case PrimitiveType::F8E4M3B11FNUZ:
    return {4, 3, 11, K::Unsigned0x80Nan};
  case PrimitiveType::F8E5M2FNUZ:
    return {5, 2, 16, K::Unsigned0x80Nan};
  case PrimitiveType::F8E4M3FNUZ:
    return {4, 3, 8, K::Unsigned0x80Nan};
  case PrimitiveType::F8E8M0FNU:
    return {8, 0, 127, K::PowerOfTwo};
  case PrimitiveType::F4E2M1FN:
    return {2, 1, 1, K::FiniteOnly, 4};
  case PrimitiveType::F6E2M3FN:
    return {2, 3, 1, K::FiniteOnly, 6};
  case PrimitiveType::F6E3M2FN:
    return {3, 2, 3, K::FiniteOnly, 6};
  default:
    return {4, 3, 7, K::Ieee};
  }
}

inline double float8ToDouble(const Float8Format &format, uint8_t bits) {
  using K = Float8Format::Kind;
  if (format.kind == K::PowerOfTwo)
    return bits == 0xff ? std::nan("") : std::ldexp(1.0, int(bits) - 127);
  if (format.kind == K::Unsigned0x80Nan && bits == 0x80)
    return std::nan("");
  bool negative = bits & format.signBit();
  int exponentMask = (1 << format.exponentBits) - 1;
  int mantissaMask = (1 << format.mantissaBits) - 1;
  int exponent = (bits >> format.mantissaBits) & exponentMask;
  int mantissa = bits & mantissaMask;
  double magnitude;
  if (format.kind == K::Ieee && exponent == exponentMask) {
    magnitude = mantissa == 0 ? INFINITY : std::nan("");
  } else if (format.kind == K::FiniteNan && exponent == exponentMask && mantissa == mantissaMask) {
    magnitude = std::nan("");
  } else if (exponent == 0) {
    magnitude = std::ldexp(double(mantissa), 1 - format.bias - format.mantissaBits);
  } else {
    magnitude = std::ldexp(double(mantissa + (1 << format.mantissaBits)),
                           exponent - format.bias - format.mantissaBits);
  }
  return negative ? -magnitude : magnitude;
}

inline double float8ToDouble(PrimitiveType type, uint8_t bits) {
  return float8ToDouble(float8Format(type), bits);
}

inline uint8_t float8FromDouble(const Float8Format &format, double value) {
  using K = Float8Format::Kind;
  bool negative = std::signbit(value);
  if (std::isnan(value))
    return format.defaultNan(negative);
  double magnitude = std::fabs(value);
  if (format.kind == K::PowerOfTwo && negative && magnitude != 0)
    return format.defaultNan(false);
  uint8_t maxCode = format.maxFiniteCode();
  // The code just above the largest finite one, as if the exponent range went on:
  // reaching it means overflow.
  double maxValue = float8ToDouble(format, maxCode);
  double ulpAtMax = format.kind == K::PowerOfTwo
                        ? maxValue
                        : std::ldexp(1.0, std::ilogb(maxValue) - format.mantissaBits);
  double beyond = maxValue + ulpAtMax;
  unsigned code;
  if (std::isinf(magnitude)) {
    code = maxCode + 1u;
  } else {
    // Codes 0..maxCode encode increasing magnitudes: binary search the last
    // one not above `magnitude`, then round between it and its successor.
    int low = -1, high = maxCode; // invariant: value(low) <= magnitude < value(high + 1)
    while (low < high) {
      int middle = (low + high + 1) / 2;
      if (float8ToDouble(format, uint8_t(middle)) <= magnitude)
        low = middle;
      else
        high = middle - 1;
    }
    if (low < 0) {
      code = 0; // below the smallest power of two of f8e8m0fnu
    } else {
      double below = float8ToDouble(format, uint8_t(low));
      double above = low == maxCode ? beyond : float8ToDouble(format, uint8_t(low + 1));
      double toBelow = magnitude - below, toAbove = above - magnitude;
      if (toBelow < toAbove || (toBelow == toAbove && (low & 1) == 0))
        code = unsigned(low);
      else
        code = unsigned(low) + 1;
    }
  }
  uint8_t sign = negative ? format.signBit() : 0;
  if (code > maxCode) {
    if (format.kind == K::FiniteOnly)
      return uint8_t(sign | maxCode);
    if (format.kind == K::Ieee)
      return uint8_t(sign |
                     (((1 << format.exponentBits) - 1) << format.mantissaBits));
    return format.defaultNan(negative);
  }
  if (format.kind == K::PowerOfTwo || (format.kind == K::Unsigned0x80Nan && code == 0))
    return uint8_t(code);
  return uint8_t(sign | code);
}

inline uint8_t float8FromDouble(PrimitiveType type, double value) {
  return float8FromDouble(float8Format(type), value);
}

} // namespace mote::hlo

#endif // MOTE_HLO_FLOAT8_H
