//===- DotEmitter.cpp - Dots as register-tiled contractions ---------------===//
//
// A dot of the element types passes/ContractionTypes.h lists (f16, bf16 and
// f32 in any mix, summed in f32; f64; integers) is emitted as a
// register-tiled contraction (ContractionKernel.h) instead of one k loop per
// result element. Result dimensions are batch, lhs free, rhs free in that
// order; columns run along the last one, rows along the one before it, and
// each moves in the operands that have it.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"
#include "codegen/FunctionEmitter.h"
#include "codegen/PrepackedWeights.h"
#include "passes/ContractionTypes.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

bool planDot(const hlo::Instruction &instruction, ContractionPlan &plan, std::string *why,
             const ResultPlacement *placement) {
  auto fail = [&](const char *message) {
    if (why)
      *why = message;
    return false;
  };
  if (instruction.opcode() != hlo::Opcode::Dot || instruction.operandCount() != 2)
    return fail("not a dot");
  const hlo::Shape &result = instruction.shape();
  const hlo::Shape &lhs = instruction.operand(0)->shape();
  const hlo::Shape &rhs = instruction.operand(1)->shape();
  if (!result.isArray() || !lhs.isArray() || !rhs.isArray())
    return fail("dot of non-arrays");
  if (!passes::isTiledContractionType(result.elementType(), lhs.elementType(), rhs.elementType()))
    return fail("only dots of f16, bf16 and f32 (summed in f32), of f64 and of integers are tiled");
  if (!result.hasDefaultLayout() || !lhs.hasDefaultLayout() || !rhs.hasDefaultLayout())
    return fail("only row-major dots are tiled");
  if (result.rank() == 0)
    return fail("a scalar dot has nothing to tile");
  const hlo::DotDimensionNumbers &numbers = instruction.attributes().dotDimensions;
  if (numbers.lhsBatchDimensions.size() != numbers.rhsBatchDimensions.size() ||
      numbers.lhsContractingDimensions.size() != numbers.rhsContractingDimensions.size())
    return fail("malformed dot dimension numbers");

  // Result dimensions: batch, then lhs free, then rhs free; each moves in
  // the operands that have it.
  llvm::SmallVector<int64_t, 4> strides[2] = {rowMajorStrides(lhs.dims()),
                                              rowMajorStrides(rhs.dims())};
  llvm::SmallVector<std::pair<int64_t, int64_t>, 6> resultStrides;
  for (size_t i = 0; i < numbers.lhsBatchDimensions.size(); ++i)
    resultStrides.push_back(
        {strides[0][numbers.lhsBatchDimensions[i]], strides[1][numbers.rhsBatchDimensions[i]]});
  auto isFree = [](const hlo::DotDimensionNumbers &n, bool isLhs, int64_t d) {
    return !llvm::is_contained(isLhs ? n.lhsBatchDimensions : n.rhsBatchDimensions, d) &&
           !llvm::is_contained(isLhs ? n.lhsContractingDimensions : n.rhsContractingDimensions, d);
  };
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (isFree(numbers, true, d))
      resultStrides.push_back({strides[0][d], 0});
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (isFree(numbers, false, d))
      resultStrides.push_back({0, strides[1][d]});
  if (static_cast<int64_t>(resultStrides.size()) != result.rank())
    return fail("dot result rank does not match its dimension numbers");

  plan = ContractionPlan();
  setContractionTypes(plan, result.elementType(), lhs.elementType(), rhs.elementType());
  const int64_t rank = result.rank();
  const int64_t outerRank = rank >= 2 ? rank - 2 : 0;
  llvm::SmallVector<int64_t, 4> ownStrides =
      placement ? placement->strides : rowMajorStrides(result.dims());
  if (static_cast<int64_t>(ownStrides.size()) != rank || ownStrides[rank - 1] != 1)
    return fail("the result has no contiguous last dimension");
  plan.result.base = placement ? placement->base : 0;
  for (int64_t d = 0; d < outerRank; ++d) {
    plan.outerDims.push_back(result.dim(d));
    plan.operand[0].outer.push_back(resultStrides[d].first);
    plan.operand[1].outer.push_back(resultStrides[d].second);
    plan.result.outer.push_back(ownStrides[d]);
  }
  if (rank >= 2) {
    plan.rows = result.dim(rank - 2);
    plan.operand[0].row = resultStrides[rank - 2].first;
    plan.operand[1].row = resultStrides[rank - 2].second;
    plan.result.row = ownStrides[rank - 2];
  }
  plan.columns = result.dim(rank - 1);
  plan.operand[0].column = resultStrides[rank - 1].first;
  plan.operand[1].column = resultStrides[rank - 1].second;
  plan.result.column = 1;
  coalesceRows(plan);
  for (size_t i = 0; i < numbers.lhsContractingDimensions.size(); ++i) {
    plan.contractingDims.push_back(lhs.dim(numbers.lhsContractingDimensions[i]));
    plan.operand[0].contracting.push_back(strides[0][numbers.lhsContractingDimensions[i]]);
    plan.operand[1].contracting.push_back(strides[1][numbers.rhsContractingDimensions[i]]);
  }
  return true;
}

} // namespace

bool isTiledDot(const hlo::Instruction &instruction, std::string *why, ContractionPlan *plan,
                const ResultPlacement *placement) {
  ContractionPlan own;
  return planDot(instruction, plan ? *plan : own, why, placement);
}

void FunctionEmitter::emitDot(const hlo::Instruction &instruction) {
  ContractionPlan plan;
  if (!planDot(instruction, plan, nullptr, nullptr)) {
    flushChain();
    return emitElementalLoop(instruction);
  }
  emitPlannedContraction(instruction, plan, *instruction.operand(0), *instruction.operand(1));
}

void FunctionEmitter::emitPlannedContraction(
    const hlo::Instruction &instruction, const ContractionPlan &plan, const hlo::Instruction &lhs,
    const hlo::Instruction &rhs, ContractionEpilogue epilogue, llvm::function_ref<void()> prelude) {
  const BufferSlice &out = assignment_.slice(&instruction);
  if (out.kind == BufferSlice::Kind::Empty)
    return;
  llvm::Triple triple(module_.getTargetTriple());
  ContractionPlan arithmeticPlan = plan;
  arithmeticPlan.fused = isFused(contraction_, plan.type);
  if (nativeHalfSums_ && plan.lhsType == hlo::PrimitiveType::F16 &&
      plan.rhsType == hlo::PrimitiveType::F16 && plan.resultType == hlo::PrimitiveType::F16) {
    arithmeticPlan.type = hlo::PrimitiveType::F16;
    arithmeticPlan.fused = true; // both targets have only fused f16 vector multiply-adds
  }
  if (nativeBf16Dots_ && plan.lhsType == hlo::PrimitiveType::BF16 &&
      plan.rhsType == hlo::PrimitiveType::BF16)
    arithmeticPlan.bf16Dots = true; // where the kernel's tiles fit (Bf16Dots.h)
  std::optional<ReadOnlyData> panels;
  const BufferSlice &rhsSlice = assignment_.slice(&rhs);
  if (hlo::isInteger(arithmeticPlan.type)) {
    // An integer kernel lays constant weights out for its own instructions.
    if (const hlo::Literal *values = rhs.constantValue())
      arithmeticPlan.rhsValues = values;
  } else if (rhsPanels_ && rhsSlice.kind == BufferSlice::Kind::Constant && rhsSlice.index == 0 &&
             rhsSlice.constant->shape().isArray()) {
    // Constant weights are read from panels laid out at compile time.
    if (std::optional<PanelledRhs> panelled = panelRhs(
            arithmeticPlan, triple, target_, rhsSlice.constant->attributes().literal->bytes())) {
      arithmeticPlan = std::move(panelled->plan);
      panels = readOnlyData(std::move(panelled->bytes), "panels." + rhs.name(), llvm::Align(64));
    }
  }
  // Its call may wait to run depth-first with the contractions around it.
  std::optional<ChainMember> member = chainMember(instruction, arithmeticPlan, lhs);
  if (!member || !joinsChain(*member))
    flushChain();
  if (prelude)
    prelude();
  RangedOp ranged = createRangedOp(
      instruction, contractionSplitExtent(arithmeticPlan, triple, target_), contractionWork(plan),
      [&](llvm::Value *begin, llvm::Value *end) {
        emitContraction(
            builder_, indexType_, arithmeticPlan, triple, target_, address(assignment_.slice(&lhs)),
            panels ? addressOf(*panels) : address(rhsSlice), address(out),
            [&](llvm::Type *type) { return createLocal(type, "sum"); }, begin, end, epilogue);
      });
  if (!member)
    return emitRangedOpRun(ranged);
  member->ranged = ranged;
  chain_.push_back(std::move(*member));
}

} // namespace mote::codegen
