//===- ShapeFolding.cpp - Integer shape arithmetic on constants -----------===//
///
/// \file
/// Shape-polymorphic exports compute the shapes their dynamic ops take
/// (get_dimension_size, reshape, concatenate, arithmetic). Once the
/// arguments pin every dimension those values are constants in disguise;
/// this folds the few ops such computations use, so the dynamic ops can
/// become static ones. Anything else is "not a constant".
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Converter.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;

namespace {

bool fold(const Instruction *value, llvm::SmallVectorImpl<int64_t> &out, int depth) {
  out.clear();
  // Shapes are vectors; a constant may have any rank (dynamic_conv's padding).
  if (depth > 32 || !value->shape().isArray() ||
      (value->shape().rank() > 1 && value->opcode() != Opcode::Constant))
    return false;
  switch (value->opcode()) {
  case Opcode::Constant: {
    if (!value->attributes().literal)
      return false;
    const hlo::Literal &literal = *value->attributes().literal;
    if (!hlo::isInteger(literal.shape().elementType()))
      return false;
    for (int64_t i = 0; i < literal.elementCount(); ++i)
      out.push_back(literal.getAsInt64(i));
    return true;
  }
  case Opcode::Convert:
  case Opcode::Reshape:
  case Opcode::Copy:
    return hlo::isInteger(value->shape().elementType()) && fold(value->operand(0), out, depth + 1);
  case Opcode::Broadcast: {
    llvm::SmallVector<int64_t, 4> scalar;
    if (!fold(value->operand(0), scalar, depth + 1) || scalar.size() != 1)
      return false;
    out.assign(static_cast<size_t>(value->shape().elementCount()), scalar.front());
    return true;
  }
  case Opcode::Concatenate:
    for (const Instruction *operand : value->operands()) {
      llvm::SmallVector<int64_t, 4> part;
      if (!fold(operand, part, depth + 1))
        return false;
      out.append(part.begin(), part.end());
    }
    return true;
  case Opcode::Slice: {
    llvm::SmallVector<int64_t, 4> whole;
    if (!fold(value->operand(0), whole, depth + 1) || value->attributes().slice.size() != 1)
      return false;
    const hlo::SliceDimension &slice = value->attributes().slice.front();
    for (int64_t i = slice.start; i < slice.limit && i < static_cast<int64_t>(whole.size());
         i += slice.stride)
      out.push_back(whole[i]);
    return true;
  }
  case Opcode::Add:
  case Opcode::Subtract:
  case Opcode::Multiply:
  case Opcode::Divide:
  case Opcode::Maximum:
  case Opcode::Minimum: {
    llvm::SmallVector<int64_t, 4> a, b;
    if (!fold(value->operand(0), a, depth + 1) || !fold(value->operand(1), b, depth + 1) ||
        a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i) {
      switch (value->opcode()) {
      case Opcode::Add:
        out.push_back(a[i] + b[i]);
        break;
      case Opcode::Subtract:
        out.push_back(a[i] - b[i]);
        break;
      case Opcode::Multiply:
        out.push_back(a[i] * b[i]);
        break;
      case Opcode::Divide:
        if (b[i] == 0)
          return false;
        out.push_back(a[i] / b[i]);
        break;
      case Opcode::Maximum:
        out.push_back(std::max(a[i], b[i]));
        break;
      default:
        out.push_back(std::min(a[i], b[i]));
      }
    }
    return true;
  }
  default:
    return false;
  }
}

} // namespace

bool constantIntegers(const Instruction *value, llvm::SmallVectorImpl<int64_t> &out) {
  return fold(value, out, 0);
}

} // namespace mote::stablehlo
