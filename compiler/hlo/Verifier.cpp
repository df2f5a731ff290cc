//===- Verifier.cpp - Structural and shape checks for HLO -----------------===//
//
// Runs in three passes so later checks can rely on earlier ones: the module's
// structure (roots, parameters, operand order, callees, constants holding
// their data, fusions owning their computations), then the call graph (no
// recursion, which would hang evaluation), then every instruction's shape
// against shape inference and the entry layout against the entry computation.
//
// The same checks run after every pass of the compile pipeline in debug and
// test builds (passes/Pass.h), so they are the invariants every pass keeps,
// and code generation may rely on them.
//
//===----------------------------------------------------------------------===//

#include "hlo/Verifier.h"

#include "hlo/Diagnostics.h"
#include "hlo/ShapeInference.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <vector>

namespace mote::hlo {
namespace {

llvm::Error computationError(const Computation &computation, const llvm::Twine &message) {
  return errorAt(computation.location(), "in computation %" + computation.name() + ": " + message);
}

/// How many computations an op calls: exactly `count`, or at least `count`
/// when `orMore` is set.
struct CalleeArity {
  size_t count;
  bool orMore;
};

CalleeArity calleeArity(Opcode opcode) {
  switch (opcode) {
  case Opcode::Reduce:
  case Opcode::ReduceWindow:
  case Opcode::Map:
  case Opcode::Scatter:
  case Opcode::Sort:
  case Opcode::Call:
  case Opcode::Fusion:
    return {1, false};
  case Opcode::SelectAndScatter:
  case Opcode::While:
    return {2, false};
  case Opcode::Conditional:
    return {1, true};
  case Opcode::CustomCall:
    return {0, true};
  default:
    // Collectives (all-reduce, reduce-scatter, async-start...) may call.
    return {0, isMultiDevice(opcode)};
  }
}

/// Dimensions non-negative (or unbounded, `?`) and a layout, when written,
/// that permutes them.
llvm::Error checkShapeWellFormed(const Instruction &instruction, const Shape &shape) {
  if (shape.isTuple()) {
    for (const Shape &element : shape.tupleElements())
      if (llvm::Error error = checkShapeWellFormed(instruction, element))
        return error;
    return llvm::Error::success();
  }
  if (!shape.isArray())
    return llvm::Error::success();
  for (int64_t i = 0; i < shape.rank(); ++i) {
    bool unbounded = shape.dim(i) == Shape::kUnboundedSize && shape.isDynamicDim(i);
    if (shape.dim(i) < 0 && !unbounded)
      return errorAt(instruction, "shape " + shape.toString() + " has a negative dimension");
  }
  if (const auto &layout = shape.layout()) {
    llvm::SmallVector<bool, 8> seen(shape.rank(), false);
    bool valid = static_cast<int64_t>(layout->minorToMajor.size()) == shape.rank();
    for (int64_t dim : layout->minorToMajor) {
      if (!valid || dim < 0 || dim >= shape.rank() || seen[dim]) {
        valid = false;
        break;
      }
      seen[dim] = true;
    }
    if (!valid)
      return errorAt(instruction, "layout of " + shape.toString() + " must list each of its " +
                                      llvm::Twine(shape.rank()) + " dimensions once");
  }
  return llvm::Error::success();
}

/// Ops whose operands may carry different floating-point types: they pass
/// values through, group them, or (dot, convolution) name their result type.
bool mayMixPrecision(Opcode opcode) {
  switch (opcode) {
  case Opcode::Call:
  case Opcode::Conditional:
  case Opcode::Constant:
  case Opcode::Convolution:
  case Opcode::Dot:
  case Opcode::CustomCall:
  case Opcode::Domain:
  case Opcode::Fusion:
  case Opcode::GetTupleElement:
  case Opcode::OptimizationBarrier:
  case Opcode::Parameter:
  case Opcode::ReducePrecision:
  case Opcode::ReduceWindow:
  case Opcode::Sort:
  case Opcode::Tuple:
  case Opcode::While:
    return true;
  default:
    return isMultiDevice(opcode);
  }
}

/// Shape inference lets f32 meet bf16 (the result takes the wider type), but
/// like XLA's default verifier a module must say so with converts: the
/// operands of most ops, and a reducer's parameters against the operands,
/// share one floating-point type.
llvm::Error checkNoMixedPrecision(const Instruction &instruction) {
  if (!mayMixPrecision(instruction.opcode())) {
    PrimitiveType seen = PrimitiveType::Invalid;
    for (const Instruction *operand : instruction.operands()) {
      llvm::SmallVector<const Shape *, 4> leaves;
      operand->shape().collectLeaves(leaves);
      for (const Shape *leaf : leaves) {
        if (!isFloatingPoint(leaf->elementType()))
          continue;
        if (seen == PrimitiveType::Invalid)
          seen = leaf->elementType();
        else if (seen != leaf->elementType())
          return errorAt(instruction, opcodeName(instruction.opcode()) +
                                          ": operands mix floating-point types " +
                                          primitiveTypeName(seen) + " and " +
                                          primitiveTypeName(leaf->elementType()) +
                                          "; convert them to one type first");
      }
    }
  }
  Opcode opcode = instruction.opcode();
  if (opcode != Opcode::Reduce && opcode != Opcode::Map && opcode != Opcode::ReduceWindow)
    return llvm::Error::success();
  // Inference already matched the signature up to fp precision.
  const Computation &callee = *instruction.calledComputation(0);
  for (size_t i = 0; i < instruction.operandCount() && i < callee.parameterCount(); ++i) {
    PrimitiveType parameter = callee.parameter(i)->shape().elementType();
    PrimitiveType operand = instruction.operand(i)->shape().elementType();
    if (parameter != operand)
      return errorAt(instruction, opcodeName(opcode) + ": to_apply parameter " + llvm::Twine(i) +
                                      " is " + primitiveTypeName(parameter) + " but operand " +
                                      llvm::Twine(i) + " is " + primitiveTypeName(operand));
  }
  return llvm::Error::success();
}

/// Whether a literal holds exactly the bytes `shape` needs, recursively.
bool literalFits(const Literal &literal, const Shape &shape) {
  if (!literal.shape().compatible(shape))
    return false;
  if (shape.isTuple()) {
    if (literal.tupleSize() != shape.tupleElements().size())
      return false;
    for (size_t i = 0; i < literal.tupleSize(); ++i)
      if (!literalFits(literal.element(i), shape.tupleElement(i)))
        return false;
    return true;
  }
  if (!shape.isArray())
    return true;
  uint64_t bytes = uint64_t(shape.elementCount()) * storageBytes(shape.elementType());
  return literal.bytes().size() == bytes;
}

/// A constant holds a value of its own shape, or is marked as elided by the
/// dumper (`{...}`), which every command but check and print refuses.
llvm::Error checkConstantData(const Instruction &constant) {
  const InstructionAttributes &attributes = constant.attributes();
  if (attributes.literalElided) {
    if (attributes.literal)
      return errorAt(constant, "constant is marked elided but holds a value");
    return llvm::Error::success();
  }
  if (!attributes.literal)
    return errorAt(constant, "constant has no value and is not marked elided");
  if (!constant.shape().isValid() || !literalFits(*attributes.literal, constant.shape()))
    return errorAt(constant, "constant's value " + attributes.literal->shape().toString(false) +
                                 " does not fill its shape " + constant.shape().toString(false));
  return llvm::Error::success();
}

/// The entry and every computation it calls, directly or not, in module order.
std::vector<const Computation *> reachableFromEntry(const Module &module) {
  llvm::SmallPtrSet<const Computation *, 16> reached{module.entry()};
  llvm::SmallVector<const Computation *, 16> worklist{module.entry()};
  while (!worklist.empty())
    for (const auto &instruction : worklist.pop_back_val()->instructions())
      for (const Computation *callee : instruction->calledComputations())
        if (callee && reached.insert(callee).second)
          worklist.push_back(callee);
  std::vector<const Computation *> ordered;
  for (const auto &computation : module.computations())
    if (reached.contains(computation.get()))
      ordered.push_back(computation.get());
  return ordered;
}

class ModuleVerifier {
public:
  explicit ModuleVerifier(const Module &module) : module_(module) {}

  llvm::Error run() {
    if (!module_.entry())
      return errorAt(llvm::SMLoc(), "module '" + module_.name() + "' has no entry computation");
    for (const auto &computation : module_.computations())
      computations_.insert(computation.get());
    if (!computations_.contains(module_.entry()))
      return computationError(*module_.entry(), "the entry computation is not in the module");
    for (const auto &computation : module_.computations())
      if (llvm::Error error = checkStructure(*computation))
        return error;
    if (llvm::Error error = checkFusionOwnership())
      return error;
    for (const auto &computation : module_.computations())
      if (llvm::Error error = checkNoRecursion(*computation))
        return error;
    // Shapes are checked where they matter: in computations the entry reaches.
    // A computation nothing calls is never compiled or run; importer test
    // files carry such computations deliberately unverified.
    for (const Computation *computation : reachableComputations())
      for (const auto &instruction : computation->instructions())
        if (llvm::Error error = checkShape(*instruction))
          return error;
    return checkEntryLayout();
  }

private:
  std::vector<const Computation *> reachableComputations() const {
    return reachableFromEntry(module_);
  }

  llvm::Error checkStructure(const Computation &computation);
  llvm::Error checkParameters(const Computation &computation);
  llvm::Error checkCallees(const Instruction &instruction);
  llvm::Error checkFusionOwnership();
  llvm::Error checkNoRecursion(const Computation &computation);
  llvm::Error checkShape(const Instruction &instruction);
  llvm::Error checkEntryLayout();

  const Module &module_;
  llvm::SmallPtrSet<const Computation *, 16> computations_;
  /// Computations whose callees were all checked for recursion.
  llvm::SmallPtrSet<const Computation *, 16> acyclic_;
};

llvm::Error ModuleVerifier::checkParameters(const Computation &computation) {
  std::map<int64_t, const Instruction *> byNumber;
  for (const auto &instruction : computation.instructions()) {
    if (instruction->opcode() != Opcode::Parameter)
      continue;
    int64_t number = instruction->attributes().parameterNumber;
    if (number < 0)
      return errorAt(*instruction, "negative parameter number " + llvm::Twine(number));
    auto [it, inserted] = byNumber.try_emplace(number, instruction.get());
    if (!inserted)
      return errorAt(*instruction, "parameter number " + llvm::Twine(number) +
                                       " is already used by %" + it->second->name());
  }
  for (int64_t i = 0; i < static_cast<int64_t>(byNumber.size()); ++i)
    if (!byNumber.count(i))
      return computationError(computation, "parameters must be numbered 0.." +
                                               llvm::Twine(byNumber.size() - 1) +
                                               " but parameter " + llvm::Twine(i) + " is missing");
  return llvm::Error::success();
}

llvm::Error ModuleVerifier::checkCallees(const Instruction &instruction) {
  size_t count = instruction.calledComputations().size();
  CalleeArity arity = calleeArity(instruction.opcode());
  if (arity.orMore ? count < arity.count : count != arity.count) {
    if (arity.count == 0 && !arity.orMore)
      return errorAt(instruction, opcodeName(instruction.opcode()) +
                                      " does not call computations, but calls " +
                                      llvm::Twine(count));
    return errorAt(instruction, opcodeName(instruction.opcode()) + " expects " +
                                    (arity.orMore ? "at least " : "") + llvm::Twine(arity.count) +
                                    " called computation" + (arity.count == 1 ? "" : "s") +
                                    ", got " + llvm::Twine(count));
  }
  for (const Computation *callee : instruction.calledComputations()) {
    if (!callee)
      return errorAt(instruction, "calls a missing computation");
    if (!computations_.contains(callee))
      return errorAt(instruction, "calls %" + callee->name() + ", which is not in the module");
  }
  return llvm::Error::success();
}

llvm::Error ModuleVerifier::checkStructure(const Computation &computation) {
  const Instruction *root = computation.root();
  if (!root)
    return computationError(computation, "has no root instruction");
  if (root->parent() != &computation)
    return computationError(computation, "its root %" + root->name() + " belongs elsewhere");
  if (llvm::Error error = checkParameters(computation))
    return error;
  llvm::DenseMap<const Instruction *, size_t> position;
  llvm::StringSet<> names;
  for (const auto &owned : computation.instructions()) {
    const Instruction &instruction = *owned;
    if (instruction.parent() != &computation)
      return errorAt(instruction, "instruction's parent is not computation %" + computation.name());
    if (!names.insert(instruction.name()).second)
      return errorAt(instruction,
                     "another instruction in %" + computation.name() + " has the same name");
    for (size_t i = 0; i < instruction.operandCount(); ++i) {
      const Instruction *operand = instruction.operand(i);
      if (!operand)
        return errorAt(instruction, "operand " + llvm::Twine(i) + " is missing");
      if (operand->parent() != &computation)
        return errorAt(instruction, "operand " + llvm::Twine(i) + " %" + operand->name() +
                                        " is not in computation %" + computation.name());
      if (!position.count(operand))
        return errorAt(instruction, "operand " + llvm::Twine(i) + " %" + operand->name() +
                                        " is used before it is defined");
    }
    if (llvm::Error error = checkCallees(instruction))
      return error;
    if (instruction.opcode() == Opcode::Constant)
      if (llvm::Error error = checkConstantData(instruction))
        return error;
    position[&instruction] = position.size();
  }
  if (!position.count(root))
    return computationError(computation,
                            "its root %" + root->name() + " is not among its instructions");
  return llvm::Error::success();
}

/// A fusion's computation is its own: passes rewrite one fusion's body in
/// place, which must not change what another instruction computes.
llvm::Error ModuleVerifier::checkFusionOwnership() {
  llvm::DenseMap<const Computation *, llvm::SmallVector<const Instruction *, 2>> callers;
  for (const auto &computation : module_.computations())
    for (const auto &instruction : computation->instructions())
      for (const Computation *callee : instruction->calledComputations())
        callers[callee].push_back(instruction.get());
  for (const auto &computation : module_.computations()) {
    auto found = callers.find(computation.get());
    if (found == callers.end() || found->second.size() < 2)
      continue;
    for (const Instruction *caller : found->second)
      if (caller->opcode() == Opcode::Fusion) {
        const Instruction *other =
            found->second.front() == caller ? found->second[1] : found->second.front();
        return errorAt(*other, "calls %" + computation->name() + ", the computation of fusion %" +
                                   caller->name() +
                                   " (a fusion's computation has no other caller)");
      }
  }
  return llvm::Error::success();
}

llvm::Error ModuleVerifier::checkNoRecursion(const Computation &start) {
  // Iterative depth-first search; `onPath` holds the computations being
  // expanded, so reaching one of them again is a cycle.
  struct Frame {
    const Computation *computation;
    size_t instruction = 0;
    size_t callee = 0;
  };
  llvm::SmallVector<Frame, 8> stack;
  llvm::SmallPtrSet<const Computation *, 8> onPath;
  if (acyclic_.contains(&start))
    return llvm::Error::success();
  stack.push_back({&start});
  onPath.insert(&start);
  while (!stack.empty()) {
    Frame &frame = stack.back();
    const auto &instructions = frame.computation->instructions();
    if (frame.instruction == instructions.size()) {
      acyclic_.insert(frame.computation);
      onPath.erase(frame.computation);
      stack.pop_back();
      continue;
    }
    const Instruction &instruction = *instructions[frame.instruction];
    if (frame.callee == instruction.calledComputations().size()) {
      ++frame.instruction;
      frame.callee = 0;
      continue;
    }
    const Computation *callee = instruction.calledComputation(frame.callee++);
    if (onPath.contains(callee))
      return errorAt(instruction,
                     "calls %" + callee->name() + " recursively, which would never finish");
    if (acyclic_.contains(callee))
      continue;
    onPath.insert(callee);
    stack.push_back({callee});
  }
  return llvm::Error::success();
}

llvm::Error ModuleVerifier::checkShape(const Instruction &instruction) {
  const Shape &declared = instruction.shape();
  if (!declared.isValid())
    return errorAt(instruction, "instruction has no shape");
  if (llvm::Error error = checkShapeWellFormed(instruction, declared))
    return error;
  auto inferred = inferShape(instruction);
  if (!inferred)
    return inferred.takeError();
  if (!declared.compatible(*inferred))
    return errorAt(instruction, "shape " + declared.toString(false) + " does not match the " +
                                    inferred->toString(false) + " that " +
                                    opcodeName(instruction.opcode()) + " produces here");
  return checkNoMixedPrecision(instruction);
}

llvm::Error ModuleVerifier::checkEntryLayout() {
  const auto &layout = module_.entryComputationLayout();
  if (!layout)
    return llvm::Error::success();
  const Computation &entry = *module_.entry();
  if (layout->parameters.size() != entry.parameterCount())
    return computationError(entry, "entry_computation_layout has " +
                                       llvm::Twine(layout->parameters.size()) +
                                       " parameters but the entry computation has " +
                                       llvm::Twine(entry.parameterCount()));
  for (size_t i = 0; i < entry.parameterCount(); ++i) {
    const Instruction &parameter = *entry.parameter(i);
    if (!layout->parameters[i].compatible(parameter.shape()))
      return errorAt(parameter, "entry_computation_layout says parameter " + llvm::Twine(i) +
                                    " is " + layout->parameters[i].toString(false) + " but it is " +
                                    parameter.shape().toString(false));
  }
  if (!layout->result.compatible(entry.root()->shape()))
    return errorAt(*entry.root(), "entry_computation_layout says the result is " +
                                      layout->result.toString(false) + " but the root is " +
                                      entry.root()->shape().toString(false));
  return llvm::Error::success();
}

} // namespace

llvm::Error verifyModule(const Module &module) { return ModuleVerifier(module).run(); }

llvm::Error checkConstantHasValue(const Instruction &constant) {
  if (constant.opcode() != Opcode::Constant || constant.attributes().literal)
    return llvm::Error::success();
  return errorAt(constant, "constant values were elided by the dumper ('{...}'); the module "
                           "cannot be compiled or run without them");
}

llvm::Error checkConstantsHaveValues(const Module &module) {
  if (!module.entry())
    return llvm::Error::success();
  for (const Computation *computation : reachableFromEntry(module))
    for (const auto &instruction : computation->instructions())
      if (llvm::Error error = checkConstantHasValue(*instruction))
        return error;
  return llvm::Error::success();
}

} // namespace mote::hlo
