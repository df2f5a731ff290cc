//===- FloatTypes.h - 16-bit float storage types ----------------*- C++ -*-===//
///
/// \file
/// bf16 and f16 values as stored in a Literal: the raw bits, converted to and
/// from float with round-to-nearest-even (what XLA and IEEE 754 do).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_FLOATTYPES_H
#define MOTE_HLO_FLOATTYPES_H

#include <cstdint>
#include <cstring>

namespace mote::hlo {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// Brain float: the top 16 bits of an IEEE single.
struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value) : bits(fromFloat(value)) {}
  static BFloat16 fromBits(uint16_t raw) {
    BFloat16 v;
    v.bits = raw;
    return v;
  }
  explicit operator float() const { return floatFromBits(uint32_t(bits) << 16); }

  static uint16_t fromFloat(float value) {
    uint32_t b = floatBits(value);
    if ((b & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign, force quiet.
      return uint16_t((b >> 16) | 0x0040u);
    uint32_t roundingBias = 0x7fffu + ((b >> 16) & 1u);
    return uint16_t((b + roundingBias) >> 16);
  }
};

/// IEEE binary16.
struct Float16 {
  uint16_t bits = 0;

  Float16() = default;
  explicit Float16(float value) : bits(fromFloat(value)) {}
  static Float16 fromBits(uint16_t raw) {
    Float16 v;
    v.bits = raw;
    return v;
  }
  explicit operator float() const { return toFloat(bits); }

  static float toFloat(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) // inf or NaN
      return floatFromBits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
      if (mantissa == 0)
        return floatFromBits(sign);
      // Subnormal: value = mantissa * 2^-24, exact in float.
      float magnitude = float(mantissa) * 5.9604644775390625e-08f;
      return sign ? -magnitude : magnitude;
    }
    return floatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }

  static uint16_t fromFloat(float value) {
    uint32_t b = floatBits(value);
    uint16_t sign = uint16_t((b >> 16) & 0x8000u);
    uint32_t abs = b & 0x7fffffffu;
    if (abs > 0x7f800000u) // NaN: keep the top payload bits, force quiet.
      return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    if (abs >= 0x477ff000u) // rounds to >= 65520: overflow to infinity
      return uint16_t(sign | 0x7c00u);
    if (abs < 0x38800000u) { // below the smallest normal half (2^-14)
      // Round abs * 2^24 to an integer, ties to even, in double (exact).
      double scaled = double(floatFromBits(abs)) * 16777216.0;
      double whole = static_cast<double>(static_cast<uint32_t>(scaled));
      double frac = scaled - whole;
      uint32_t m = static_cast<uint32_t>(whole);
      if (frac > 0.5 || (frac == 0.5 && (m & 1u)))
        ++m;
      return uint16_t(sign | m); // m == 0x400 correctly becomes the smallest normal
    }
    uint32_t rounded = abs + 0x0fffu + ((abs >> 13) & 1u);
    return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
  }
};

} // namespace mote::hlo

#endif // MOTE_HLO_FLOATTYPES_H
