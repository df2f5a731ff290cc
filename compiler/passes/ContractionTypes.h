//===- ContractionTypes.h - Which dots and convolutions are tiled -*- C++ -*-===//
///
/// \file
/// The element types of the dots and convolutions code generation runs on
/// its register-tiled kernel: lhs, rhs and result each f16, bf16 or f32
/// (summed in f32, the evaluator's accumulation type for them), or all f64.
/// The passes that prepare contractions for the kernel (explicit padding,
/// output fusion) and the kernel itself ask the same question here.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_CONTRACTIONTYPES_H
#define MOTE_PASSES_CONTRACTIONTYPES_H

#include "hlo/PrimitiveType.h"

#include <optional>

namespace mote::passes {

/// The type a tiled contraction of these element types sums in, or nullopt
/// when it is not tiled.
inline std::optional<hlo::PrimitiveType>
tiledSumType(hlo::PrimitiveType lhs, hlo::PrimitiveType rhs, hlo::PrimitiveType result) {
  using hlo::PrimitiveType;
  auto summedInF32 = [](PrimitiveType type) {
    return type == PrimitiveType::F32 || type == PrimitiveType::F16 || type == PrimitiveType::BF16;
  };
  if (summedInF32(lhs) && summedInF32(rhs) && summedInF32(result))
    return PrimitiveType::F32;
  if (lhs == PrimitiveType::F64 && rhs == PrimitiveType::F64 && result == PrimitiveType::F64)
    return PrimitiveType::F64;
  return std::nullopt;
}

} // namespace mote::passes

#endif // MOTE_PASSES_CONTRACTIONTYPES_H
