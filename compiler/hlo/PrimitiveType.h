//===- PrimitiveType.h - HLO element types ----------------------*- C++ -*-===//
///
/// \file
/// The element types HLO text can name, with their spelling and bit widths.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_PRIMITIVETYPE_H
#define MOTE_HLO_PRIMITIVETYPE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mote::hlo {

/// Element types in the order XLA's text format knows them. Tuple and Token are
/// shape kinds rather than element types, but HLO spells them the same way.
/// F6E2M3FN and F6E3M2FN are StableHLO's (MLIR's) 6-bit floats, which XLA's
/// HLO has no spelling for: Mote spells them f6e2m3fn and f6e3m2fn, the names
/// ml_dtypes gives them, so HLO text with them comes only from Mote itself
/// (`motec print --emit=hlo` of a StableHLO file).
enum class PrimitiveType : uint8_t {
  Invalid,
  Pred,
  S2,
  S4,
  S8,
  S16,
  S32,
  S64,
  U2,
  U4,
  U8,
  U16,
  U32,
  U64,
  F4E2M1FN,
  F6E2M3FN,
  F6E3M2FN,
  F8E5M2,
  F8E4M3,
  F8E4M3FN,
  F8E4M3B11FNUZ,
  F8E5M2FNUZ,
  F8E4M3FNUZ,
  F8E3M4,
  F8E8M0FNU,
  BF16,
  F16,
  F32,
  F64,
  C64,
  C128,
  Tuple,
  Token,
  Opaque,
};

/// The spelling used in HLO text, e.g. "f32", "pred", "token".
llvm::StringRef primitiveTypeName(PrimitiveType type);

/// Parses an HLO spelling; std::nullopt if it names no type.
std::optional<PrimitiveType> parsePrimitiveType(llvm::StringRef name);

/// Bits one element occupies in the logical value (pred is 1, s4 is 4).
/// Zero for tuple, token, opaque and invalid.
int bitWidth(PrimitiveType type);

/// Bytes one element occupies in a Literal (sub-byte types take a whole byte).
int storageBytes(PrimitiveType type);

bool isArrayElementType(PrimitiveType type); ///< not tuple/token/opaque/invalid
bool isSignedInteger(PrimitiveType type);    ///< s2..s64
bool isUnsignedInteger(PrimitiveType type);  ///< u2..u64
bool isInteger(PrimitiveType type);          ///< signed or unsigned, not pred
bool isFloatingPoint(PrimitiveType type);    ///< f4e2m1fn, f6*, f8*, bf16, f16, f32, f64
bool isComplex(PrimitiveType type);          ///< c64, c128
/// The narrow floats a Literal keeps as raw bits, one byte each: f4e2m1fn,
/// the f6 and the f8 types. Their arithmetic is f32 arithmetic rounded back
/// after every op (XLA's evaluator's rule).
bool isF8(PrimitiveType type);

/// The component type of a complex type (c64 -> f32, c128 -> f64).
PrimitiveType complexComponentType(PrimitiveType type);

} // namespace mote::hlo

#endif // MOTE_HLO_PRIMITIVETYPE_H
