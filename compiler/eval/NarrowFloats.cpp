//===- NarrowFloats.cpp - Arithmetic on f4, f6 and f8 values --------------===//
//
// XLA's evaluator computes every op on an 8-bit float (or f4/f6) in f32 and
// rounds the result back to the narrow type (HloEvaluatorTypedVisitor<
// float8_*, float>): an add rounds once per add, a dot sums in f32 and rounds
// once at the end, a reduce rounds after each application of its reducer.
// That is what happens here: ops that compute (elementwise arithmetic,
// compare, dot, convolution, iota, ...) run on a stand-in of the instruction
// whose narrow types are f32, over operands widened exactly, and their
// results round to nearest even; ops that move values (slices, transposes,
// gathers, select, ...) work on the stored bytes as for any type, and ops
// with computations (reduce, sort, scatter, map, ...) call them on narrow
// scalars, whose ops come back here. A convert into a narrow type rounds
// once from the source value (through f64, exact for every source but s64
// and u64 beyond 2^53).
//
//===----------------------------------------------------------------------===//

#include "eval/OpEvaluators.h"

#include "hlo/Opcode.h"

#include <memory>
#include <vector>

namespace mote::eval {

using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

bool isNarrowArray(const Shape &shape) { return shape.isArray() && hlo::isF8(shape.elementType()); }

/// `shape` with a narrow element type replaced by `wide`.
Shape widened(const Shape &shape, PrimitiveType wide) {
  if (!isNarrowArray(shape))
    return shape;
  Shape result = Shape::array(wide, shape.dims());
  result.setLayout(shape.layout());
  return result;
}

/// Every element of `literal` converted exactly into `type` (f32 or f64), or
/// rounded into `type` (a narrow type) from f32 or f64.
hlo::Literal convertElements(const hlo::Literal &literal, PrimitiveType type) {
  Shape shape = Shape::array(type, literal.shape().dims());
  shape.setLayout(literal.shape().layout());
  hlo::Literal result(shape);
  for (int64_t i = 0, count = literal.elementCount(); i < count; ++i)
    result.setFromDouble(i, literal.getAsDouble(i));
  return result;
}

} // namespace

bool computesOnNarrowFloats(const hlo::Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Select: // moves values
    return false;
  case Opcode::Dot:
  case Opcode::Convolution:
  case Opcode::Iota:
  case Opcode::Rng:
  case Opcode::Cholesky:
  case Opcode::TriangularSolve:
  case Opcode::BatchNormGrad:
  case Opcode::BatchNormInference:
  case Opcode::BatchNormTraining:
    break;
  default:
    if (hlo::opcodeKind(instruction.opcode()) != hlo::OpcodeKind::Elementwise)
      return false;
  }
  if (isNarrowArray(instruction.shape()))
    return true;
  for (const hlo::Instruction *operand : instruction.operands())
    if (operand && isNarrowArray(operand->shape()))
      return true;
  return false;
}

Result evaluateWidened(const hlo::Instruction &instruction, Operands operands,
                       llvm::function_ref<Result(const hlo::Instruction &, Operands)> evaluate) {
  // A convert into a narrow type computes its result in f64, so that it
  // rounds once; everything else computes in f32, as XLA does.
  const PrimitiveType resultWide =
      instruction.opcode() == Opcode::Convert ? PrimitiveType::F64 : PrimitiveType::F32;
  const bool narrowResult = isNarrowArray(instruction.shape());

  std::vector<std::unique_ptr<hlo::Instruction>> operandStandIns;
  std::vector<hlo::Literal> wideOperands;
  wideOperands.reserve(operands.size());
  llvm::SmallVector<const hlo::Literal *, 4> standInOperands;
  for (size_t i = 0; i < operands.size(); ++i) {
    const hlo::Literal *operand = operands[i];
    if (operand && isNarrowArray(operand->shape())) {
      wideOperands.push_back(convertElements(*operand, PrimitiveType::F32));
      operand = &wideOperands.back();
    }
    standInOperands.push_back(operand);
  }
  hlo::Instruction standIn(instruction.opcode(), instruction.name().str(),
                           widened(instruction.shape(), resultWide));
  standIn.mutableAttributes() = instruction.attributes();
  standIn.setLocation(instruction.location());
  standIn.setParent(instruction.parent());
  for (hlo::Computation *called : instruction.calledComputations())
    standIn.addCalledComputation(called);
  for (const hlo::Instruction *operand : instruction.operands()) {
    operandStandIns.push_back(std::make_unique<hlo::Instruction>(
        Opcode::Parameter, operand->name().str(), widened(operand->shape(), PrimitiveType::F32)));
    standIn.addOperand(operandStandIns.back().get());
  }

  Result wide = evaluate(standIn, standInOperands);
  if (!wide || !narrowResult)
    return wide;
  return convertElements(*wide, instruction.shape().elementType());
}

} // namespace mote::eval
