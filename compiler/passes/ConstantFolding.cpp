//===- ConstantFolding.cpp - Evaluate instructions of constants -----------===//
//
// The reference evaluator has XLA's exact semantics, so folding with it is
// exact by construction. Each instruction is evaluated alone, in a scratch
// module whose entry takes the operand constants as parameters.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "eval/Evaluator.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <optional>

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

namespace {

bool isConstant(const Instruction &instruction) { return instruction.constantValue() != nullptr; }

bool mayFold(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Constant:
  case Opcode::Rng:
  case Opcode::RngGetAndUpdateState:
  case Opcode::RngBitGenerator:
  case Opcode::CustomCall:
  case Opcode::While: // could run for as long as it likes at compile time
  case Opcode::Conditional:
  case Opcode::Call:
  case Opcode::Fusion:
  case Opcode::AfterAll:
  case Opcode::AddDependency:
  case Opcode::OptimizationBarrier:
  case Opcode::Domain:
  case Opcode::PartitionId:
  case Opcode::ReplicaId:
    return false;
  default:
    break;
  }
  if (hlo::isMultiDevice(instruction.opcode()))
    return false;
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray() || shape.hasDynamicDims())
    return false;
  return llvm::all_of(instruction.operands(),
                      [](const Instruction *operand) { return isConstant(*operand); });
}

/// Ops whose evaluation costs about one step per element.
bool movesOrMapsElements(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Transpose:
  case Opcode::Reshape:
  case Opcode::Bitcast:
  case Opcode::Copy:
  case Opcode::Reverse:
  case Opcode::Slice:
  case Opcode::Concatenate:
    return true;
  default:
    return hlo::opcodeKind(instruction.opcode()) == hlo::OpcodeKind::Elementwise;
  }
}

/// Small enough to become read-only data. A large result still folds when
/// it merely rearranges or maps constants it is the only user of (bound
/// weights transposed into the order a kernel reads them): those constants
/// then go, so read-only data does not grow.
bool smallEnough(const Instruction &instruction, int64_t maxElements,
                 const llvm::DenseMap<const Instruction *, unsigned> &users) {
  int64_t elements = instruction.shape().elementCount();
  if (elements > maxElements) {
    if (!movesOrMapsElements(instruction))
      return false;
    uint64_t freed = 0;
    for (const Instruction *operand : instruction.operands())
      if (users.lookup(operand) == 1 && operand->shape().isArray())
        freed += arrayBytes(operand->shape());
    return arrayBytes(instruction.shape()) <= freed;
  }
  int64_t largestOperand = 0;
  for (const Instruction *operand : instruction.operands())
    if (operand->shape().isArray())
      largestOperand = std::max(largestOperand, operand->shape().elementCount());
  return elements <= ConstantFolding::kTinyElements || elements <= largestOperand;
}

llvm::Expected<hlo::Literal> evaluateAlone(const Instruction &instruction,
                                           eval::ContractionArithmetic arithmetic) {
  hlo::Module scratch("constant_folding");
  auto computation = std::make_unique<Computation>("fold");
  std::vector<hlo::Literal> arguments;
  auto clone = std::make_unique<Instruction>(instruction);
  clone->clearOperands();
  for (auto [number, operand] : llvm::enumerate(instruction.operands())) {
    auto parameter =
        makeInstruction(Opcode::Parameter, "p" + std::to_string(number), operand->shape(), {});
    parameter->mutableAttributes().parameterNumber = static_cast<int64_t>(number);
    clone->addOperand(computation->addInstruction(std::move(parameter)));
    arguments.push_back(*operand->attributes().literal);
  }
  computation->setRoot(computation->addInstruction(std::move(clone)));
  scratch.setEntry(scratch.addComputation(std::move(computation)));
  eval::EvaluatorOptions options;
  options.contraction = arithmetic;
  eval::Evaluator evaluator(scratch, options);
  return evaluator.run(arguments);
}

/// get-dimension-size of a static dimension: its size, whatever the
/// operand's values (which need not be constant).
std::optional<hlo::Literal> staticDimensionSize(const Instruction &instruction) {
  if (instruction.opcode() != Opcode::GetDimensionSize || instruction.operandCount() != 1)
    return std::nullopt;
  const hlo::Shape &shape = instruction.operand(0)->shape();
  const auto &dimensions = instruction.attributes().dimensions;
  if (!shape.isArray() || dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= shape.rank() || shape.isDynamicDim(dimensions[0]) ||
      instruction.shape().elementType() != hlo::PrimitiveType::S32)
    return std::nullopt;
  return hlo::Literal::scalar<int32_t>(hlo::PrimitiveType::S32,
                                       static_cast<int32_t>(shape.dim(dimensions[0])));
}

} // namespace

llvm::Expected<bool> ConstantFolding::run(hlo::Module &module) {
  bool changed = false;
  for (const auto &computation : module.computations()) {
    llvm::DenseMap<const Instruction *, unsigned> users;
    for (const auto &owned : computation->instructions())
      for (const Instruction *operand : owned->operands())
        ++users[operand];
    if (computation->root())
      ++users[computation->root()];
    for (const auto &owned : computation->instructions()) {
      Instruction &instruction = *owned;
      std::optional<hlo::Literal> size = staticDimensionSize(instruction);
      if (!size && (!mayFold(instruction) || !smallEnough(instruction, maxElements_, users)))
        continue;
      llvm::Expected<hlo::Literal> value = size ? llvm::Expected<hlo::Literal>(std::move(*size))
                                                : evaluateAlone(instruction, arithmetic_);
      if (!value) {
        // Left for run time, where the same error (if any) is reported in context.
        llvm::consumeError(value.takeError());
        continue;
      }
      if (!value->shape().compatible(instruction.shape()))
        continue;
      value->setLayout(instruction.shape().layout());
      // Replaced in place: users keep pointing at the same instruction, and a
      // constant has no operands, so definition order stays valid.
      Instruction folded(Opcode::Constant, instruction.name().str(), instruction.shape());
      folded.mutableAttributes().literal = std::move(*value);
      folded.setParent(instruction.parent());
      folded.setLocation(instruction.location());
      for (const Instruction *operand : instruction.operands())
        --users[operand];
      instruction = std::move(folded);
      changed = true;
    }
  }
  return changed;
}

} // namespace mote::passes
