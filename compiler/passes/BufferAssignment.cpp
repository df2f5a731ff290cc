//===- BufferAssignment.cpp - Where every value lives at run time ---------===//
//
// 1. Flatten the schedule: a while's condition and body, and a conditional's
//    branches, take positions inside the interval of the instruction that
//    runs them. A while's buffers live over the whole loop; values of one
//    iteration live inside the body's range (the body root's until the copy
//    back at the end of that range).
// 2. Union values that share memory (tuple, get-tuple-element, bitcast,
//    row-major reshape, a while's buffers with its body and condition
//    parameters, a branch parameter with its operand) into sets.
// 3. Sets with a parameter or constant live there; sets that are one entry
//    result leaf and nothing else become that result buffer. A parameter
//    leaf input_output_alias pairs with a result leaf lives in that result's
//    buffer (the caller passes one buffer for both, or a copy).
// 4. Let an elementwise op (or a fusion that reads that operand only at the
//    index it writes) or dynamic-update-slice take over an arena or aliased
//    parameter set that dies at it, and a while take over an init value that
//    dies at it. An aliased result that could not take over its parameter
//    is computed in the arena and copied into place at the end.
// 5. Pack the remaining arena sets (BufferPacking).
//
//===----------------------------------------------------------------------===//

#include "passes/BufferAssignment.h"

#include "passes/BufferPacking.h"
#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

#include "hlo/Diagnostics.h"
#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <numeric>

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;
using Kind = BufferSlice::Kind;

const BufferSlice &BufferAssignment::slice(const Instruction *instruction, uint32_t leaf) const {
  static const BufferSlice empty;
  auto it = slices_.find({instruction, leaf});
  return it == slices_.end() ? empty : it->second;
}

bool BufferAssignment::hasSlice(const Instruction *instruction, uint32_t leaf) const {
  return slices_.count({instruction, leaf});
}

void BufferAssignment::setSlice(const Instruction *instruction, uint32_t leaf, BufferSlice slice) {
  slices_[{instruction, leaf}] = slice;
}

namespace {

size_t leafCount(const hlo::Shape &shape) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  shape.collectLeaves(leaves);
  return leaves.size();
}

class Planner {
public:
  Planner(const hlo::Module &module, const Schedule &schedule,
          const BufferAssignmentOptions &options)
      : module_(module), schedule_(schedule), options_(options) {}

  llvm::Expected<BufferAssignment> run();

private:
  struct Value {
    const Instruction *instruction;
    uint32_t leaf;
    uint64_t bytes;
    uint32_t start = 0;
    uint32_t end = 0;
  };
  /// A set of values sharing memory, once unioned.
  struct Set {
    uint32_t start = UINT32_MAX;
    uint32_t end = 0;
    uint64_t bytes = 0;
    Kind kind = Kind::Arena;
    uint32_t index = 0;
    const Instruction *constant = nullptr;
    bool onlyEntry = true; ///< all members are plain instructions of the entry
    bool aliased = false;  ///< a parameter living in its aliased result's buffer
    std::vector<uint32_t> members;
  };
  struct Timing {
    uint32_t def = 0; ///< first position the result is written
    uint32_t use = 0; ///< last position the operands are read
  };

  llvm::Error walk(const Computation &computation);
  void addValues(const Instruction &instruction);
  void extendEnd(const Instruction *instruction, uint32_t end);
  int32_t value(const Instruction *instruction, size_t leaf) const;
  uint32_t find(uint32_t id);
  void unite(int32_t a, int32_t b);
  void uniteAliases(const Instruction &instruction);
  void computeIntervals();
  void buildSets();
  void chooseResults();
  llvm::Error placeAliasedParameters();
  void separateAliasedResults();
  void mergeInPlace();
  bool tryMerge(int32_t taken, int32_t taker, uint32_t at);
  bool tryMergeIntoLoopState(int32_t taken, int32_t taker, uint32_t at);
  BufferAssignment finish();

  const hlo::Module &module_;
  const Schedule &schedule_;
  const BufferAssignmentOptions &options_;
  uint32_t next_ = 0;
  std::vector<Value> values_;
  std::vector<uint32_t> parent_;
  llvm::DenseMap<const Instruction *, llvm::SmallVector<int32_t, 1>> leaves_;
  llvm::DenseMap<const Instruction *, Timing> timing_;
  std::vector<const Instruction *> flat_; ///< every scheduled instruction, by def position
  std::vector<std::pair<const Instruction *, uint32_t>> forcedEnds_;
  llvm::DenseSet<const Computation *> walked_;
  llvm::DenseMap<uint32_t, Set> sets_; ///< by union-find root
  /// input_output_alias as (result leaf value, parameter leaf value).
  std::vector<std::pair<int32_t, int32_t>> aliases_;
  std::vector<const Instruction *> whiles_; ///< every while, in schedule order
};

int32_t Planner::value(const Instruction *instruction, size_t leaf) const {
  auto it = leaves_.find(instruction);
  if (it == leaves_.end() || leaf >= it->second.size())
    return -1;
  return it->second[leaf];
}

void Planner::addValues(const Instruction &instruction) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  instruction.shape().collectLeaves(leaves);
  auto &ids = leaves_[&instruction];
  for (auto [leaf, shape] : llvm::enumerate(leaves)) {
    if (!shape->isArray()) {
      ids.push_back(-1);
      continue;
    }
    ids.push_back(static_cast<int32_t>(values_.size()));
    values_.push_back({&instruction, static_cast<uint32_t>(leaf), arrayBytes(*shape)});
    parent_.push_back(static_cast<uint32_t>(parent_.size()));
  }
}

llvm::Error Planner::walk(const Computation &computation) {
  if (!schedule_.has(&computation))
    return hlo::errorAt(computation.location(),
                        "computation %" + computation.name() + " has no schedule");
  if (!walked_.insert(&computation).second)
    return hlo::errorAt(computation.location(),
                        "computation %" + computation.name() +
                            " runs from two places; the compile pipeline gives each its own copy");
  for (const Instruction *instruction : schedule_.order(&computation)) {
    if (instruction->opcode() == Opcode::Call)
      return hlo::errorAt(*instruction, "calls must be inlined before buffer assignment (run "
                                        "the compile pipeline first)");
    if (instruction->shape().isArray() && instruction->shape().hasUnboundedDims())
      return hlo::errorAt(*instruction, "an unbounded dynamic dimension has no size to allocate");
    addValues(*instruction);
    flat_.push_back(instruction);
    const auto called = instruction->calledComputations();
    if (instruction->opcode() == Opcode::While && called.size() == 2 && called[0] && called[1]) {
      uint32_t start = next_++;
      if (llvm::Error error = walk(*called[0]))
        return error;
      uint32_t conditionEnd = next_++; // the predicate is read here
      if (llvm::Error error = walk(*called[1]))
        return error;
      uint32_t end = next_++; // the body root is copied back here
      timing_[instruction] = {start, start};
      whiles_.push_back(instruction);
      forcedEnds_.push_back({called[0]->root(), conditionEnd});
      forcedEnds_.push_back({called[1]->root(), end});
      forcedEnds_.push_back({instruction, end});
    } else if (instruction->opcode() == Opcode::Conditional) {
      uint32_t start = next_++;
      for (const Computation *branch : called) {
        if (!branch)
          continue;
        if (llvm::Error error = walk(*branch))
          return error;
        forcedEnds_.push_back({branch->root(), next_++}); // copied out here
      }
      // Operands are read by whichever branch runs, until the end.
      timing_[instruction] = {start, next_ - 1};
      forcedEnds_.push_back({instruction, next_ - 1});
    } else {
      uint32_t position = next_++;
      timing_[instruction] = {position, position};
    }
  }
  return llvm::Error::success();
}

uint32_t Planner::find(uint32_t id) {
  while (parent_[id] != id) {
    parent_[id] = parent_[parent_[id]];
    id = parent_[id];
  }
  return id;
}

void Planner::unite(int32_t a, int32_t b) {
  if (a < 0 || b < 0)
    return;
  uint32_t ra = find(static_cast<uint32_t>(a)), rb = find(static_cast<uint32_t>(b));
  if (ra != rb)
    parent_[std::max(ra, rb)] = std::min(ra, rb);
}

void Planner::uniteAliases(const Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Tuple: {
    size_t offset = 0;
    for (const Instruction *operand : instruction.operands()) {
      size_t count = leafCount(operand->shape());
      for (size_t m = 0; m < count; ++m)
        unite(value(&instruction, offset + m), value(operand, m));
      offset += count;
    }
    return;
  }
  case Opcode::GetTupleElement: {
    const hlo::Shape &tuple = instruction.operand(0)->shape();
    size_t index = static_cast<size_t>(instruction.attributes().tupleIndex);
    if (!tuple.isTuple() || index >= tuple.tupleSize())
      return;
    size_t offset = 0;
    for (size_t i = 0; i < index; ++i)
      offset += leafCount(tuple.tupleElement(i));
    size_t count = leafCount(instruction.shape());
    for (size_t m = 0; m < count; ++m)
      unite(value(&instruction, m), value(instruction.operand(0), offset + m));
    return;
  }
  case Opcode::Bitcast:
  case Opcode::Reshape: {
    const hlo::Shape &from = instruction.operand(0)->shape();
    const hlo::Shape &to = instruction.shape();
    bool sameBytes = from.isArray() && to.isArray() && arrayBytes(from) == arrayBytes(to) &&
                     hlo::storageBytes(from.elementType()) == hlo::storageBytes(to.elementType());
    bool reinterprets = instruction.opcode() == Opcode::Bitcast ||
                        (from.hasDefaultLayout() && to.hasDefaultLayout() &&
                         from.elementType() == to.elementType());
    if (sameBytes && reinterprets)
      unite(value(&instruction, 0), value(instruction.operand(0), 0));
    return;
  }
  case Opcode::While: {
    size_t count = leafCount(instruction.shape());
    for (const Computation *callee : instruction.calledComputations())
      if (callee && callee->parameterCount() == 1 && callee->parameter(0))
        for (size_t k = 0; k < count; ++k)
          unite(value(&instruction, k), value(callee->parameter(0), k));
    return;
  }
  case Opcode::Conditional: {
    for (auto [b, branch] : llvm::enumerate(instruction.calledComputations())) {
      if (!branch || branch->parameterCount() != 1 || !branch->parameter(0) ||
          b + 1 >= instruction.operandCount())
        continue;
      const Instruction *operand = instruction.operand(b + 1);
      size_t count = leafCount(operand->shape());
      for (size_t k = 0; k < count; ++k)
        unite(value(branch->parameter(0), k), value(operand, k));
    }
    return;
  }
  default:
    return;
  }
}

void Planner::extendEnd(const Instruction *instruction, uint32_t end) {
  auto it = leaves_.find(instruction);
  if (it == leaves_.end())
    return;
  for (int32_t id : it->second)
    if (id >= 0)
      values_[id].end = std::max(values_[id].end, end);
}

void Planner::computeIntervals() {
  for (Value &value : values_) {
    value.start = timing_.lookup(value.instruction).def;
    value.end = value.start;
  }
  for (const Instruction *instruction : flat_)
    for (const Instruction *operand : instruction->operands())
      extendEnd(operand, timing_.lookup(instruction).use);
  for (auto [instruction, end] : forcedEnds_)
    extendEnd(instruction, end);
}

void Planner::buildSets() {
  const Computation *entry = module_.entry();
  // Leaf numbers of the entry parameters, flattened over all of them.
  std::vector<uint32_t> parameterBase;
  uint32_t base = 0;
  for (const Instruction *parameter : entry->parameters()) {
    parameterBase.push_back(base);
    base += parameter ? static_cast<uint32_t>(leafCount(parameter->shape())) : 0;
  }
  for (uint32_t id = 0; id < values_.size(); ++id) {
    const Value &value = values_[id];
    Set &set = sets_[find(id)];
    set.members.push_back(id);
    set.start = std::min(set.start, value.start);
    set.end = std::max(set.end, value.end);
    set.bytes = std::max(set.bytes, value.bytes);
    const Instruction &instruction = *value.instruction;
    bool inEntry = instruction.parent() == entry;
    if (!inEntry || instruction.opcode() == Opcode::While ||
        instruction.opcode() == Opcode::Conditional)
      set.onlyEntry = false;
    if (inEntry && instruction.opcode() == Opcode::Parameter) {
      set.kind = Kind::Parameter;
      set.index = parameterBase[instruction.attributes().parameterNumber] + value.leaf;
    } else if (instruction.opcode() == Opcode::Constant) {
      set.kind = Kind::Constant;
      set.constant = &instruction;
      set.index = value.leaf;
    }
  }
  for (auto &[root, set] : sets_)
    if (set.bytes == 0)
      set.kind = Kind::Empty;
}

void Planner::chooseResults() {
  const Instruction *root = module_.entry()->root();
  llvm::DenseMap<uint32_t, unsigned> uses;
  auto rootLeaves = leaves_.lookup(root);
  for (int32_t id : rootLeaves)
    if (id >= 0)
      ++uses[find(id)];
  for (auto [leaf, id] : llvm::enumerate(rootLeaves)) {
    if (id < 0)
      continue;
    Set &set = sets_[find(id)];
    if (set.kind == Kind::Arena && set.onlyEntry && uses[find(id)] == 1) {
      set.kind = Kind::Result;
      set.index = static_cast<uint32_t>(leaf);
    }
  }
}

/// The parameter leaf of each input_output_alias pair goes to its result's
/// buffer: the code then updates it in place when it can.
llvm::Error Planner::placeAliasedParameters() {
  auto entries = hlo::inputOutputAlias(module_);
  if (!entries)
    return entries.takeError();
  const Computation &entry = *module_.entry();
  const Instruction *root = entry.root();
  for (const hlo::AliasEntry &alias : *entries) {
    const Instruction *parameter =
        alias.parameter >= 0 && size_t(alias.parameter) < entry.parameterCount()
            ? entry.parameter(alias.parameter)
            : nullptr;
    int64_t resultLeaf = hlo::flatLeafIndex(root->shape(), alias.output);
    int64_t parameterLeaf =
        parameter ? hlo::flatLeafIndex(parameter->shape(), alias.parameterIndex) : -1;
    int32_t result = resultLeaf < 0 ? -1 : value(root, resultLeaf);
    int32_t donated = parameterLeaf < 0 ? -1 : value(parameter, parameterLeaf);
    if (result < 0 || donated < 0 || values_[result].bytes != values_[donated].bytes)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "input_output_alias pairs a result and a parameter that "
                                     "are not arrays of the same size: " +
                                         hlo::formatInputOutputAlias({alias}));
    Set &set = sets_[find(donated)];
    if (set.kind != Kind::Parameter || set.aliased)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "input_output_alias donates a parameter twice: " +
                                         hlo::formatInputOutputAlias({alias}));
    set.kind = Kind::Result;
    set.index = static_cast<uint32_t>(resultLeaf);
    set.aliased = true;
    aliases_.push_back({result, donated});
  }
  return llvm::Error::success();
}

/// An aliased result that neither is its parameter nor took over its
/// memory, but was given the result buffer while the parameter still lives
/// there, moves to the arena and is copied into place at the end.
void Planner::separateAliasedResults() {
  for (auto [result, donated] : aliases_) {
    uint32_t r = find(result), d = find(donated);
    if (r == d)
      continue;
    Set &computed = sets_[r];
    const Set &parameter = sets_[d];
    if (computed.kind == Kind::Result && computed.index == parameter.index &&
        computed.start <= parameter.end)
      computed.kind = Kind::Arena;
  }
}

/// `taker` (defined at `at`) takes over the arena set of `taken` (or an
/// aliased parameter's, in its result buffer) if that set dies at `at`.
bool Planner::tryMerge(int32_t taken, int32_t taker, uint32_t at) {
  if (taken < 0 || taker < 0)
    return false;
  uint32_t a = find(taken), b = find(taker);
  if (a == b)
    return false;
  Set &old = sets_.find(a)->second, &fresh = sets_.find(b)->second;
  // An aliased parameter's memory may go to any value of its size, or to
  // the value that is chosen for its own result buffer.
  bool takesAliased = old.aliased && (fresh.kind == Kind::Arena ||
                                      (fresh.kind == Kind::Result && fresh.index == old.index));
  if ((old.kind != Kind::Arena && !takesAliased) || (fresh.kind != Kind::Arena && !takesAliased) ||
      old.end != at || old.bytes != fresh.bytes)
    return false;
  Set merged = std::move(old);
  merged.start = std::min(merged.start, fresh.start);
  merged.end = std::max(merged.end, fresh.end);
  merged.members.insert(merged.members.end(), fresh.members.begin(), fresh.members.end());
  merged.onlyEntry = merged.onlyEntry && fresh.onlyEntry;
  sets_.erase(a);
  sets_.erase(b);
  parent_[std::max(a, b)] = std::min(a, b);
  sets_[std::min(a, b)] = std::move(merged);
  return true;
}

void Planner::mergeInPlace() {
  for (const Instruction *instruction : flat_) {
    const hlo::Shape &shape = instruction->shape();
    uint32_t at = timing_.lookup(instruction).use;
    if (instruction->opcode() == Opcode::While && instruction->operandCount() == 1) {
      // The loop state may start in the init value's memory when the init
      // dies here and no two leaves of the init share a set.
      const Instruction *init = instruction->operand(0);
      auto initLeaves = leaves_.lookup(init);
      llvm::DenseMap<uint32_t, unsigned> count;
      for (int32_t id : initLeaves)
        if (id >= 0)
          ++count[find(id)];
      for (auto [k, id] : llvm::enumerate(initLeaves))
        if (id >= 0 && count[find(id)] == 1)
          tryMerge(id, value(instruction, k), at);
      continue;
    }
    if (!shape.isArray() || !shape.hasDefaultLayout())
      continue;
    auto fits = [&](const Instruction *operand) {
      const hlo::Shape &from = operand->shape();
      return from.isArray() && from.hasDefaultLayout() && from.dims() == shape.dims() &&
             hlo::storageBytes(from.elementType()) == hlo::storageBytes(shape.elementType());
    };
    // Takes over the operand's memory when it dies here, or the loop state
    // it was read from when this computes the state's next value.
    auto merge = [&](int32_t taken, int32_t taker) {
      return tryMerge(taken, taker, at) || tryMergeIntoLoopState(taken, taker, at);
    };
    if (hlo::opcodeKind(instruction->opcode()) == hlo::OpcodeKind::Elementwise) {
      for (const Instruction *operand : instruction->operands())
        if (fits(operand) && merge(value(operand, 0), value(instruction, 0)))
          break;
    } else if (instruction->opcode() == Opcode::Fusion) {
      for (auto [i, operand] : llvm::enumerate(instruction->operands()))
        if (fits(operand) && fusionReadsOperandInPlace(*instruction, i) &&
            merge(value(operand, 0), value(instruction, 0)))
          break;
    } else if (instruction->opcode() == Opcode::DynamicUpdateSlice &&
               instruction->operandCount() >= 2 && fits(instruction->operand(0))) {
      // The update and the indices must not live in the memory written over.
      int32_t target = value(instruction->operand(0), 0);
      bool shared = false;
      for (const Instruction *other : instruction->operands().drop_front())
        for (int32_t id : leaves_.lookup(other))
          shared |= id >= 0 && target >= 0 && find(id) == find(target);
      if (!shared)
        merge(target, value(instruction, 0));
    }
  }
}

/// Inside a while body, `taker` (defined at `at`) computes the next value of
/// loop state leaf k (it is what the body returns there) from `taken`, the
/// current one (the state's buffer). When nothing in the body reads the
/// current value after `at`, the next one is computed in the state's buffer
/// itself: no second buffer, and no copy back at the end of the iteration
/// (a generate loop's KV cache updated by dynamic-update-slice, a counter).
bool Planner::tryMergeIntoLoopState(int32_t taken, int32_t taker, uint32_t at) {
  if (taken < 0 || taker < 0)
    return false;
  const uint32_t a = find(taken), b = find(taker);
  const Computation *body = values_[taker].instruction->parent();
  if (a == b || !body)
    return false;
  for (const Instruction *loop : whiles_) {
    if (loop->calledComputation(1) != body)
      continue;
    const auto stateLeaves = leaves_.lookup(loop);
    for (auto [k, state] : llvm::enumerate(stateLeaves)) {
      if (state < 0 || find(state) != a || find(value(body->root(), k)) != b)
        continue;
      const Set &stateSet = sets_.find(a)->second, &next = sets_.find(b)->second;
      if (next.kind != Kind::Arena || next.bytes != stateSet.bytes ||
          (stateSet.kind != Kind::Arena && !stateSet.aliased) || next.start < at)
        return false;
      // The current value's last read in this iteration. The parameter's
      // interval covers every leaf's reads; when only get-tuple-elements
      // read it, those of leaf k (members too) are what counts.
      const Instruction *parameter = body->parameterCount() == 1 ? body->parameter(0) : nullptr;
      const bool onlyElementsRead =
          parameter && llvm::all_of(body->instructions(), [&](const auto &user) {
            return user->opcode() == Opcode::GetTupleElement ||
                   !llvm::is_contained(user->operands(), parameter);
          });
      for (uint32_t member : stateSet.members) {
        const Value &read = values_[member];
        if (read.instruction->parent() == body && read.end > at &&
            !(onlyElementsRead && read.instruction == parameter))
          return false;
      }
      Set merged = std::move(sets_.find(a)->second);
      const Set &fresh = sets_.find(b)->second;
      merged.members.insert(merged.members.end(), fresh.members.begin(), fresh.members.end());
      merged.start = std::min(merged.start, fresh.start);
      merged.end = std::max(merged.end, fresh.end);
      merged.onlyEntry = false;
      sets_.erase(a);
      sets_.erase(b);
      parent_[std::max(a, b)] = std::min(a, b);
      sets_[std::min(a, b)] = std::move(merged);
      return true;
    }
  }
  return false;
}

BufferAssignment Planner::finish() {
  BufferAssignment assignment;
  std::vector<PackingItem> items;
  std::vector<uint32_t> arenaSets;
  for (auto &[root, set] : sets_)
    if (set.kind == Kind::Arena) {
      arenaSets.push_back(root);
      items.push_back({set.bytes, set.start, set.end});
    }
  // Deterministic output whatever the hash order.
  std::vector<size_t> order(arenaSets.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sets_[arenaSets[a]].members.front() < sets_[arenaSets[b]].members.front();
  });
  std::vector<PackingItem> sortedItems;
  std::vector<uint32_t> sortedSets;
  for (size_t i : order) {
    sortedItems.push_back(items[i]);
    sortedSets.push_back(arenaSets[i]);
  }
  Packing packing = packBuffers(sortedItems, options_.alignment);
  assignment.setArena(packing.size, options_.alignment, liveBytesLowerBound(sortedItems));

  llvm::DenseMap<uint32_t, uint64_t> offsets;
  for (auto [i, root] : llvm::enumerate(sortedSets)) {
    offsets[root] = packing.offsets[i];
    ArenaBuffer buffer;
    buffer.offset = packing.offsets[i];
    buffer.size = sortedItems[i].size;
    buffer.start = sortedItems[i].start;
    buffer.end = sortedItems[i].end;
    for (uint32_t id : sets_[root].members)
      buffer.values.push_back({values_[id].instruction, values_[id].leaf});
    assignment.mutableBuffers().push_back(std::move(buffer));
  }
  for (uint32_t id = 0; id < values_.size(); ++id) {
    const Value &value = values_[id];
    const Set &set = sets_[find(id)];
    BufferSlice slice;
    slice.kind = value.bytes == 0 ? Kind::Empty : set.kind;
    slice.size = value.bytes;
    if (slice.kind == Kind::Arena)
      slice.offset = offsets.lookup(find(id));
    if (slice.kind == Kind::Parameter || slice.kind == Kind::Result || slice.kind == Kind::Constant)
      slice.index = set.index;
    if (slice.kind == Kind::Constant)
      slice.constant = set.constant;
    if (slice.kind == Kind::Empty)
      slice.size = 0;
    assignment.setSlice(value.instruction, value.leaf, slice);
  }
  return assignment;
}

llvm::Expected<BufferAssignment> Planner::run() {
  const Computation *entry = module_.entry();
  if (!entry || !entry->root())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the module has no entry computation");
  if (llvm::Error error = walk(*entry))
    return std::move(error);
  for (const Instruction *instruction : flat_)
    uniteAliases(*instruction);
  computeIntervals();
  extendEnd(entry->root(), next_++); // results are copied out at the very end
  buildSets();
  chooseResults();
  if (llvm::Error error = placeAliasedParameters())
    return std::move(error);
  mergeInPlace();
  separateAliasedResults();
  return finish();
}

} // namespace

llvm::Expected<BufferAssignment> assignBuffers(const hlo::Module &module, const Schedule &schedule,
                                               const BufferAssignmentOptions &options) {
  return Planner(module, schedule, options).run();
}

} // namespace mote::passes
