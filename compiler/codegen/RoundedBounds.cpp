//===- RoundedBounds.cpp - f16 maximum and minimum of a rounded value -----===//
//
// A layer's relu after its bias add in f16: the add rounds its f32 sum s to
// f16, r = round(s), and maximum(r, c) compares r with a constant c. Rounding
// to nearest even is monotonic, so r < c exactly when s < t, t the least f32
// value whose rounding is not below c; and maximum(r, c) is round(s < t ? c :
// s): one rounding of an f32 select, where the plain code rounds s, widens r
// back and selects among the bits. When t itself rounds to c's bits, the
// select takes t instead of c, which is x86's one maxps(t, s). minimum is the
// mirror image, with t the greatest f32 value whose rounding is not above c.
//
// The evaluator's rules hold: a NaN s fails the compare and round(s) is the
// NaN the maximum keeps (its first operand); r equal to c (-0 and +0 alike)
// has s not below t, so r is kept as std::max keeps its first operand. A
// relu6 written as maximum then minimum rounds once: the minimum meets the
// maximum's rounded select and bounds that select in turn.
//
//===----------------------------------------------------------------------===//

#include "codegen/RoundedBounds.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <optional>

namespace mote::codegen {

namespace {

using llvm::APFloat;

/// f32 bits as an integer that orders like the values (-0 just below +0).
int64_t orderKey(uint32_t bits) {
  return (bits & 0x80000000u) ? -int64_t(bits & 0x7fffffffu) - 1 : int64_t(bits);
}

uint32_t bitsOfKey(int64_t key) {
  return key < 0 ? uint32_t(-(key + 1)) | 0x80000000u : uint32_t(key);
}

APFloat f32OfKey(int64_t key) {
  return APFloat(APFloat::IEEEsingle(), llvm::APInt(32, bitsOfKey(key)));
}

APFloat roundedToHalf(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &losesInfo);
  return value;
}

APFloat widened(const APFloat &half) {
  APFloat value = half;
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
  return value;
}

/// For a maximum (`below`), the least f32 value whose f16 rounding is not
/// below `bound`; for a minimum, the greatest whose rounding is not above
/// it. None when the neighbour of `bound` on that side is infinite.
std::optional<APFloat> roundingEdge(const APFloat &bound, bool below) {
  APFloat neighbour = bound;
  neighbour.next(/*nextDown=*/below);
  if (!neighbour.isFinite())
    return std::nullopt;
  // Search the f32 values between the neighbour and the bound (in order):
  // the neighbour's side rounds past the bound, the bound's side does not.
  int64_t past = orderKey(uint32_t(widened(neighbour).bitcastToAPInt().getZExtValue()));
  int64_t inside = orderKey(uint32_t(widened(bound).bitcastToAPInt().getZExtValue()));
  auto roundsPast = [&](int64_t key) {
    llvm::APFloat::cmpResult order = roundedToHalf(f32OfKey(key)).compare(bound);
    return order == (below ? APFloat::cmpLessThan : APFloat::cmpGreaterThan);
  };
  while ((below ? inside - past : past - inside) > 1) {
    int64_t middle = past + (inside - past) / 2;
    (roundsPast(middle) ? past : inside) = middle;
  }
  return f32OfKey(inside);
}

/// The f16 bits of a constant (a scalar or a splat), if `value` is one.
std::optional<uint16_t> constantBits(llvm::Value *value) {
  auto *constant = llvm::dyn_cast<llvm::Constant>(value);
  if (constant && constant->getType()->isVectorTy())
    constant = constant->getSplatValue();
  auto *integer = llvm::dyn_cast_or_null<llvm::ConstantInt>(constant);
  if (!integer || integer->getBitWidth() != 16)
    return std::nullopt;
  return uint16_t(integer->getZExtValue());
}

/// The f32 value f16 `bits` were rounded from by the target's conversion
/// (narrowToF16's fptrunc), or null.
llvm::Value *roundedFrom(llvm::Value *bits) {
  auto *cast = llvm::dyn_cast<llvm::BitCastInst>(bits);
  auto *rounding = cast ? llvm::dyn_cast<llvm::FPTruncInst>(cast->getOperand(0)) : nullptr;
  if (!rounding || !rounding->getOperand(0)->getType()->getScalarType()->isFloatTy())
    return nullptr;
  return rounding->getOperand(0);
}

} // namespace

llvm::Value *emitRoundedBound(llvm::IRBuilderBase &builder, hlo::Opcode opcode, llvm::Value *lhs,
                              llvm::Value *rhs) {
  if (opcode != hlo::Opcode::Maximum && opcode != hlo::Opcode::Minimum)
    return nullptr;
  llvm::Value *sum = roundedFrom(lhs);
  std::optional<uint16_t> bits = constantBits(rhs);
  if (!sum || !bits)
    return nullptr;
  const APFloat bound(APFloat::IEEEhalf(), llvm::APInt(16, *bits));
  if (!bound.isFinite())
    return nullptr;
  const bool maximum = opcode == hlo::Opcode::Maximum;
  std::optional<APFloat> edge = roundingEdge(bound, /*below=*/maximum);
  if (!edge)
    return nullptr;
  llvm::Type *type = sum->getType();
  llvm::Value *edgeValue = llvm::ConstantFP::get(type, *edge);
  llvm::Value *past =
      maximum ? builder.CreateFCmpOLT(sum, edgeValue) : builder.CreateFCmpOGT(sum, edgeValue);
  // The edge when it rounds to the bound's very bits (maxps / minps on
  // x86), else the bound itself.
  const bool edgeIsBound = roundedToHalf(*edge).bitcastToAPInt() == bound.bitcastToAPInt();
  llvm::Value *chosen = builder.CreateSelect(
      past, edgeIsBound ? edgeValue : llvm::ConstantFP::get(type, widened(bound)), sum);
  llvm::Type *halfType = builder.getHalfTy();
  llvm::Type *bitsType = builder.getInt16Ty();
  if (auto *vector = llvm::dyn_cast<llvm::VectorType>(type)) {
    halfType = llvm::VectorType::get(halfType, vector->getElementCount());
    bitsType = llvm::VectorType::get(bitsType, vector->getElementCount());
  }
  return builder.CreateBitCast(builder.CreateFPTrunc(chosen, halfType), bitsType);
}

} // namespace mote::codegen
