//===- Evaluator.cpp - Reference evaluator for HLO -----------------------===//
//
// A computation runs the instructions its root depends on, in text order (a
// valid topological order). Values sit in a vector indexed by position;
// parameters and constants are read in place through pointers, and each
// value is freed right after its last use, so a model needs little more
// memory than its largest live set.
//
//===----------------------------------------------------------------------===//

#include "eval/Evaluator.h"

#include "eval/ControlFlow.h"
#include "eval/Elementwise.h"
#include "eval/OpEvaluators.h"
#include "hlo/Computation.h"
#include "hlo/Diagnostics.h"
#include "hlo/Opcode.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Opcode;

namespace {
/// Deeper nesting than this can only come from a computation that (directly
/// or not) calls itself, which HLO does not allow.
constexpr unsigned kMaxCallDepth = 200;
} // namespace

struct Evaluator::Plan {
  struct Step {
    const hlo::Instruction *instruction;
    unsigned position;                       ///< index of its value slot
    llvm::SmallVector<unsigned, 3> operands; ///< value slots of the operands
    llvm::SmallVector<unsigned, 2> releases; ///< slots whose last use is this step
    /// A get-tuple-element whose tuple is read only by get-tuple-elements of
    /// distinct indices: it may move its element out of an owned tuple.
    bool stealsElement = false;
  };
  std::vector<Step> steps; ///< only instructions the root depends on
  size_t valueCount = 0;
  unsigned root = 0;

  /// Value slots kept between calls, since small computations (reducers,
  /// loop bodies) run millions of times. A computation is never active twice
  /// at once (HLO has no recursion), but `inUse` guards it anyway.
  std::vector<hlo::Literal> owned;
  std::vector<const hlo::Literal *> values;
  bool inUse = false;

  /// Loop-invariant values: a step that depends on no parameter and nothing
  /// nondeterministic computes the same value on every call, so from the
  /// third call on such steps are skipped and the values the rest of the
  /// computation reads from them (the frontier) come from `cache`, filled on
  /// the second call. A loop body that rebuilds a large constant array every
  /// iteration then costs what its parameter-dependent part costs.
  std::vector<uint8_t> invariant; ///< per value slot
  std::vector<uint8_t> frontier;  ///< invariant slots read by other steps or returned
  std::vector<std::optional<hlo::Literal>> cache;
  bool hasFrontier = false;
  bool cacheReady = false;
  unsigned calls = 0;
};

namespace {

/// Whether running `computation` (and what it calls) always gives the same
/// result for the same arguments.
bool isDeterministic(const hlo::Computation &computation, unsigned depth = 0) {
  if (depth > kMaxCallDepth)
    return false;
  for (const auto &instruction : computation.instructions()) {
    Opcode opcode = instruction->opcode();
    if (opcode == Opcode::Rng || opcode == Opcode::RngGetAndUpdateState ||
        opcode == Opcode::CustomCall || hlo::isMultiDevice(opcode))
      return false;
    for (const hlo::Computation *called : instruction->calledComputations())
      if (!called || !isDeterministic(*called, depth + 1))
        return false;
  }
  return true;
}

} // namespace

Evaluator::Evaluator(const hlo::Module &module, EvaluatorOptions options)
    : module_(module), options_(options) {}

Evaluator::~Evaluator() = default;

llvm::Expected<Evaluator::Plan *> Evaluator::planFor(const hlo::Computation &computation) {
  auto found = plans_.find(&computation);
  if (found != plans_.end())
    return found->second.get();

  const auto &instructions = computation.instructions();
  const unsigned count = static_cast<unsigned>(instructions.size());
  llvm::DenseMap<const hlo::Instruction *, unsigned> positions;
  for (unsigned i = 0; i < count; ++i)
    positions[instructions[i].get()] = i;
  auto rootPosition = positions.find(computation.root());
  if (!computation.root() || rootPosition == positions.end())
    return errorAt(computation.location(),
                   "computation %" + computation.name() + " has no root instruction");

  auto plan = std::make_unique<Plan>();
  plan->valueCount = count;
  plan->root = rootPosition->second;

  std::vector<llvm::SmallVector<unsigned, 3>> operandPositions(count);
  for (unsigned i = 0; i < count; ++i) {
    for (const hlo::Instruction *operand : instructions[i]->operands()) {
      auto it = operand ? positions.find(operand) : positions.end();
      if (it == positions.end() || it->second >= i)
        return errorAt(*instructions[i], "operand %" +
                                             (operand ? operand->name() : llvm::StringRef("?")) +
                                             " is not defined earlier in this computation");
      operandPositions[i].push_back(it->second);
    }
  }

  // Live instructions: the root and, walking backwards, whatever they read.
  std::vector<bool> live(count, false);
  live[plan->root] = true;
  for (unsigned i = count; i-- > 0;)
    if (live[i])
      for (unsigned operand : operandPositions[i])
        live[operand] = true;

  std::vector<unsigned> lastUse(count, 0);
  for (unsigned i = 0; i < count; ++i) {
    if (!live[i])
      continue;
    for (unsigned operand : operandPositions[i])
      lastUse[operand] = i;
    plan->steps.push_back({instructions[i].get(), i, operandPositions[i], {}});
  }
  for (Plan::Step &step : plan->steps)
    for (unsigned operand : step.operands)
      if (lastUse[operand] == step.position && operand != plan->root &&
          !llvm::is_contained(step.releases, operand))
        step.releases.push_back(operand);

  // Tuples whose every reader is a get-tuple-element, each of its own index.
  std::vector<llvm::SmallVector<int64_t, 4>> readIndices(count);
  std::vector<bool> onlyDistinctReads(count, true);
  for (const Plan::Step &step : plan->steps) {
    for (unsigned operand : step.operands) {
      if (step.instruction->opcode() != Opcode::GetTupleElement) {
        onlyDistinctReads[operand] = false;
        continue;
      }
      int64_t index = step.instruction->attributes().tupleIndex;
      if (llvm::is_contained(readIndices[operand], index))
        onlyDistinctReads[operand] = false;
      readIndices[operand].push_back(index);
    }
  }
  for (Plan::Step &step : plan->steps)
    if (step.instruction->opcode() == Opcode::GetTupleElement && step.operands.size() == 1 &&
        step.operands[0] != plan->root)
      step.stealsElement = onlyDistinctReads[step.operands[0]];

  plan->invariant.assign(count, 0);
  plan->frontier.assign(count, 0);
  plan->cache.resize(count);
  for (const Plan::Step &step : plan->steps) {
    const hlo::Instruction &instruction = *step.instruction;
    Opcode opcode = instruction.opcode();
    bool invariant = opcode != Opcode::Parameter && opcode != Opcode::Rng &&
                     opcode != Opcode::RngGetAndUpdateState && opcode != Opcode::CustomCall &&
                     !hlo::isMultiDevice(opcode);
    for (const hlo::Computation *called : instruction.calledComputations())
      invariant = invariant && called && isDeterministic(*called);
    for (unsigned operand : step.operands)
      invariant = invariant && plan->invariant[operand];
    plan->invariant[step.position] = invariant;
  }
  auto markFrontier = [&](unsigned slot) {
    // Constants are read in place already: nothing to cache.
    if (plan->invariant[slot] && instructions[slot]->opcode() != Opcode::Constant) {
      plan->frontier[slot] = 1;
      plan->hasFrontier = true;
    }
  };
  for (const Plan::Step &step : plan->steps)
    if (!plan->invariant[step.position])
      for (unsigned operand : step.operands)
        markFrontier(operand);
  markFrontier(plan->root);

  Plan *result = plan.get();
  plans_[&computation] = std::move(plan);
  return result;
}

llvm::Expected<hlo::Literal> Evaluator::run(llvm::ArrayRef<hlo::Literal> arguments) {
  const hlo::Computation *entry = module_.entry();
  if (!entry)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "module '%s' has no entry computation",
                                   module_.name().str().c_str());
  if (!checked_) {
    if (llvm::Error error = checkEvaluable(module_))
      return std::move(error);
    checked_ = true;
  }
  if (arguments.size() != entry->parameterCount())
    return errorAt(entry->location(), "the entry computation takes " +
                                          llvm::Twine(entry->parameterCount()) +
                                          " argument(s), got " + llvm::Twine(arguments.size()));
  std::vector<const hlo::Literal *> pointers;
  for (const hlo::Literal &argument : arguments)
    pointers.push_back(&argument);
  return call(*entry, pointers);
}

llvm::Expected<hlo::Literal> Evaluator::call(const hlo::Computation &computation,
                                             llvm::ArrayRef<const hlo::Literal *> arguments) {
  return execute(computation, arguments, {});
}

llvm::Expected<hlo::Literal> Evaluator::callOwned(const hlo::Computation &computation,
                                                  std::vector<hlo::Literal> arguments) {
  std::vector<const hlo::Literal *> pointers;
  for (const hlo::Literal &argument : arguments)
    pointers.push_back(&argument);
  return execute(computation, pointers, arguments);
}

llvm::Expected<hlo::Literal>
Evaluator::execute(const hlo::Computation &computation,
                   llvm::ArrayRef<const hlo::Literal *> arguments,
                   llvm::MutableArrayRef<hlo::Literal> ownedArguments) {
  if (callDepth_ >= kMaxCallDepth)
    return errorAt(computation.location(), "calls nest more than " + llvm::Twine(kMaxCallDepth) +
                                               " deep at %" + computation.name());
  auto planOrError = planFor(computation);
  if (!planOrError)
    return planOrError.takeError();
  Plan &plan = **planOrError;
  if (arguments.size() != computation.parameterCount())
    return errorAt(computation.location(), "computation %" + computation.name() + " takes " +
                                               llvm::Twine(computation.parameterCount()) +
                                               " argument(s), got " +
                                               llvm::Twine(arguments.size()));
  struct DepthGuard {
    unsigned &depth;
    explicit DepthGuard(unsigned &d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  } guard(callDepth_);

  // values[i] is instruction i's value: &owned[i] when this call computed (or
  // was handed) it, otherwise a pointer into an argument or a constant that
  // outlives the call. Only owned values may be moved from.
  std::vector<hlo::Literal> localOwned;
  std::vector<const hlo::Literal *> localValues;
  const bool cached = !plan.inUse;
  std::vector<hlo::Literal> &owned = cached ? plan.owned : localOwned;
  std::vector<const hlo::Literal *> &values = cached ? plan.values : localValues;
  owned.resize(plan.valueCount);
  values.assign(plan.valueCount, nullptr);
  // Every owned slot is empty after a successful call (each value is freed at
  // its last use and the root is moved out); after an error, empty them here.
  struct FrameGuard {
    Plan &plan;
    std::vector<hlo::Literal> &owned;
    bool cached;
    bool succeeded = false;
    ~FrameGuard() {
      if (!succeeded)
        for (hlo::Literal &value : owned)
          value = hlo::Literal();
      if (cached)
        plan.inUse = false;
    }
  } frame{plan, owned, cached};
  plan.inUse = true;
  llvm::SmallVector<const hlo::Literal *, 4> operands;
  auto isOwned = [&](unsigned slot) { return values[slot] == &owned[slot]; };
  // See Plan::cache. The first call pays nothing for caching; the second
  // copies the frontier values; later calls skip the invariant steps.
  const bool useCache = cached && plan.cacheReady;
  const bool fillCache = cached && !plan.cacheReady && plan.hasFrontier && plan.calls >= 1;
  if (cached)
    ++plan.calls;
  auto remember = [&](unsigned slot) {
    if (fillCache && plan.frontier[slot])
      plan.cache[slot] = *values[slot];
  };

  for (const Plan::Step &step : plan.steps) {
    const hlo::Instruction &instruction = *step.instruction;
    const unsigned slot = step.position;
    ++instructionsExecuted_;
    if (useCache && plan.invariant[slot] && instruction.opcode() != Opcode::Constant) {
      if (plan.frontier[slot])
        values[slot] = &*plan.cache[slot];
      continue;
    }

    if (instruction.opcode() == Opcode::Parameter) {
      int64_t number = instruction.attributes().parameterNumber;
      if (number < 0 || number >= static_cast<int64_t>(arguments.size()) || !arguments[number])
        return errorAt(instruction,
                       "parameter(" + llvm::Twine(number) + ") has no matching argument");
      if (!arguments[number]->shape().compatible(instruction.shape()))
        return errorAt(instruction, "argument " + llvm::Twine(number) + " has shape " +
                                        arguments[number]->shape().toString(false) +
                                        ", the parameter expects " +
                                        instruction.shape().toString(false));
      if (!ownedArguments.empty()) {
        owned[slot] = std::move(ownedArguments[number]);
        values[slot] = &owned[slot];
      } else {
        values[slot] = arguments[number];
      }
      continue;
    }
    if (instruction.opcode() == Opcode::Constant) {
      const hlo::Literal *literal = instruction.constantValue();
      if (!literal)
        return errorAt(instruction,
                       "constant values were elided by the dumper ('{...}'); cannot evaluate");
      values[slot] = literal;
      continue;
    }

    operands.clear();
    for (unsigned operand : step.operands)
      operands.push_back(values[operand]);
    // An owned operand that this step is the last to read, and reads only
    // once, may be moved from instead of copied.
    auto takeOperand = [&](size_t index) -> hlo::Literal * {
      unsigned operand = step.operands[index];
      if (!isOwned(operand) || !llvm::is_contained(step.releases, operand) ||
          llvm::count(step.operands, operand) != 1)
        return nullptr;
      return &owned[operand];
    };

    // Values that need no computation: elements of tuples and pass-through
    // ops over values that outlive this call are read in place.
    const hlo::Literal *alias = nullptr;
    switch (instruction.opcode()) {
    case Opcode::GetTupleElement: {
      int64_t index = instruction.attributes().tupleIndex;
      const hlo::Literal *tuple = operands.size() == 1 ? operands[0] : nullptr;
      if (tuple && tuple->shape().isTuple() && index >= 0 &&
          index < static_cast<int64_t>(tuple->tupleSize()) && !isOwned(step.operands[0]))
        alias = &tuple->element(index);
      break;
    }
    case Opcode::Copy:
    case Opcode::AddDependency:
    case Opcode::OptimizationBarrier:
    case Opcode::Domain:
      if (!operands.empty() && !isOwned(step.operands[0]))
        alias = operands[0];
      break;
    default:
      break;
    }
    if (alias) {
      values[slot] = alias;
      remember(slot);
      for (unsigned release : step.releases) {
        owned[release] = hlo::Literal();
        values[release] = nullptr;
      }
      continue;
    }

    llvm::Expected<hlo::Literal> result = [&]() -> llvm::Expected<hlo::Literal> {
      switch (instruction.opcode()) {
      case Opcode::While: {
        if (operands.size() != 1)
          return errorAt(instruction, "while takes one operand");
        return evaluateWhile(*this, instruction, *operands[0], takeOperand(0));
      }
      case Opcode::GetTupleElement: {
        int64_t index = instruction.attributes().tupleIndex;
        hlo::Literal *tuple = operands.size() == 1 && (step.stealsElement || takeOperand(0))
                                  ? &owned[step.operands[0]]
                                  : nullptr;
        if (tuple && tuple->shape().isTuple() && index >= 0 &&
            index < static_cast<int64_t>(tuple->tupleSize()))
          return std::move(tuple->element(index));
        break;
      }
      case Opcode::Tuple: {
        std::vector<hlo::Literal> elements;
        elements.reserve(operands.size());
        for (size_t i = 0; i < operands.size(); ++i) {
          if (hlo::Literal *element = takeOperand(i))
            elements.push_back(std::move(*element));
          else
            elements.push_back(*operands[i]);
        }
        return hlo::Literal::tuple(std::move(elements));
      }
      case Opcode::Copy:
      case Opcode::AddDependency:
      case Opcode::OptimizationBarrier:
      case Opcode::Domain:
        if (hlo::Literal *value = operands.empty() ? nullptr : takeOperand(0)) {
          hlo::Literal result = std::move(*value);
          if (instruction.opcode() == Opcode::Copy && result.shape().isArray())
            result.setLayout(instruction.shape().layout());
          return result;
        }
        break;
      case Opcode::DynamicUpdateSlice:
        if (hlo::Literal *target = operands.empty() ? nullptr : takeOperand(0)) {
          if (llvm::Error error = updateSliceInPlace(instruction, *target, operands))
            return std::move(error);
          hlo::Literal result = std::move(*target);
          result.setLayout(instruction.shape().layout());
          return result;
        }
        break;
      default:
        if (hlo::opcodeKind(instruction.opcode()) == hlo::OpcodeKind::Elementwise &&
            !computesOnNarrowFloats(instruction)) {
          // Write the result over a dying operand of the same shape.
          const hlo::Shape &shape = instruction.shape();
          for (size_t i = 0; i < operands.size(); ++i) {
            hlo::Literal *candidate = takeOperand(i);
            if (candidate && shape.isArray() && candidate->shape().isArray() &&
                candidate->shape().elementType() == shape.elementType() &&
                candidate->shape().dims() == shape.dims())
              return evaluateElementwise(instruction, operands, candidate);
          }
        }
        break;
      }
      return evaluateInstruction(instruction, operands);
    }();
    if (!result)
      return result.takeError();
    owned[slot] = std::move(*result);
    values[slot] = &owned[slot];
    remember(slot);
    for (unsigned release : step.releases) {
      owned[release] = hlo::Literal();
      values[release] = nullptr;
    }
  }

  frame.succeeded = true;
  if (fillCache)
    plan.cacheReady = true;
  if (isOwned(plan.root))
    return std::move(owned[plan.root]);
  return *values[plan.root]; // a parameter, constant or part of one: copy it out
}

llvm::Expected<hlo::Literal>
Evaluator::evaluateInstruction(const hlo::Instruction &instruction,
                               llvm::ArrayRef<const hlo::Literal *> operands) {
  if (computesOnNarrowFloats(instruction))
    return evaluateWidened(instruction, operands,
                           [&](const hlo::Instruction &standIn, Operands wide) {
                             return evaluateInstruction(standIn, wide);
                           });
  switch (instruction.opcode()) {
  // Values, tuples and control flow.
  case Opcode::Parameter:
  case Opcode::Constant:
    return errorAt(instruction, "parameters and constants are read by the caller");
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
  case Opcode::Copy:
  case Opcode::AddDependency:
  case Opcode::OptimizationBarrier:
  case Opcode::Domain:
  case Opcode::SetDimensionSize:
  case Opcode::AfterAll:
  case Opcode::PartitionId:
  case Opcode::ReplicaId:
  case Opcode::GetDimensionSize:
    return evaluateValueOp(instruction, operands);
  case Opcode::Call:
  case Opcode::Fusion:
    return evaluateCall(*this, instruction, operands);
  case Opcode::Conditional:
    return evaluateConditional(*this, instruction, operands);
  case Opcode::While:
    if (operands.size() != 1)
      return errorAt(instruction, "while takes one operand");
    return evaluateWhile(*this, instruction, *operands[0], nullptr);
  case Opcode::Map:
    return evaluateMap(*this, instruction, operands);
  case Opcode::CustomCall:
    return evaluateCustomCall(instruction, operands);
  case Opcode::DynamicReshape:
    return errorAt(instruction, "dynamic-reshape is not supported by the evaluator");

  // Data movement.
  case Opcode::BitcastConvert:
    return evaluateBitcastConvert(instruction, operands);
  case Opcode::Bitcast:
    return evaluateBitcast(instruction, operands);
  case Opcode::Broadcast:
    return evaluateBroadcast(instruction, operands);
  case Opcode::Reshape:
    return evaluateReshape(instruction, operands);
  case Opcode::Transpose:
    return evaluateTranspose(instruction, operands);
  case Opcode::Reverse:
    return evaluateReverse(instruction, operands);
  case Opcode::Iota:
    return evaluateIota(instruction, operands);
  case Opcode::Slice:
    return evaluateSlice(instruction, operands);
  case Opcode::DynamicSlice:
    return evaluateDynamicSlice(instruction, operands);
  case Opcode::DynamicUpdateSlice:
    return evaluateDynamicUpdateSlice(instruction, operands);
  case Opcode::Concatenate:
    return evaluateConcatenate(instruction, operands);
  case Opcode::Pad:
    return evaluatePad(instruction, operands);
  case Opcode::Gather:
    return evaluateGather(instruction, operands);
  case Opcode::Scatter:
    return evaluateScatter(*this, instruction, operands);

  // Compute.
  case Opcode::Dot:
    return evaluateDot(instruction, operands, options_.contraction);
  case Opcode::Convolution:
    return evaluateConvolution(instruction, operands, options_.contraction);
  case Opcode::Reduce:
    return evaluateReduce(*this, instruction, operands);
  case Opcode::ReduceWindow:
    return evaluateReduceWindow(*this, instruction, operands);
  case Opcode::SelectAndScatter:
    return evaluateSelectAndScatter(*this, instruction, operands);
  case Opcode::Sort:
    return evaluateSort(*this, instruction, operands);
  case Opcode::TopK:
    return evaluateTopK(instruction, operands);
  case Opcode::Rng:
    return evaluateRng(*this, instruction, operands);
  case Opcode::RngBitGenerator:
    return evaluateRngBitGenerator(instruction, operands);
  case Opcode::RngGetAndUpdateState:
    return evaluateRngGetAndUpdateState(*this, instruction);
  case Opcode::Cholesky:
    return evaluateCholesky(instruction, operands);
  case Opcode::TriangularSolve:
    return evaluateTriangularSolve(instruction, operands);
  case Opcode::Fft:
    return evaluateFft(instruction, operands);
  case Opcode::BatchNormGrad:
  case Opcode::BatchNormInference:
  case Opcode::BatchNormTraining:
    return evaluateBatchNorm(instruction, operands);

  default:
    break;
  }
  if (hlo::opcodeKind(instruction.opcode()) == hlo::OpcodeKind::Elementwise)
    return evaluateElementwise(instruction, operands);
  if (hlo::isMultiDevice(instruction.opcode()))
    return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                    " is not supported on a single device");
  return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                  " is not supported by the evaluator");
}

} // namespace mote::eval
