//===- WhileLoopInvariantCodeMotion.cpp - Hoist loop-invariant work -------===//
//
// A while body often recomputes values that do not depend on the loop state
// (JAX traces closures into the body: an iota, a reduction over it, a
// weight transpose). Such a value is computed once before the loop and
// carried through it as an extra, unchanged element of the loop state, as
// XLA's WhileLoopInvariantCodeMotion does.
//
// An instruction of the body is invariant when it is pure and deterministic
// and each operand is invariant, a constant, or a get-tuple-element of a
// state element the body passes through unchanged. Only "frontier" values
// (invariant, used by loop-varying code) move, and only when computing them
// involves real work: hoisting a lone broadcast or iota would only keep a
// bigger buffer alive across the loop.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

namespace {

/// Pure, deterministic and free of called buffer computations.
bool mayHoist(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Rng:
  case Opcode::RngGetAndUpdateState:
  case Opcode::CustomCall:
  case Opcode::AfterAll:
  case Opcode::While:
  case Opcode::Conditional:
  case Opcode::Call:
  case Opcode::Fusion:
    return false;
  default:
    return !hlo::isMultiDevice(instruction.opcode()) && !instruction.shape().isToken();
  }
}

/// Ops whose hoisting saves nothing: they only move or spread values.
bool isCheap(Opcode opcode) {
  switch (opcode) {
  case Opcode::Constant:
  case Opcode::Broadcast:
  case Opcode::Iota:
  case Opcode::Reshape:
  case Opcode::Bitcast:
  case Opcode::Transpose:
  case Opcode::Copy:
  case Opcode::Slice:
  case Opcode::GetTupleElement:
  case Opcode::Tuple:
  case Opcode::Convert:
    return true;
  default:
    return false;
  }
}

/// The state elements the body passes through unchanged.
llvm::DenseSet<int64_t> passThroughElements(const Computation &body) {
  llvm::DenseSet<int64_t> elements;
  const Instruction *root = body.root();
  const Instruction *state = body.parameterCount() == 1 ? body.parameter(0) : nullptr;
  if (!root || !state || root->opcode() != Opcode::Tuple)
    return elements;
  for (size_t i = 0; i < root->operandCount(); ++i) {
    const Instruction *operand = root->operand(i);
    if (operand->opcode() == Opcode::GetTupleElement && operand->operand(0) == state &&
        operand->attributes().tupleIndex == int64_t(i))
      elements.insert(int64_t(i));
  }
  return elements;
}

/// The loop state is only ever read element by element, so it can grow.
bool stateReadByElements(const Computation &computation) {
  if (computation.parameterCount() != 1 || !computation.parameter(0))
    return false;
  const Instruction *state = computation.parameter(0);
  if (computation.root() == state)
    return false;
  for (const auto &instruction : computation.instructions())
    for (const Instruction *operand : instruction->operands())
      if (operand == state && instruction->opcode() != Opcode::GetTupleElement)
        return false;
  return true;
}

class LoopHoister {
public:
  LoopHoister(Computation &caller, Instruction &loop, NameTable &names)
      : caller_(caller), loop_(loop), names_(names), condition_(*loop.calledComputation(0)),
        body_(*loop.calledComputation(1)) {}

  bool run() {
    if (!loop_.shape().isTuple() || !stateReadByElements(body_) ||
        !stateReadByElements(condition_) || body_.root()->opcode() != Opcode::Tuple)
      return false;
    findInvariants();
    llvm::SmallVector<Instruction *, 4> frontier = findFrontier();
    if (frontier.empty())
      return false;
    hoist(frontier);
    return true;
  }

private:
  void findInvariants() {
    const llvm::DenseSet<int64_t> passThrough = passThroughElements(body_);
    const Instruction *state = body_.parameter(0);
    for (const auto &owned : body_.instructions()) {
      Instruction *instruction = owned.get();
      if (instruction->opcode() == Opcode::GetTupleElement && instruction->operand(0) == state) {
        if (passThrough.count(instruction->attributes().tupleIndex))
          invariant_.insert(instruction);
        continue;
      }
      if (!mayHoist(*instruction) || instruction == body_.root())
        continue;
      bool allInvariant = true, expensive = !isCheap(instruction->opcode());
      for (Instruction *operand : instruction->operands()) {
        allInvariant &= invariant_.count(operand) != 0;
        expensive |= expensive_.count(operand) != 0;
      }
      if (!allInvariant)
        continue;
      invariant_.insert(instruction);
      if (expensive)
        expensive_.insert(instruction);
    }
  }

  /// Expensive invariant values that loop-varying code (or the next state) reads.
  llvm::SmallVector<Instruction *, 4> findFrontier() {
    llvm::SetVector<Instruction *> frontier;
    for (const auto &owned : body_.instructions()) {
      Instruction *user = owned.get();
      if (invariant_.count(user) && user != body_.root())
        continue;
      for (Instruction *operand : user->operands())
        if (expensive_.count(operand))
          frontier.insert(operand);
    }
    return llvm::SmallVector<Instruction *, 4>(frontier.begin(), frontier.end());
  }

  /// A copy of the invariant `value` in the caller, reading the loop's
  /// initial state where the body reads its pass-through state.
  Instruction *cloneIntoCaller(Instruction *value, Instruction *initialState) {
    if (Instruction *done = clones_.lookup(value))
      return done;
    Instruction *clone;
    if (value->opcode() == Opcode::GetTupleElement && value->operand(0) == body_.parameter(0)) {
      clone = elementOf(initialState, value->attributes().tupleIndex);
    } else {
      auto copy = std::make_unique<Instruction>(*value);
      copy->clearOperands();
      copy->setName(names_.unique(value->name()));
      copy->setParent(&caller_);
      for (Instruction *operand : value->operands())
        copy->addOperand(cloneIntoCaller(operand, initialState));
      clone = caller_.addInstruction(std::move(copy));
    }
    clones_[value] = clone;
    return clone;
  }

  Instruction *elementOf(Instruction *tuple, int64_t index) {
    auto element =
        makeInstruction(Opcode::GetTupleElement, names_.unique(tuple->name().str() + ".element"),
                        tuple->shape().tupleElement(index), {tuple});
    element->mutableAttributes().tupleIndex = index;
    return tuple->parent()->addInstruction(std::move(element));
  }

  void hoist(llvm::ArrayRef<Instruction *> frontier) {
    Instruction *initial = loop_.operand(0);
    const size_t oldCount = loop_.shape().tupleSize();

    // The new initial state: the old elements, then each hoisted value.
    std::vector<Shape> shapes(loop_.shape().tupleElements().begin(),
                              loop_.shape().tupleElements().end());
    llvm::SmallVector<Instruction *, 8> elements;
    for (size_t i = 0; i < oldCount; ++i)
      elements.push_back(elementOf(initial, int64_t(i)));
    for (Instruction *value : frontier) {
      elements.push_back(cloneIntoCaller(value, initial));
      shapes.push_back(value->shape());
    }
    Shape state = Shape::tuple(shapes);
    Instruction *newInitial = caller_.addInstruction(makeInstruction(
        Opcode::Tuple, names_.unique(loop_.name().str() + ".state"), state, elements));

    // Inside: the state parameters widen; the body reads hoisted values
    // from the state and passes them on.
    condition_.parameter(0)->setShape(state);
    Instruction *bodyState = body_.parameter(0);
    bodyState->setShape(state);
    Instruction *root = body_.root();
    for (size_t k = 0; k < frontier.size(); ++k) {
      Instruction *carried = elementOf(bodyState, int64_t(oldCount + k));
      replaceAllUses(body_, frontier[k], carried);
      root->addOperand(carried);
    }
    root->setShape(state);
    restoreDefinitionOrder(body_);

    // Outside: the loop takes the wider state; its users see the old shape.
    llvm::SmallVector<Instruction *, 8> results;
    auto restored = makeInstruction(
        Opcode::Tuple, names_.unique(loop_.name().str() + ".result"),
        Shape::tuple(std::vector<Shape>(shapes.begin(), shapes.begin() + oldCount)), {});
    Instruction *restoredTuple = caller_.addInstruction(std::move(restored));
    replaceAllUses(caller_, &loop_, restoredTuple);
    for (size_t i = 0; i < oldCount; ++i)
      restoredTuple->addOperand(elementOf(&loop_, int64_t(i)));
    loop_.setOperand(0, newInitial);
    loop_.setShape(state);
    restoreDefinitionOrder(caller_);
  }

  Computation &caller_;
  Instruction &loop_;
  NameTable &names_;
  Computation &condition_, &body_;
  llvm::DenseSet<const Instruction *> invariant_, expensive_;
  llvm::DenseMap<const Instruction *, Instruction *> clones_;
};

} // namespace

llvm::Expected<bool> WhileLoopInvariantCodeMotion::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  // Hoisting out of an inner loop can make work invariant in the outer one:
  // repeat (a few rounds cover any realistic nesting).
  for (int round = 0; round < 4; ++round) {
    bool changedThisRound = false;
    for (const Computation *computation : bufferComputations(module)) {
      auto &caller = const_cast<Computation &>(*computation);
      llvm::SmallVector<Instruction *, 4> loops;
      for (const auto &instruction : caller.instructions())
        if (instruction->opcode() == Opcode::While)
          loops.push_back(instruction.get());
      for (Instruction *loop : loops)
        changedThisRound |= LoopHoister(caller, *loop, names).run();
    }
    changed |= changedThisRound;
    if (!changedThisRound)
      break;
  }
  return changed;
}

} // namespace mote::passes
