//===- ContractionChains.cpp - Contractions run depth-first ---------------===//
//
// A convolutional block is a run of contractions, each reading the previous
// one's result: MobileNet's 1x1 expansion, depthwise 3x3 and 1x1 projection.
// Run op by op, each layer streams megabytes through the caches and the next
// one reads them back from memory. Run depth-first, in bands of rows, a band
// of each layer is computed while the rows of the layer before it that it
// needs are still in the second-level cache.
//
// Every contraction is an op function over a range of its split loop (whose
// iterations write increasing rows of its result), so the schedule is only
// a matter of which ranges to call when: for each band of the last member,
// the rows of its lhs it reads (contractionFootprint) fix how far the
// member before it must have got, and so on back to the first. Each element
// is still computed by the same code from the same inputs, so results are
// the same bytes as op by op. Members must not share memory other than
// through that lhs (buffer assignment may reuse a dead value's memory,
// which running depth-first would revive too early), and with threads the
// members run op by op, each split into tasks as usual.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

#include <map>

namespace mote::codegen {

namespace {

/// Bytes of results per band: well inside a second-level cache, so what a
/// band's producers write is still there when its consumers read it.
constexpr uint64_t kBandBytes = 128 * 1024;

bool overlaps(const BufferSlice &a, const BufferSlice &b) {
  using Kind = BufferSlice::Kind;
  if (a.kind != b.kind || a.kind == Kind::Empty || a.kind == Kind::Constant)
    return false;
  if (a.kind != Kind::Arena)
    return a.index == b.index;
  return a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

/// Whether `instruction` reads `lhs` only as its contraction's lhs: a plain
/// dot or convolution not also reading it as its rhs, or an output fusion
/// whose parameters for `lhs` feed only the contraction's operand 0.
bool readsOnlyAsLhs(const hlo::Instruction &instruction, const hlo::Instruction &lhs) {
  if (instruction.opcode() != Opcode::Fusion)
    return instruction.operand(1) != &lhs;
  const hlo::Computation &fused = *instruction.calledComputation(0);
  for (size_t i = 0; i < instruction.operandCount(); ++i) {
    if (instruction.operand(i) != &lhs)
      continue;
    const hlo::Instruction *parameter = fused.parameter(i);
    if (!parameter)
      return false;
    for (const auto &user : fused.instructions())
      for (size_t o = 0; o < user->operandCount(); ++o)
        if (user->operand(o) == parameter &&
            !((user->opcode() == Opcode::Dot || user->opcode() == Opcode::Convolution) && o == 0))
          return false;
  }
  return true;
}

} // namespace

std::optional<FunctionEmitter::ChainMember>
FunctionEmitter::chainMember(const hlo::Instruction &instruction, const ContractionPlan &plan,
                             const hlo::Instruction &lhs) {
  if (function_ != entryFunction_ || !readsOnlyAsLhs(instruction, lhs))
    return std::nullopt;
  llvm::Triple triple(module_.getTargetTriple());
  if (!contractionFootprint(plan, triple, target_, 0))
    return std::nullopt;
  ChainMember member;
  member.instruction = &instruction;
  member.plan = plan;
  member.lhs = assignment_.slice(&lhs);
  member.out = assignment_.slice(&instruction);
  for (const BufferSlice &slice : opSlices(instruction))
    if (slice != member.out)
      member.reads.push_back(slice);
  return member;
}

bool FunctionEmitter::joinsChain(const ChainMember &member) const {
  if (chain_.empty() || member.lhs != chain_.back().out)
    return false;
  for (const ChainMember &earlier : chain_) {
    // Its result must not land where an earlier member reads or writes.
    if (overlaps(member.out, earlier.out))
      return false;
    for (const BufferSlice &read : earlier.reads)
      if (overlaps(member.out, read))
        return false;
    // What it reads must not be written by an earlier member, but for the
    // lhs the schedule waits for.
    for (const BufferSlice &read : member.reads)
      if (overlaps(read, earlier.out) && !(&earlier == &chain_.back() && read == member.lhs))
        return false;
  }
  return true;
}

bool FunctionEmitter::mayJoinChain(const hlo::Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Parameter:
  case Opcode::Constant:
  case Opcode::AfterAll:
  case Opcode::Dot:
  case Opcode::Convolution:
    return true;
  case Opcode::Fusion:
    return instruction.attributes().fusionKind == "kOutput";
  default:
    return false;
  }
}

std::vector<llvm::SmallVector<std::array<int64_t, 3>, 4>>
FunctionEmitter::chainBands(llvm::ArrayRef<ChainMember> chain) {
  llvm::Triple triple(module_.getTargetTriple());
  std::vector<std::map<int64_t, ContractionFootprint>> known(chain.size());
  auto footprint = [&](size_t member, int64_t splits) {
    auto [at, added] = known[member].try_emplace(splits);
    if (added)
      at->second = *contractionFootprint(chain[member].plan, triple, target_, splits);
    return at->second;
  };
  // The fewest splits of `member` whose results reach `end`.
  auto covering = [&](size_t member, int64_t end) {
    const int64_t extent = chain[member].ranged.extent;
    end = std::min(end, footprint(member, extent).resultEnd);
    int64_t low = 0, high = extent;
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (footprint(member, middle).resultEnd >= end)
        high = middle;
      else
        low = middle + 1;
    }
    return low;
  };

  uint64_t bytes = 0;
  for (const ChainMember &member : chain)
    bytes += member.out.size;
  const size_t last = chain.size() - 1;
  const int64_t extent = chain[last].ranged.extent;
  const int64_t count = std::clamp<int64_t>(int64_t(bytes / kBandBytes), 1, extent);
  std::vector<llvm::SmallVector<std::array<int64_t, 3>, 4>> bands;
  std::vector<int64_t> done(chain.size(), 0), need(chain.size(), 0);
  for (int64_t band = 1; band <= count; ++band) {
    need[last] = band * extent / count;
    for (size_t member = last; member > 0; --member)
      need[member - 1] = band == count
                             ? chain[member - 1].ranged.extent
                             : covering(member - 1, footprint(member, need[member]).lhsEnd);
    auto &ranges = bands.emplace_back();
    for (size_t member = 0; member <= last; ++member)
      if (need[member] > done[member]) {
        ranges.push_back({int64_t(member), done[member], need[member]});
        done[member] = need[member];
      }
  }
  return bands;
}

void FunctionEmitter::flushChain() {
  if (chain_.empty())
    return;
  std::vector<ChainMember> chain = std::move(chain_);
  chain_.clear();
  if (chain.size() == 1)
    return emitRangedOpRun(chain.front().ranged);

  auto depthFirst = [&] {
    auto index = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
    for (const auto &ranges : chainBands(chain))
      for (const auto &[member, begin, end] : ranges)
        callRangedOp(chain[member].ranged, index(begin), index(end));
  };
  if (llvm::none_of(chain, [](const ChainMember &member) { return member.ranged.task; }))
    return depthFirst();
  // With threads each member runs op by op, split into tasks; without,
  // depth-first.
  llvm::LLVMContext &context = module_.getContext();
  llvm::BasicBlock *threaded = llvm::BasicBlock::Create(context, "chain.threaded", function_);
  llvm::BasicBlock *sequential = llvm::BasicBlock::Create(context, "chain.depth_first", function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "chain.done", function_);
  builder_.CreateCondBr(builder_.CreateCall(parallelForCheck(), {env_}), threaded, sequential);
  builder_.SetInsertPoint(threaded);
  for (const ChainMember &member : chain)
    emitRangedOpRun(member.ranged);
  builder_.CreateBr(done);
  builder_.SetInsertPoint(sequential);
  depthFirst();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

llvm::Function *FunctionEmitter::parallelForCheck() {
  static constexpr const char *kName = "mote.has_parallel_for";
  if (llvm::Function *known = module_.getFunction(kName))
    return known;
  llvm::LLVMContext &context = module_.getContext();
  llvm::Type *ptr = builder_.getPtrTy();
  llvm::Function *check =
      llvm::Function::Create(llvm::FunctionType::get(builder_.getInt1Ty(), {ptr}, false),
                             llvm::GlobalValue::InternalLinkage, kName, module_);
  check->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", check));
  llvm::BasicBlock *load = llvm::BasicBlock::Create(context, "load", check);
  llvm::BasicBlock *none = llvm::BasicBlock::Create(context, "none", check);
  builder.CreateCondBr(builder.CreateIsNotNull(check->getArg(0)), load, none);
  // mote_env: { void *user; parallel_for; ... } (mote/abi.h).
  builder.SetInsertPoint(load);
  llvm::StructType *envType = llvm::StructType::get(context, {ptr, ptr});
  llvm::Value *parallelFor =
      builder.CreateLoad(ptr, builder.CreateStructGEP(envType, check->getArg(0), 1));
  builder.CreateRet(builder.CreateIsNotNull(parallelFor));
  builder.SetInsertPoint(none);
  builder.CreateRet(builder.getFalse());
  return check;
}

} // namespace mote::codegen
