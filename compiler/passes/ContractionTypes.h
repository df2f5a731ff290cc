//===- ContractionTypes.h - Element types the tiled kernels take -*- C++ -*-===//
///
/// \file
/// Which dots and convolutions code generation runs as register-tiled
/// kernels, by element type, for the passes that prepare them (padding,
/// operand order, output fusion) and for code generation itself:
///  - floats: lhs, rhs and result each f16, bf16 or f32, in any mix, summed
///    in f32 (the evaluator's accumulation type for them); or all f64;
///  - integers: operands and result of 8, 16 or 32 bits, signed or not, in
///    any mix. Their sums run in 32-bit registers, which wrap modulo 2^32
///    exactly like the evaluator's sums (it accumulates every integer
///    result of at most 32 bits in u32), so any order of the products gives
///    the same bits.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_CONTRACTIONTYPES_H
#define MOTE_PASSES_CONTRACTIONTYPES_H

#include "hlo/PrimitiveType.h"

#include <optional>

namespace mote::passes {

/// An integer type a tiled integer contraction reads or writes.
inline bool isTiledIntegerType(hlo::PrimitiveType type) {
  using hlo::PrimitiveType;
  switch (type) {
  case PrimitiveType::S8:
  case PrimitiveType::U8:
  case PrimitiveType::S16:
  case PrimitiveType::U16:
  case PrimitiveType::S32:
  case PrimitiveType::U32:
    return true;
  default:
    return false;
  }
}

/// Whether a contraction of `lhs` and `rhs` into `result` sums in s32.
inline bool isIntegerContractionType(hlo::PrimitiveType result, hlo::PrimitiveType lhs,
                                     hlo::PrimitiveType rhs) {
  return isTiledIntegerType(result) && isTiledIntegerType(lhs) && isTiledIntegerType(rhs);
}

/// The type a tiled contraction of these element types sums in (f32, f64 or
/// s32), or nullopt when it is not tiled.
inline std::optional<hlo::PrimitiveType>
tiledSumType(hlo::PrimitiveType lhs, hlo::PrimitiveType rhs, hlo::PrimitiveType result) {
  using hlo::PrimitiveType;
  if (isIntegerContractionType(result, lhs, rhs))
    return PrimitiveType::S32;
  auto summedInF32 = [](PrimitiveType type) {
    return type == PrimitiveType::F32 || type == PrimitiveType::F16 || type == PrimitiveType::BF16;
  };
  if (summedInF32(lhs) && summedInF32(rhs) && summedInF32(result))
    return PrimitiveType::F32;
  if (lhs == PrimitiveType::F64 && rhs == PrimitiveType::F64 && result == PrimitiveType::F64)
    return PrimitiveType::F64;
  return std::nullopt;
}

/// Whether code generation tiles a contraction of these element types.
inline bool isTiledContractionType(hlo::PrimitiveType result, hlo::PrimitiveType lhs,
                                   hlo::PrimitiveType rhs) {
  return tiledSumType(lhs, rhs, result).has_value();
}

} // namespace mote::passes

#endif // MOTE_PASSES_CONTRACTIONTYPES_H
