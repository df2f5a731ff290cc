//===- Bf16Dots.cpp - bf16 sums two contracting steps a bfdot -------------===//

#include "codegen/Bf16Dots.h"

#include "llvm/IR/IntrinsicsAArch64.h"

namespace mote::codegen {

bool bf16DotsFit(const ContractionPlan &plan, const ContractionTiling &tiling) {
  const OperandStrides &lhs = plan.operand[0], &rhs = plan.operand[1];
  auto pairsFit = [](const TileWidths &widths) {
    return llvm::all_of(widths, [](unsigned width) { return width <= 4; });
  };
  return plan.bf16Dots && plan.type == hlo::PrimitiveType::F32 &&
         plan.lhsType == hlo::PrimitiveType::BF16 && plan.rhsType == hlo::PrimitiveType::BF16 &&
         !plan.contractingDims.empty() && !lhs.contracting.empty() && lhs.contracting.back() == 1 &&
         lhs.column == 0 && rhs.row == 0 && rhs.column == 1 && pairsFit(tiling.widths) &&
         llvm::all_of(tiling.tail, pairsFit);
}

llvm::Value *loadBf16PairSplat(llvm::IRBuilderBase &builder, llvm::Value *address, unsigned lanes) {
  llvm::Value *pair = builder.CreateAlignedLoad(builder.getInt32Ty(), address, llvm::Align(2));
  return builder.CreateBitCast(builder.CreateVectorSplat(lanes, pair),
                               llvm::FixedVectorType::get(builder.getBFloatTy(), 2 * lanes));
}

llvm::SmallVector<llvm::Value *, 2> loadBf16RowPairs(llvm::IRBuilderBase &builder,
                                                     llvm::Value *rowK, llvm::Value *rowNext,
                                                     unsigned lanes, unsigned vectorLanes) {
  llvm::Type *row = llvm::FixedVectorType::get(builder.getInt16Ty(), lanes);
  llvm::Value *k = builder.CreateAlignedLoad(row, rowK, llvm::Align(2));
  llvm::Value *next = builder.CreateAlignedLoad(row, rowNext, llvm::Align(2));
  llvm::SmallVector<llvm::Value *, 2> vectors;
  for (unsigned first = 0; first < lanes; first += vectorLanes) {
    llvm::SmallVector<int, 8> interleaved;
    for (unsigned lane = first; lane < first + vectorLanes; ++lane)
      interleaved.append({int(lane), int(lanes + lane)});
    vectors.push_back(
        builder.CreateBitCast(builder.CreateShuffleVector(k, next, interleaved),
                              llvm::FixedVectorType::get(builder.getBFloatTy(), 2 * vectorLanes)));
  }
  return vectors;
}

llvm::Value *emitBf16Dot(llvm::IRBuilderBase &builder, llvm::Value *sum, llvm::Value *x,
                         llvm::Value *y) {
  return builder.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_bfdot,
                                 {sum->getType(), x->getType()}, {sum, x, y});
}

} // namespace mote::codegen
