//===- ContractionTypes.h - Element types the tiled kernels take -*- C++ -*-===//
///
/// \file
/// Which dots and convolutions code generation runs as register-tiled
/// kernels, by element type, for the passes that prepare them (padding,
/// operand order, output fusion) and for code generation itself:
///  - floats: lhs, rhs and result all f32 or all f64;
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

/// Whether code generation tiles a contraction of these element types.
inline bool isTiledContractionType(hlo::PrimitiveType result, hlo::PrimitiveType lhs,
                                   hlo::PrimitiveType rhs) {
  using hlo::PrimitiveType;
  if (isIntegerContractionType(result, lhs, rhs))
    return true;
  return (result == PrimitiveType::F32 || result == PrimitiveType::F64) && lhs == result &&
         rhs == result;
}

} // namespace mote::passes

#endif // MOTE_PASSES_CONTRACTIONTYPES_H
