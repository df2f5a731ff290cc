//===- PrimitiveType.cpp - HLO element types ------------------------------===//

#include "hlo/PrimitiveType.h"

#include "llvm/ADT/StringSwitch.h"

namespace mote::hlo {

namespace {
struct TypeInfo {
  PrimitiveType type;
  const char *name;
  int bits;
};

constexpr TypeInfo kTypes[] = {
    {PrimitiveType::Invalid, "invalid", 0},
    {PrimitiveType::Pred, "pred", 1},
    {PrimitiveType::S2, "s2", 2},
    {PrimitiveType::S4, "s4", 4},
    {PrimitiveType::S8, "s8", 8},
    {PrimitiveType::S16, "s16", 16},
    {PrimitiveType::S32, "s32", 32},
    {PrimitiveType::S64, "s64", 64},
    {PrimitiveType::U2, "u2", 2},
    {PrimitiveType::U4, "u4", 4},
    {PrimitiveType::U8, "u8", 8},
    {PrimitiveType::U16, "u16", 16},
    {PrimitiveType::U32, "u32", 32},
    {PrimitiveType::U64, "u64", 64},
    {PrimitiveType::F4E2M1FN, "f4e2m1fn", 4},
    {PrimitiveType::F6E2M3FN, "f6e2m3fn", 6},
    {PrimitiveType::F6E3M2FN, "f6e3m2fn", 6},
    {PrimitiveType::F8E5M2, "f8e5m2", 8},
    {PrimitiveType::F8E4M3, "f8e4m3", 8},
    {PrimitiveType::F8E4M3FN, "f8e4m3fn", 8},
    {PrimitiveType::F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {PrimitiveType::F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {PrimitiveType::F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {PrimitiveType::F8E3M4, "f8e3m4", 8},
    {PrimitiveType::F8E8M0FNU, "f8e8m0fnu", 8},
    {PrimitiveType::BF16, "bf16", 16},
    {PrimitiveType::F16, "f16", 16},
    {PrimitiveType::F32, "f32", 32},
    {PrimitiveType::F64, "f64", 64},
    {PrimitiveType::C64, "c64", 64},
    {PrimitiveType::C128, "c128", 128},
    {PrimitiveType::Tuple, "tuple", 0},
    {PrimitiveType::Token, "token", 0},
    {PrimitiveType::Opaque, "opaque", 0},
};

const TypeInfo &info(PrimitiveType type) {
  return kTypes[static_cast<unsigned>(type)];
}
} // namespace

llvm::StringRef primitiveTypeName(PrimitiveType type) { return info(type).name; }

std::optional<PrimitiveType> parsePrimitiveType(llvm::StringRef name) {
  for (const TypeInfo &entry : kTypes)
    if (entry.type != PrimitiveType::Invalid && name == entry.name)
      return entry.type;
  return std::nullopt;
}

int bitWidth(PrimitiveType type) { return info(type).bits; }

int storageBytes(PrimitiveType type) {
  int bits = bitWidth(type);
  return bits == 0 ? 0 : (bits + 7) / 8;
}

bool isArrayElementType(PrimitiveType type) {
  return type != PrimitiveType::Invalid && type != PrimitiveType::Tuple &&
         type != PrimitiveType::Token && type != PrimitiveType::Opaque;
}

bool isSignedInteger(PrimitiveType type) {
  return type >= PrimitiveType::S2 && type <= PrimitiveType::S64;
}

bool isUnsignedInteger(PrimitiveType type) {
  return type >= PrimitiveType::U2 && type <= PrimitiveType::U64;
}

bool isInteger(PrimitiveType type) { return isSignedInteger(type) || isUnsignedInteger(type); }

bool isF8(PrimitiveType type) {
  return type >= PrimitiveType::F4E2M1FN && type <= PrimitiveType::F8E8M0FNU;
}

bool isFloatingPoint(PrimitiveType type) {
  return isF8(type) || (type >= PrimitiveType::BF16 && type <= PrimitiveType::F64);
}

bool isComplex(PrimitiveType type) {
  return type == PrimitiveType::C64 || type == PrimitiveType::C128;
}

PrimitiveType complexComponentType(PrimitiveType type) {
  if (type == PrimitiveType::C64)
    return PrimitiveType::F32;
  if (type == PrimitiveType::C128)
    return PrimitiveType::F64;
  return PrimitiveType::Invalid;
}

} // namespace mote::hlo
