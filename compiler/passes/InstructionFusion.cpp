//===- InstructionFusion.cpp - Fuse producers into their consumers --------===//
//
// Greedy fusion in XLA's style. Instructions are visited users first; each
// one either joins the fusion group of its users (its value is then computed
// where they read it, never stored) or is materialized in a buffer. A group
// has one root, the instruction whose result is stored, and becomes a
// `fusion` instruction calling a computation of the group's members.
//
// A producer joins when every user sits in a group that accepts it:
//  - the producer is an elemental op that costs at most a few instructions
//    per element read (elementwise arithmetic, data movement, scalar
//    constants);
//  - the group root emits through the elemental emitter (not dot or
//    convolution: their kernels read operand buffers);
//  - the producer is not read many times per element stored when it is
//    expensive: a path through a broadcast, a reduce-window window or a
//    gather's operand recomputes it for each read, so only cheap ops may
//    sit behind such an edge.
// A producer whose users are in several groups is duplicated into each if
// it is nearly free (data movement, convert, iota, scalar constants);
// anything else is materialized once.
//
// Output fusion: a dot or convolution the tiled kernels compute joins the
// group of its users when every path from it to the group's root is
// elementwise over its dimensions (bias, activation, residual, a quantized
// model's rescale to s8), the root possibly a pad adding edges (the next
// convolution's padding). A floating-point contraction's root has its
// element type (its kernel stores the sums where the result goes); an
// integer one hands each tile's s32 sums to the group through a buffer of
// its own, so its root may have any type. The kernel then rewrites each
// result element right after computing it; its operands stay in buffers,
// since the kernel reads them many times each, except an edge pad of an
// integer convolution's input, which joins the group and is read in place
// (PaddedInputConvolution.h), so the padded array is never stored.
//
// Each group is convex by construction (every member but the root has all
// its users inside the group), so replacing it by one instruction keeps the
// graph acyclic.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/ContractionTypes.h"
#include "passes/PaddedInputConvolution.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

namespace {

/// A group never grows beyond this many instructions, keeping the code of
/// one fused loop small enough for LLVM to optimise quickly.
constexpr size_t kMaxGroupSize = 64;
/// Nor beyond this many distinct operands (each a stream through memory).
constexpr size_t kMaxGroupOperands = 16;

bool isArrayWithElements(const hlo::Shape &shape) { return shape.isArray(); }

/// Ops that only move or reinterpret elements, or are as cheap as a load.
bool isNearlyFree(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Broadcast:
  case Opcode::Reshape:
  case Opcode::Bitcast:
  case Opcode::Transpose:
  case Opcode::Slice:
  case Opcode::Copy:
  case Opcode::Reverse:
  case Opcode::Iota:
  case Opcode::Convert:
    return true;
  case Opcode::Constant:
    return instruction.shape().isArray() && instruction.shape().elementCount() == 1;
  default:
    return false;
  }
}

/// Elementwise ops costing many instructions per element (inline math,
/// division): never recomputed for repeated reads.
bool isExpensive(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Divide:
  case Opcode::Remainder:
  case Opcode::Power:
  case Opcode::Atan2:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
  case Opcode::Cbrt:
  case Opcode::Exp:
  case Opcode::Expm1:
  case Opcode::Log:
  case Opcode::Log1p:
  case Opcode::Logistic:
  case Opcode::Tanh:
  case Opcode::Erf:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Tan:
  case Opcode::Sinh:
  case Opcode::Cosh:
  case Opcode::Asin:
  case Opcode::Acos:
  case Opcode::Atan:
  case Opcode::Asinh:
  case Opcode::Acosh:
  case Opcode::Atanh:
    return true;
  default:
    return false;
  }
}

/// Whether `instruction` may be computed inside its consumers' loops.
bool isFusibleProducer(const Instruction &instruction) {
  if (!isArrayWithElements(instruction.shape()))
    return false;
  if (hlo::opcodeKind(instruction.opcode()) == hlo::OpcodeKind::Elementwise)
    return instruction.opcode() != Opcode::StochasticConvert;
  switch (instruction.opcode()) {
  case Opcode::Pad:
  case Opcode::Concatenate:
  case Opcode::DynamicSlice:
    return true;
  case Opcode::Bitcast:
  case Opcode::BitcastConvert:
    // Only same-width reinterpretations are elementwise.
    return instruction.operandCount() == 1 &&
           hlo::storageBytes(instruction.operand(0)->shape().elementType()) ==
               hlo::storageBytes(instruction.shape().elementType());
  default:
    return isNearlyFree(instruction);
  }
}

/// Whether `instruction`, stored to a buffer, may compute fused producers
/// inside its own loop nest.
bool canBeGroupRoot(const Instruction &instruction) {
  if (!instruction.shape().isArray())
    return false;
  switch (instruction.opcode()) {
  case Opcode::Dot:
  case Opcode::Convolution:
  case Opcode::Parameter:
  case Opcode::Constant:
    return false;
  case Opcode::Reduce:
  case Opcode::ReduceWindow:
    return instruction.operandCount() == 2; // one input, one init value
  case Opcode::Gather:
  case Opcode::Map:
    return true;
  default:
    return isFusibleProducer(instruction);
  }
}

/// Whether `instruction` is a dot or convolution whose result a group may
/// rewrite before it is stored (output fusion): one the register-tiled
/// kernels compute (ContractionTypes.h). A float kernel rewrites its result
/// in place, so the group's root must have elements of the same size; an
/// integer kernel hands each tile's s32 sums over from a buffer of its own,
/// so its group may store anything (a quantized model's s8).
bool isContraction(const Instruction &instruction) {
  if (instruction.opcode() != Opcode::Dot && instruction.opcode() != Opcode::Convolution)
    return false;
  const hlo::Shape &shape = instruction.shape();
  return shape.isArray() && shape.elementCount() > 0 &&
         llvm::all_of(instruction.operands(),
                      [](const Instruction *operand) { return operand->shape().isArray(); }) &&
         isTiledContractionType(shape.elementType(), instruction.operand(0)->shape().elementType(),
                                instruction.operand(1)->shape().elementType());
}

/// Whether the kernel of `contraction` can hand its results to a group
/// whose root is `root`: a floating-point kernel stores its sums where the
/// group's result goes and rewrites them there, so a chain ending in another
/// element type (a compare, a convert to bf16) would have them overrun or
/// misread that buffer (a half-precision contraction, whose kernel rounds
/// its f32 sums as it stores them, joins groups whose root has its half
/// type); an integer kernel stages its sums apart.
bool canRewriteInto(const Instruction &contraction, const Instruction &root) {
  const hlo::PrimitiveType type = contraction.shape().elementType();
  if (!root.shape().isArray())
    return false;
  return hlo::isInteger(type) || root.shape().elementType() == type;
}

/// A pad that only adds edges (no interior padding, nothing cut off): an
/// output fusion may end in one, its kernel writing the interior.
bool isEdgePad(const Instruction &instruction) {
  return instruction.opcode() == Opcode::Pad &&
         llvm::all_of(instruction.attributes().padding, [](const hlo::PaddingDimension &dim) {
           return dim.low >= 0 && dim.high >= 0 && dim.interior == 0;
         });
}

/// Whether `user` reads operand `index` more than once per element it
/// produces (so a fused producer there is recomputed for each read).
bool rereadsOperand(const Instruction &user, size_t index) {
  switch (user.opcode()) {
  case Opcode::Broadcast:
    return user.shape().elementCount() > user.operand(0)->shape().elementCount();
  case Opcode::ReduceWindow:
  case Opcode::Gather:
    return index == 0;
  default:
    return false;
  }
}

class ComputationFusion {
public:
  ComputationFusion(hlo::Module &module, Computation &computation, NameTable &names)
      : module_(module), computation_(computation), names_(names) {}

  bool run() {
    collectUsers();
    formGroups();
    return buildFusions();
  }

private:
  using GroupId = uint32_t;
  struct Group {
    Instruction *root;
    llvm::SetVector<Instruction *> members; ///< the root included
    /// Members read more than once per stored element.
    llvm::DenseSet<const Instruction *> reread;
    llvm::SetVector<const Instruction *> externalOperands;
    /// The dot or convolution of an output fusion: its operands are read
    /// from buffers by its kernel, never generated.
    const Instruction *contraction = nullptr;
    /// The pad of the contraction's input its kernel reads in place.
    const Instruction *inputPad = nullptr;
  };

  void collectUsers() {
    for (const auto &instruction : computation_.instructions())
      for (size_t i = 0; i < instruction->operandCount(); ++i)
        users_[instruction->operand(i)].push_back({instruction.get(), i});
  }

  /// Operands the group would read from buffers if `producer` joined it.
  size_t operandsWith(const Group &group, const Instruction *producer) const {
    llvm::SmallPtrSet<const Instruction *, 16> operands(group.externalOperands.begin(),
                                                        group.externalOperands.end());
    operands.erase(producer);
    for (const Instruction *operand : producer->operands())
      operands.insert(operand);
    return operands.size();
  }

  /// Whether `producer` may join `group`, given its uses there.
  bool accepts(const Group &group, const Instruction &producer) const {
    if (group.members.size() >= kMaxGroupSize || operandsWith(group, &producer) > kMaxGroupOperands)
      return false;
    if (narrowsContractionForReduction(group, producer))
      return false;
    for (auto [user, index] : users_.lookup(&producer)) {
      if (user == group.contraction && !readInPlace(group, producer))
        return false;
      // What the kernel pads as it reads stays in a buffer of its own.
      if (user == group.inputPad && index == 0)
        return false;
    }
    if (!isExpensive(producer))
      return true;
    for (auto [user, index] : users_.lookup(&producer))
      if (group.members.contains(user) &&
          (rereadsOperand(*user, index) || group.reread.count(user)))
        return false;
    return true;
  }

  /// Whether `producer` is an edge pad of the group's convolution's input
  /// that the kernel reads in place (PaddedInputConvolution.h): it joins,
  /// and the padded array is never stored.
  bool readInPlace(const Group &group, const Instruction &producer) const {
    if (producer.opcode() != Opcode::Pad || group.inputPad || users_.lookup(&producer).size() != 1)
      return false;
    return readsPaddedInputInPlace(*group.contraction, producer,
                                   producer.operand(1)->constantValue(),
                                   group.contraction->operand(1)->constantValue());
  }

  /// Whether `producer` narrows the result of an elementwise chain that
  /// starts at a tiled contraction (a quantized layer's rescale to s8) and
  /// `group` reduces it (a global average pool). Fused into the reduction,
  /// the chain would leave the contraction's wide result in a buffer (s32:
  /// four times the s8); kept out, the chain becomes the contraction's
  /// output fusion and only its narrow result is stored.
  bool narrowsContractionForReduction(const Group &group, const Instruction &producer) const {
    const Opcode root = group.root->opcode();
    if ((root != Opcode::Reduce && root != Opcode::ReduceWindow) ||
        producer.opcode() != Opcode::Convert ||
        hlo::storageBytes(producer.shape().elementType()) >=
            hlo::storageBytes(producer.operand(0)->shape().elementType()))
      return false;
    llvm::SmallVector<const Instruction *, 8> worklist{producer.operand(0)};
    for (int steps = 0; !worklist.empty() && steps < 16; ++steps) {
      const Instruction *current = worklist.pop_back_val();
      if (isContraction(*current))
        return true;
      if (hlo::opcodeKind(current->opcode()) == hlo::OpcodeKind::Elementwise)
        worklist.append(current->operands().begin(), current->operands().end());
    }
    return false;
  }

  /// Whether `contraction` may join `group` as its output fusion's kernel:
  /// the group has no other, its root can take the kernel's results
  /// (canRewriteInto), and every path from it to the root is elementwise over its dimensions
  /// (each result element is rewritten from the same element of the
  /// contraction, right after it is computed).
  bool acceptsContraction(const Group &group, const Instruction &contraction) const {
    if (group.contraction || group.members.size() >= kMaxGroupSize ||
        operandsWith(group, &contraction) > kMaxGroupOperands ||
        !canRewriteInto(contraction, *group.root))
      return false;
    llvm::SmallVector<const Instruction *, 8> worklist{&contraction};
    llvm::SmallPtrSet<const Instruction *, 8> seen;
    while (!worklist.empty()) {
      const Instruction *current = worklist.pop_back_val();
      if (current == group.root)
        continue;
      for (auto [user, index] : users_.lookup(current)) {
        if (!group.members.contains(user))
          return false;
        if (user == group.root && index == 0 && isEdgePad(*user))
          continue; // the kernel writes inside the padded result
        if (hlo::opcodeKind(user->opcode()) != hlo::OpcodeKind::Elementwise ||
            !user->shape().isArray() || user->shape().dims() != contraction.shape().dims())
          return false;
        if (seen.insert(user).second)
          worklist.push_back(user);
      }
    }
    return true;
  }

  void join(GroupId id, Instruction *producer) {
    Group &group = groups_[id];
    bool reread = false;
    for (auto [user, index] : users_.lookup(producer))
      if (group.members.contains(user))
        reread |= rereadsOperand(*user, index) || group.reread.count(user);
    group.members.insert(producer);
    if (reread)
      group.reread.insert(producer);
    group.externalOperands.remove(producer);
    for (const Instruction *operand : producer->operands())
      group.externalOperands.insert(operand);
    groupsOf_[producer].push_back(id);
  }

  void startGroup(Instruction *root) {
    GroupId id = static_cast<GroupId>(groups_.size());
    groups_.push_back({root, {}, {}, {}});
    groups_.back().members.insert(root);
    for (const Instruction *operand : root->operands())
      groups_.back().externalOperands.insert(operand);
    groupsOf_[root].push_back(id);
  }

  /// The groups `instruction` could join: those of all its users, if every
  /// user is a member of some group; empty otherwise.
  llvm::SmallVector<GroupId, 2> userGroups(const Instruction &instruction) const {
    llvm::SmallVector<GroupId, 2> result;
    auto it = users_.find(&instruction);
    if (it == users_.end())
      return {};
    for (auto [user, index] : it->second) {
      auto groups = groupsOf_.find(user);
      if (groups == groupsOf_.end())
        return {};
      for (GroupId id : groups->second)
        if (!llvm::is_contained(result, id))
          result.push_back(id);
    }
    return result;
  }

  void formGroups() {
    const auto &instructions = computation_.instructions();
    for (auto it = instructions.rbegin(); it != instructions.rend(); ++it) {
      Instruction *instruction = it->get();
      if (instruction != computation_.root() && isContraction(*instruction)) {
        llvm::SmallVector<GroupId, 2> candidates = userGroups(*instruction);
        if (candidates.size() == 1 && acceptsContraction(groups_[candidates[0]], *instruction)) {
          join(candidates[0], instruction);
          groups_[candidates[0]].contraction = instruction;
          continue;
        }
      }
      if (instruction != computation_.root() && isFusibleProducer(*instruction)) {
        llvm::SmallVector<GroupId, 2> candidates = userGroups(*instruction);
        bool fits = !candidates.empty() && (candidates.size() == 1 || isNearlyFree(*instruction));
        for (GroupId id : candidates)
          fits = fits && accepts(groups_[id], *instruction);
        if (fits) {
          for (GroupId id : candidates) {
            join(id, instruction);
            for (auto [user, index] : users_.lookup(instruction))
              if (instruction->opcode() == Opcode::Pad && user == groups_[id].contraction)
                groups_[id].inputPad = instruction;
          }
          continue;
        }
      }
      if (canBeGroupRoot(*instruction))
        startGroup(instruction);
    }
  }

  /// Replaces each group of two or more members by a fusion instruction.
  bool buildFusions() {
    bool changed = false;
    llvm::DenseMap<const Instruction *, size_t> position;
    for (const auto &[i, instruction] : llvm::enumerate(computation_.instructions()))
      position[instruction.get()] = i;
    // Groups were formed from the root up; build them in definition order.
    for (Group &group : llvm::reverse(groups_)) {
      if (group.members.size() < 2)
        continue;
      llvm::SmallVector<Instruction *, 16> members(group.members.begin(), group.members.end());
      llvm::sort(members, [&](const Instruction *a, const Instruction *b) {
        return position.lookup(a) < position.lookup(b);
      });
      // Operands in the order their values are defined: reads like the source.
      llvm::SmallVector<Instruction *, 8> operands;
      for (Instruction *member : members)
        for (Instruction *operand : member->operands())
          if (!group.members.contains(operand) && !llvm::is_contained(operands, operand))
            operands.push_back(operand);
      llvm::sort(operands, [&](const Instruction *a, const Instruction *b) {
        return position.lookup(a) < position.lookup(b);
      });
      Instruction *fusion = buildFusion(group, members, operands);
      replaceAllUses(computation_, group.root, fusion);
      position[fusion] = position.lookup(group.root);
      changed = true;
    }
    if (!changed)
      return false;
    // Members are now unused (duplicated ones in every group that used them).
    removeDeadInstructions();
    restoreDefinitionOrder(computation_);
    return true;
  }

  /// A fusion computing `root` from `members` (in definition order), reading
  /// `operands` as its parameters 0, 1, ...
  Instruction *buildFusion(const Group &group, llvm::ArrayRef<Instruction *> members,
                           llvm::ArrayRef<Instruction *> operands) {
    Instruction *root = group.root;
    auto fused =
        std::make_unique<Computation>(uniqueComputationName("fused_" + root->name().str()));
    llvm::DenseMap<const Instruction *, Instruction *> clones;
    for (auto [number, operand] : llvm::enumerate(operands)) {
      auto parameter = makeInstruction(
          Opcode::Parameter, names_.unique("param_" + operand->name().str()), operand->shape(), {});
      parameter->mutableAttributes().parameterNumber = static_cast<int64_t>(number);
      clones[operand] = fused->addInstruction(std::move(parameter));
    }
    for (Instruction *member : members) {
      auto clone = std::make_unique<Instruction>(*member);
      clone->setName(names_.unique(member->name()));
      for (size_t i = 0; i < clone->operandCount(); ++i)
        clone->setOperand(i, clones.lookup(member->operand(i)));
      clones[member] = fused->addInstruction(std::move(clone));
    }
    fused->setRoot(clones.lookup(root));
    fused->setLocation(root->location());
    fused->setHasSignature(true);
    Computation *callee = module_.addComputationBefore(std::move(fused), &computation_);

    // The fusion stands for its root, whose name it takes over (the root's
    // clone inside got a fresh one, and the root itself goes away).
    auto fusion = makeInstruction(Opcode::Fusion, root->name().str(), root->shape(), operands);
    fusion->mutableAttributes().fusionKind = group.contraction                  ? "kOutput"
                                             : root->opcode() == Opcode::Reduce ? "kInput"
                                                                                : "kLoop";
    fusion->addCalledComputation(callee);
    fusion->setLocation(root->location());
    return computation_.addInstruction(std::move(fusion));
  }

  std::string uniqueComputationName(const std::string &base) const {
    if (!module_.findComputation(base))
      return base;
    for (size_t n = 1;; ++n) {
      std::string candidate = base + "." + std::to_string(n);
      if (!module_.findComputation(candidate))
        return candidate;
    }
  }

  void removeDeadInstructions() {
    llvm::SmallPtrSet<const Instruction *, 32> live;
    llvm::SmallVector<const Instruction *, 64> worklist{computation_.root()};
    live.insert(computation_.root());
    while (!worklist.empty())
      for (const Instruction *operand : worklist.pop_back_val()->operands())
        if (live.insert(operand).second)
          worklist.push_back(operand);
    computation_.removeInstructionsIf([&](const Instruction &instruction) {
      return instruction.opcode() != Opcode::Parameter && !live.contains(&instruction);
    });
  }

  hlo::Module &module_;
  Computation &computation_;
  NameTable &names_;
  llvm::DenseMap<const Instruction *, llvm::SmallVector<std::pair<Instruction *, size_t>, 2>>
      users_;
  std::vector<Group> groups_;
  llvm::DenseMap<const Instruction *, llvm::SmallVector<GroupId, 1>> groupsOf_;
};

} // namespace

llvm::Expected<bool> InstructionFusion::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  // Listed first: fusion adds computations to the module while it runs.
  std::vector<const Computation *> computations = bufferComputations(module);
  for (const Computation *computation : computations)
    if (computation->root())
      changed |= ComputationFusion(module, const_cast<Computation &>(*computation), names).run();
  return changed;
}

bool fusionReadsOperandInPlace(const Instruction &fusion, size_t operand) {
  if (fusion.opcode() != Opcode::Fusion || fusion.calledComputations().size() != 1)
    return false;
  const Computation &fused = *fusion.calledComputation(0);
  if (operand >= fused.parameterCount() || !fused.parameter(operand) || !fused.root())
    return false;
  // An output fusion's kernel stores partial sums before the rewrite reads
  // the other operands.
  if (fusion.attributes().fusionKind == "kOutput")
    return false;
  // Every path from the parameter to the root must be elementwise over the
  // root's dimensions: then element i of the result is computed from element
  // i of the operand only, before it is stored.
  const hlo::Shape &result = fused.root()->shape();
  llvm::DenseMap<const Instruction *, llvm::SmallVector<const Instruction *, 2>> users;
  for (const auto &instruction : fused.instructions())
    for (const Instruction *input : instruction->operands())
      users[input].push_back(instruction.get());
  llvm::SmallVector<const Instruction *, 16> worklist{fused.parameter(operand)};
  llvm::SmallPtrSet<const Instruction *, 16> seen;
  while (!worklist.empty()) {
    const Instruction *current = worklist.pop_back_val();
    for (const Instruction *user : users.lookup(current)) {
      if (hlo::opcodeKind(user->opcode()) != hlo::OpcodeKind::Elementwise ||
          !user->shape().isArray() || user->shape().dims() != result.dims())
        return false;
      if (seen.insert(user).second)
        worklist.push_back(user);
    }
  }
  return true;
}

} // namespace mote::passes
