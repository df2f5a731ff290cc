//===- NarrowContractionOperands.cpp - 8-bit operands for integer sums -----===//
//
// Quantized models reach Mote in two spellings: `dot(s8, s8) -> s32`, and
// (older exporters, XLA's own int8 rewrites) an s32 dot or convolution whose
// operands are `convert`s of s8 or u8 values, or s32 constants holding
// 8-bit weights. The second spelling would store 32-bit operands, four
// times the memory, and keep the kernels from 8-bit dot-product
// instructions. This pass gives such contractions their narrow operands
// back:
//  - an operand `convert(x)` from a narrower integer type becomes x when
//    the convert keeps every value of x, or when the operand is 32 bits
//    wide (the sums run modulo 2^32, where sign and zero extension of x
//    give the same residue: both are x's value or x's value + 2^n, and the
//    evaluator converts x itself to its u32 accumulator the same way);
//  - an integer constant operand wider than 8 bits whose values all fit in
//    s8, u8 or s16 is replaced by a constant of that type.
// Either way each product, and so each sum, is the same integer. Only
// contractions the integer kernels compute (ContractionTypes.h) change.
//
// It runs before ConvolutionPadding, which would otherwise pad the wide
// values, and before constant folding, which would fold a convert of a
// constant into a wide constant.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/ContractionTypes.h"
#include "passes/Passes.h"

#include "hlo/Literal.h"

namespace mote::passes {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

/// Whether converting integers of `from` to `to` keeps every value.
bool keepsValues(PrimitiveType from, PrimitiveType to) {
  if (hlo::bitWidth(from) >= hlo::bitWidth(to))
    return false;
  return hlo::isUnsignedInteger(from) || hlo::isSignedInteger(to);
}

bool isIntegerContraction(const Instruction &instruction) {
  if ((instruction.opcode() != Opcode::Dot && instruction.opcode() != Opcode::Convolution) ||
      instruction.operandCount() != 2 || !instruction.shape().isArray())
    return false;
  const hlo::Shape &lhs = instruction.operand(0)->shape();
  const hlo::Shape &rhs = instruction.operand(1)->shape();
  return lhs.isArray() && rhs.isArray() &&
         isIntegerContractionType(instruction.shape().elementType(), lhs.elementType(),
                                  rhs.elementType());
}

/// The narrowest of s8, u8 and s16 narrower than `literal`'s type that
/// holds all its values, or `literal`'s own type.
PrimitiveType narrowestHolding(const hlo::Literal &literal) {
  const PrimitiveType own = literal.shape().elementType();
  int64_t low = 0, high = 0;
  for (int64_t i = 0, n = literal.elementCount(); i < n; ++i) {
    const int64_t value =
        hlo::isSignedInteger(own) ? literal.getAsInt64(i) : int64_t(literal.getAsUint64(i));
    low = std::min(low, value);
    high = std::max(high, value);
  }
  for (auto [type, min, max] :
       {std::tuple{PrimitiveType::S8, -128, 127}, std::tuple{PrimitiveType::U8, 0, 255},
        std::tuple{PrimitiveType::S16, -32768, 32767}})
    if (hlo::bitWidth(type) < hlo::bitWidth(own) && low >= min && high <= max)
      return type;
  return own;
}

class OperandNarrowing {
public:
  OperandNarrowing(hlo::Computation &computation, NameTable &names)
      : computation_(computation), names_(names) {}

  bool run() {
    std::vector<Instruction *> contractions;
    for (const auto &instruction : computation_.instructions())
      if (isIntegerContraction(*instruction))
        contractions.push_back(instruction.get());
    bool changed = false;
    for (Instruction *contraction : contractions)
      for (size_t i = 0; i < 2; ++i)
        if (Instruction *narrow = narrowed(*contraction->operand(i))) {
          contraction->setOperand(i, narrow);
          changed = true;
        }
    if (changed)
      restoreDefinitionOrder(computation_);
    return changed;
  }

private:
  /// The narrow value standing for `operand`, or null.
  Instruction *narrowed(Instruction &operand) {
    const PrimitiveType type = operand.shape().elementType();
    if (operand.opcode() == Opcode::Convert && operand.operandCount() == 1) {
      Instruction *source = operand.operand(0);
      const PrimitiveType from = source->shape().elementType();
      if (source->shape().isArray() && isTiledIntegerType(from) &&
          (keepsValues(from, type) || (hlo::bitWidth(type) == 32 && hlo::bitWidth(from) < 32)))
        return source;
      return nullptr;
    }
    const hlo::Literal *values = operand.constantValue();
    if (!values)
      return nullptr;
    const hlo::Literal &literal = *values;
    const PrimitiveType narrow = narrowestHolding(literal);
    if (narrow == type)
      return nullptr;
    hlo::Literal value(hlo::Shape::array(narrow, operand.shape().dims()));
    for (int64_t i = 0, n = literal.elementCount(); i < n; ++i)
      value.setFromInt64(i, hlo::isSignedInteger(type) ? literal.getAsInt64(i)
                                                       : int64_t(literal.getAsUint64(i)));
    auto constant = makeInstruction(
        Opcode::Constant, names_.unique(operand.name().str() + ".narrow"), value.shape(), {});
    constant->mutableAttributes().literal = std::move(value);
    constant->setLocation(operand.location());
    return computation_.addInstruction(std::move(constant));
  }

  hlo::Computation &computation_;
  NameTable &names_;
};

} // namespace

llvm::Expected<bool> NarrowContractionOperands::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  for (const auto &computation : module.computations())
    changed |= OperandNarrowing(*computation, names).run();
  return changed;
}

} // namespace mote::passes
