//===- HalfSumStage.cpp - f32 sums handed to a half epilogue --------------===//

#include "codegen/HalfSumStage.h"

#include "codegen/ElementTypes.h"

namespace mote::codegen {

bool stagesHalfSumsFor(const ContractionPlan &plan, bool hardwareF16) {
  return plan.type == hlo::PrimitiveType::F32 &&
         (plan.resultType == hlo::PrimitiveType::BF16 ||
          (plan.resultType == hlo::PrimitiveType::F16 && !hardwareF16));
}

HalfSumStage halfSumStage(const ContractionPlan &plan, const ContractionTiling &tiling,
                          int64_t columnBlock, const llvm::Triple &triple) {
  const int64_t stageBytes = triple.isArch64Bit() ? 16 * 1024 : 1024;
  const int64_t tileColumns = tiling.tileColumns();
  const int64_t fits = stageBytes / (4 * int64_t(tiling.rows)) / tileColumns;
  HalfSumStage stage;
  stage.stripColumns = std::min(columnBlock, std::max<int64_t>(1, fits) * tileColumns);
  // The last strip, tail included, is never wider than the others.
  stage.width = std::min(stage.stripColumns, plan.columns);
  return stage;
}

llvm::Value *readStagedHalfSum(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                               llvm::Value *address) {
  return fromCompute(builder, type,
                     builder.CreateAlignedLoad(builder.getFloatTy(), address, llvm::Align(4)));
}

} // namespace mote::codegen
