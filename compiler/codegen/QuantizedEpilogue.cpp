//===- QuantizedEpilogue.cpp - A quantized rescale's last steps in integers ===//
//
// A quantized model ends each layer's rescale to s8 with
//
//   q = convert(clamp(lo, add(round-nearest-even(m), zp), hi)) -> s8
//
// where m is the f32 rescaled sum, zp the output zero point and lo, hi
// constants within s8 (the range, or a fused ReLU's). Once m is rounded, the
// rest is integer arithmetic done in floats: when m cannot be NaN, the same
// result is
//
//   i = convert(round-nearest-even(m)) -> s32      (saturating)
//   q = clamp(lo - zp, i, hi - zp) + zp -> s8
//
// (exact for every other m, infinities included: the saturated integer
// clamps like the float would), with integer lanes instead of a float add,
// two float compares and a conversion. The multiply by the scale, the
// rounding and their order stay as the HLO says.
//
// m cannot be NaN when it is built from integers converted to floats by
// multiplies and adds with constants that cannot make one (no 0 * inf, no
// inf - inf): a dequantized sum times its scales, plus a float bias.
//
// AArch64 narrows the integer to 8 bits with saturating instructions, which
// clamp to the type's range for free (emitSaturatingNarrow). Arm and RISC-V
// round by adding 1.5 * 2^23 and read the integer from the float's bits (see
// emitRequantization). x86 keeps the float steps: its saturating conversions to
// s32 lower one lane at a time in LLVM 16, and the float clamp already vectorises there.
//
//===----------------------------------------------------------------------===//

#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/ScalarOps.h"

#include "hlo/Literal.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>

namespace mote::codegen {

using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

/// What a float value built from constants and converted integers can be.
struct FloatFacts {
  bool nan = true;      ///< may be NaN
  bool infinite = true; ///< may be infinite
  bool zero = true;     ///< may be zero
};

FloatFacts constantFacts(const hlo::Instruction &instruction, InstructionResolver resolve) {
  const hlo::Instruction *value = &resolve(instruction);
  if (value->opcode() == Opcode::Broadcast && value->operandCount() == 1)
    value = &resolve(*value->operand(0));
  const hlo::Literal *literal = value->constantValue();
  if (!literal)
    return {};
  FloatFacts facts{false, false, false};
  for (int64_t i = 0, n = literal->elementCount(); i < n; ++i) {
    const double x = literal->getAsDouble(i);
    facts.nan |= std::isnan(x);
    facts.infinite |= std::isinf(x);
    facts.zero |= x == 0.0;
  }
  return facts;
}

FloatFacts floatFacts(const hlo::Instruction &unresolved, InstructionResolver resolve) {
  const hlo::Instruction &instruction = resolve(unresolved);
  switch (instruction.opcode()) {
  case Opcode::Convert: {
    const PrimitiveType from = instruction.operand(0)->shape().elementType();
    if (hlo::isInteger(from) || from == PrimitiveType::Pred)
      return {false, false, true};
    return {};
  }
  case Opcode::Constant:
  case Opcode::Broadcast:
    return constantFacts(instruction, resolve);
  case Opcode::Multiply: {
    const FloatFacts a = floatFacts(*instruction.operand(0), resolve);
    const FloatFacts b = floatFacts(*instruction.operand(1), resolve);
    const bool nan = a.nan || b.nan || (a.infinite && b.zero) || (b.infinite && a.zero);
    return {nan, true, true}; // overflow and underflow
  }
  case Opcode::Add:
  case Opcode::Subtract: {
    const FloatFacts a = floatFacts(*instruction.operand(0), resolve);
    const FloatFacts b = floatFacts(*instruction.operand(1), resolve);
    return {a.nan || b.nan || (a.infinite && b.infinite), true, true};
  }
  default:
    return {};
  }
}

bool isIntegral(std::optional<double> value) { return value && std::trunc(*value) == *value; }

/// The zero points emitSaturatingNarrow takes: a 16-bit value at a bound
/// plus the zero point stays beyond the 8-bit range on the same side.
constexpr int64_t kNarrowZeroLimit = 32767 - 255;

/// clamp(lo - zp, i, hi - zp) + zp as 8 bits for an s32 `value` i, in the
/// steps AArch64 narrows with: saturate to s16 (sqxtn), add the zero point
/// saturating (sqadd), saturate to the 8-bit type (sqxtn / sqxtun), then
/// clamp to lo and hi only where they are not the type's bounds. Each
/// saturation is monotonic and leaves [lo, hi] alone, and with |zp| within
/// kNarrowZeroLimit an s16 bound plus zp stays outside the 8-bit range, so
/// every i clamps to what the s32 steps give. LLVM 16 matches a clamp to
/// a narrower type's range followed by a truncation as sqxtn; the vectorizer
/// widens these generic operations, which it would not do for intrinsics.
llvm::Value *emitSaturatingNarrow(llvm::IRBuilderBase &b, llvm::Value *value,
                                  const Requantization &match, bool isSigned) {
  auto narrow = [&](llvm::Value *x, int64_t min, int64_t max, llvm::Type *type) {
    llvm::Type *from = x->getType();
    x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x,
                                llvm::ConstantInt::get(from, uint64_t(min), /*isSigned=*/true));
    x = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x,
                                llvm::ConstantInt::get(from, uint64_t(max), /*isSigned=*/true));
    return b.CreateTrunc(x, type);
  };
  llvm::Type *half = b.getInt16Ty(), *byte = b.getInt8Ty();
  value = narrow(value, -32768, 32767, half);
  if (match.zero)
    value = b.CreateBinaryIntrinsic(llvm::Intrinsic::sadd_sat, value,
                                    llvm::ConstantInt::get(half, uint64_t(match.zero), true));
  const int64_t min = isSigned ? -128 : 0, max = isSigned ? 127 : 255;
  value = narrow(value, min, max, byte);
  if (match.low > min)
    value = b.CreateBinaryIntrinsic(isSigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, value,
                                    llvm::ConstantInt::get(byte, uint64_t(match.low), isSigned));
  if (match.high < max)
    value = b.CreateBinaryIntrinsic(isSigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, value,
                                    llvm::ConstantInt::get(byte, uint64_t(match.high), isSigned));
  return value;
}

} // namespace

std::optional<Requantization> matchRequantization(const hlo::Instruction &convert,
                                                  InstructionResolver resolve) {
  const PrimitiveType to = convert.shape().elementType();
  const hlo::Instruction &clamp = *convert.operand(0);
  if (convert.opcode() != Opcode::Convert || !hlo::isInteger(to) || hlo::bitWidth(to) >= 32 ||
      clamp.opcode() != Opcode::Clamp || clamp.shape().elementType() != PrimitiveType::F32)
    return std::nullopt;
  Requantization match;
  const std::optional<double> low = scalarConstantValue(*clamp.operand(0));
  const std::optional<double> high = scalarConstantValue(*clamp.operand(2));
  const int bits = hlo::bitWidth(to);
  const double min = hlo::isSignedInteger(to) ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double max = std::ldexp(1.0, hlo::isSignedInteger(to) ? bits - 1 : bits) - 1.0;
  if (!isIntegral(low) || !isIntegral(high) || *low < min || *high > max || *low > *high)
    return std::nullopt;
  match.low = int64_t(*low);
  match.high = int64_t(*high);
  const hlo::Instruction *rounded = clamp.operand(1);
  if (rounded->opcode() == Opcode::Add) {
    for (int side = 0; side < 2; ++side) {
      const std::optional<double> zero = scalarConstantValue(*rounded->operand(size_t(side)));
      if (isIntegral(zero) && std::abs(*zero) <= 65536) {
        match.zero = int64_t(*zero);
        rounded = rounded->operand(size_t(1 - side));
        break;
      }
    }
  }
  if (rounded->opcode() != Opcode::RoundNearestEven ||
      floatFacts(*rounded->operand(0), resolve).nan)
    return std::nullopt;
  match.round = rounded;
  return match;
}

bool roundsInIntegers(const llvm::Triple &triple) {
  return triple.isAArch64() || triple.isARM() || triple.isThumb() || triple.isRISCV();
}

llvm::Value *ElementalEmitter::emitRequantization(const Requantization &match,
                                                  const hlo::Instruction &convert, IndexRef index) {
  llvm::IRBuilderBase &b = builder_;
  llvm::Value *scaled = operandAt(*match.round, 0, index);
  llvm::Type *word = b.getInt32Ty();
  llvm::Value *value;
  if (llvm::Triple(b.GetInsertBlock()->getModule()->getTargetTriple()).isAArch64()) {
    // Rounded and converted by one fcvtns (output/RoundingConversions.cpp).
    llvm::Value *rounded = emitRound(b, scaled, RoundingMode::HalfToEven);
    value = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {word, rounded->getType()}, {rounded});
  } else {
    // Arm and RISC-V: with |m| clamped to 2^22 (beyond which every value
    // clamps to lo or hi below anyway), m + 1.5 * 2^23 rounds m to nearest
    // even in the default rounding mode and holds the integer in its low
    // bits. No rounding or conversion instruction, so vectors stay vectors
    // (LLVM 16 splits Helium's copysign lane by lane), and no vfcvt.rtz
    // (QEMU 7.2 aborts translating it in some RVV code).
    llvm::Type *type = scaled->getType();
    llvm::Value *limit = llvm::ConstantFP::get(type, 0x1p22);
    llvm::Value *negativeLimit = llvm::ConstantFP::get(type, -0x1p22);
    llvm::Value *bounded =
        b.CreateSelect(b.CreateFCmpOLT(scaled, negativeLimit), negativeLimit, scaled);
    bounded = b.CreateSelect(b.CreateFCmpOGT(bounded, limit), limit, bounded);
    llvm::Value *shifted = b.CreateFAdd(bounded, llvm::ConstantFP::get(type, 0x1.8p23));
    value = b.CreateSub(b.CreateBitCast(shifted, word), llvm::ConstantInt::get(word, 0x4B400000));
  }
  const PrimitiveType to = convert.shape().elementType();
  if (llvm::Triple(b.GetInsertBlock()->getModule()->getTargetTriple()).isAArch64() &&
      hlo::bitWidth(to) == 8 && std::abs(match.zero) <= kNarrowZeroLimit)
    return emitSaturatingNarrow(b, value, match, hlo::isSignedInteger(to));
  auto constant = [&](int64_t x) { return llvm::ConstantInt::get(word, x, /*isSigned=*/true); };
  value = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, value, constant(match.low - match.zero));
  value = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, value, constant(match.high - match.zero));
  value = b.CreateAdd(value, constant(match.zero));
  return b.CreateTrunc(value, valueType(b.getContext(), convert.shape().elementType()));
}

} // namespace mote::codegen
