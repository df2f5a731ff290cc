//===- ConvolutionEmitter.cpp - Convolutions as strided contractions ------===//
//
// A convolution without positive padding or lhs dilation reads, for output
// position o and window position w, input position o * stride + w *
// dilation - crop: an affine function, so the whole convolution is a strided
// contraction (ContractionKernel.h) over
//   result directions  batch, output spatial..., group, output feature in
//                      the group;
//   contracting        window spatial... (row-major), then input feature in
//                      the group (innermost),
// which is exactly the order the reference evaluator sums products in.
// Positive padding is made explicit beforehand (passes::ConvolutionPadding)
// because padding takes part in the sum as 0 * w; lhs dilation is not, since
// dilation holes do not, and such convolutions stay elemental.
//
// Directions of size one are dropped. Columns run along the direction the
// result is contiguous in (the output feature for NHWC results, or the group
// for depthwise ones), rows along the next contiguous one; the rest are
// outer loops.
//
//===----------------------------------------------------------------------===//

#include "codegen/ContractionKernel.h"
#include "codegen/FunctionEmitter.h"
#include "passes/ContractionTypes.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {

/// One direction of the loop space: its extent and how far it moves in
/// lhs, rhs and result.
struct Direction {
  int64_t size = 1;
  int64_t lhs = 0, rhs = 0, result = 0;
};

bool planConvolution(const hlo::Instruction &instruction, ContractionPlan &plan, std::string *why,
                     const ResultPlacement *placement) {
  auto fail = [&](const char *message) {
    if (why)
      *why = message;
    return false;
  };
  if (instruction.opcode() != hlo::Opcode::Convolution || instruction.operandCount() != 2)
    return fail("not a convolution");
  const hlo::Shape &result = instruction.shape();
  const hlo::Shape &input = instruction.operand(0)->shape();
  const hlo::Shape &kernel = instruction.operand(1)->shape();
  if (!result.isArray() || !input.isArray() || !kernel.isArray())
    return fail("convolution of non-arrays");
  if (!passes::isTiledContractionType(result.elementType(), input.elementType(),
                                      kernel.elementType()))
    return fail("only convolutions of f16, bf16 and f32 (summed in f32), of f64 and of integers "
                "are tiled");
  if (!result.hasDefaultLayout() || !input.hasDefaultLayout() || !kernel.hasDefaultLayout())
    return fail("only row-major convolutions are tiled");
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Window &window = attributes.window;
  const size_t spatial = numbers.inputSpatialDimensions.size();
  if (attributes.batchGroupCount != 1)
    return fail("batch-grouped convolutions are not tiled");
  if (window.size() != spatial || numbers.kernelSpatialDimensions.size() != spatial ||
      numbers.outputSpatialDimensions.size() != spatial)
    return fail("malformed convolution window");
  for (const hlo::WindowDimension &dim : window)
    if (dim.paddingLow > 0 || dim.paddingHigh > 0 || dim.baseDilation != 1 || dim.windowReversal)
      return fail("padded, lhs-dilated or reversed convolutions are not tiled");

  const int64_t groups = attributes.featureGroupCount;
  const int64_t outputFeatures = result.dim(numbers.outputFeatureDimension);
  const int64_t groupInputFeatures = kernel.dim(numbers.kernelInputFeatureDimension);
  if (groups < 1 || outputFeatures % groups != 0 ||
      input.dim(numbers.inputFeatureDimension) != groups * groupInputFeatures)
    return fail("malformed feature groups");
  const int64_t groupOutputFeatures = outputFeatures / groups;

  llvm::SmallVector<int64_t, 4> in = rowMajorStrides(input.dims());
  llvm::SmallVector<int64_t, 4> k = rowMajorStrides(kernel.dims());
  llvm::SmallVector<int64_t, 4> out =
      placement ? placement->strides : rowMajorStrides(result.dims());
  if (out.size() != size_t(result.rank()))
    return fail("result placement of another rank");

  llvm::SmallVector<Direction, 6> directions;
  directions.push_back({result.dim(numbers.outputBatchDimension), in[numbers.inputBatchDimension],
                        0, out[numbers.outputBatchDimension]});
  for (size_t d = 0; d < spatial; ++d)
    directions.push_back({result.dim(numbers.outputSpatialDimensions[d]),
                          window[d].stride * in[numbers.inputSpatialDimensions[d]], 0,
                          out[numbers.outputSpatialDimensions[d]]});
  const int64_t inFeature = in[numbers.inputFeatureDimension];
  const int64_t kOut = k[numbers.kernelOutputFeatureDimension];
  const int64_t outFeature = out[numbers.outputFeatureDimension];
  directions.push_back({groups, groupInputFeatures * inFeature, groupOutputFeatures * kOut,
                        groupOutputFeatures * outFeature});
  directions.push_back({groupOutputFeatures, 0, kOut, outFeature});

  llvm::SmallVector<Direction, 4> contracting;
  for (size_t d = 0; d < spatial; ++d)
    contracting.push_back({window[d].size,
                           window[d].windowDilation * in[numbers.inputSpatialDimensions[d]],
                           k[numbers.kernelSpatialDimensions[d]], 0});
  contracting.push_back({groupInputFeatures, inFeature, k[numbers.kernelInputFeatureDimension], 0});

  plan = ContractionPlan();
  setContractionTypes(plan, result.elementType(), input.elementType(), kernel.elementType());
  plan.result.base = placement ? placement->base : 0;
  // Negative padding crops: the window starts that far into the input.
  for (size_t d = 0; d < spatial; ++d)
    plan.operand[0].base -= window[d].paddingLow * in[numbers.inputSpatialDimensions[d]];
  for (const Direction &direction : contracting)
    if (direction.size != 1) {
      plan.contractingDims.push_back(direction.size);
      plan.operand[0].contracting.push_back(direction.lhs);
      plan.operand[1].contracting.push_back(direction.rhs);
    }

  llvm::erase_if(directions, [](const Direction &direction) { return direction.size == 1; });
  if (directions.empty())
    directions.push_back({1, 0, 0, 1}); // a single result element
  // Most to least significant in the result: the last is contiguous.
  llvm::stable_sort(directions,
                    [](const Direction &a, const Direction &b) { return a.result > b.result; });
  if (directions.back().result != 1)
    return fail("the result has no contiguous direction");
  auto take = [&]() {
    Direction direction = directions.back();
    directions.pop_back();
    return direction;
  };
  Direction columns = take();
  plan.columns = columns.size;
  plan.operand[0].column = columns.lhs;
  plan.operand[1].column = columns.rhs;
  plan.result.column = 1;
  if (!directions.empty()) {
    Direction rows = take();
    plan.rows = rows.size;
    plan.operand[0].row = rows.lhs;
    plan.operand[1].row = rows.rhs;
    plan.result.row = rows.result;
  }
  for (const Direction &direction : directions) {
    plan.outerDims.push_back(direction.size);
    plan.operand[0].outer.push_back(direction.lhs);
    plan.operand[1].outer.push_back(direction.rhs);
    plan.result.outer.push_back(direction.result);
  }
  coalesceRows(plan);
  return true;
}

} // namespace

bool isTiledConvolution(const hlo::Instruction &instruction, std::string *why,
                        ContractionPlan *plan, const ResultPlacement *placement) {
  ContractionPlan own;
  return planConvolution(instruction, plan ? *plan : own, why, placement);
}

void FunctionEmitter::emitConvolution(const hlo::Instruction &instruction) {
  ContractionPlan plan;
  if (!planConvolution(instruction, plan, nullptr, nullptr)) {
    flushChain();
    return emitElementalLoop(instruction);
  }
  emitPlannedContraction(instruction, plan, *instruction.operand(0), *instruction.operand(1));
}

} // namespace mote::codegen
