//===- PaddedInputConvolution.cpp - Convolutions that pad as they read ----===//

#include "passes/PaddedInputConvolution.h"
#include "passes/ContractionTypes.h"

#include <algorithm>

namespace mote::passes {

namespace {

int64_t floorDivide(int64_t x, int64_t y) { return x / y - ((x % y != 0) && ((x < 0) != (y < 0))); }

int64_t ceilDivide(int64_t x, int64_t y) { return -floorDivide(-x, y); }

} // namespace

std::vector<WindowRun> windowRuns(int64_t inputSize, int64_t outputSize, int64_t windowSize,
                                  int64_t stride, int64_t dilation, int64_t low) {
  std::vector<WindowRun> runs;
  for (int64_t o = 0; o < outputSize; ++o) {
    // Taps t with 0 <= o * stride + t * dilation - low < inputSize.
    const int64_t first = o * stride - low;
    const int64_t begin = std::max<int64_t>(0, ceilDivide(-first, dilation));
    const int64_t end =
        std::min<int64_t>(windowSize, floorDivide(inputSize - 1 - first, dilation) + 1);
    if (end <= begin)
      return {};
    if (!runs.empty() && runs.back().tapBegin == begin && runs.back().tapEnd == end)
      runs.back().outEnd = o + 1;
    else
      runs.push_back({o, o + 1, begin, end});
  }
  return runs;
}

bool readsPaddedInputInPlace(const hlo::Instruction &convolution, const hlo::Instruction &pad,
                             const hlo::Literal *padValue, const hlo::Literal *weights) {
  if (convolution.opcode() != hlo::Opcode::Convolution || convolution.operandCount() != 2 ||
      convolution.operand(0) != &pad || pad.opcode() != hlo::Opcode::Pad)
    return false;
  const hlo::Shape &result = convolution.shape();
  const hlo::Shape &input = pad.operand(0)->shape();
  const hlo::Shape &kernel = convolution.operand(1)->shape();
  if (!result.isArray() || !input.isArray() || !kernel.isArray() || !pad.shape().isArray() ||
      !isIntegerContractionType(result.elementType(), input.elementType(), kernel.elementType()) ||
      !result.hasDefaultLayout() || !input.hasDefaultLayout() || !kernel.hasDefaultLayout() ||
      !pad.shape().hasDefaultLayout())
    return false;
  if (!padValue || padValue->elementCount() != 1)
    return false;
  if (padValue->getAsInt64(0) != 0 &&
      (!weights || weights->elementCount() != kernel.elementCount()))
    return false;
  const hlo::InstructionAttributes &attributes = convolution.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Window &window = attributes.window;
  const size_t spatial = numbers.inputSpatialDimensions.size();
  if (attributes.batchGroupCount != 1 || window.size() != spatial ||
      numbers.kernelSpatialDimensions.size() != spatial ||
      numbers.outputSpatialDimensions.size() != spatial)
    return false;
  for (const hlo::WindowDimension &dim : window)
    if (dim.paddingLow != 0 || dim.paddingHigh != 0 || dim.baseDilation != 1 ||
        dim.windowReversal || dim.stride < 1 || dim.windowDilation < 1)
      return false;
  // Depthwise only: the skipped taps' sums are per output feature, the
  // kernel's columns; and the kernel reads depthwise weights as they are,
  // where a dense convolution's are laid out again for each box (flash:
  // DS-CNN's first layer would take 18 copies).
  const int64_t groups = attributes.featureGroupCount;
  if (numbers.outputFeatureDimension != result.rank() - 1 || groups < 2 ||
      result.dim(numbers.outputFeatureDimension) != groups ||
      kernel.dim(numbers.kernelInputFeatureDimension) != 1)
    return false;
  const std::vector<hlo::PaddingDimension> &padding = pad.attributes().padding;
  if (padding.size() != size_t(input.rank()))
    return false;
  bool padded = false;
  for (auto [d, dim] : llvm::enumerate(padding)) {
    if (dim.low < 0 || dim.high < 0 || dim.interior != 0)
      return false;
    const bool isSpatial = llvm::is_contained(numbers.inputSpatialDimensions, int64_t(d));
    if (!isSpatial && (dim.low || dim.high))
      return false;
    padded |= dim.low || dim.high;
  }
  int64_t boxes = 1;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t inputDim = numbers.inputSpatialDimensions[d];
    std::vector<WindowRun> runs = windowRuns(
        input.dim(inputDim), result.dim(numbers.outputSpatialDimensions[d]), window[d].size,
        window[d].stride, window[d].windowDilation, padding[size_t(inputDim)].low);
    boxes *= int64_t(runs.size());
    if (runs.empty() || boxes > kMaxPaddedInputBoxes)
      return false;
  }
  return padded;
}

std::vector<int64_t> skippedTaps(const hlo::Instruction &convolution,
                                 llvm::ArrayRef<WindowRun> box) {
  const hlo::ConvolutionDimensionNumbers &numbers = convolution.attributes().convolutionDimensions;
  const hlo::Shape &kernel = convolution.operand(1)->shape();
  llvm::SmallVector<int64_t, 6> strides(size_t(kernel.rank()), 1);
  for (size_t d = strides.size(); d-- > 1;)
    strides[d - 1] = strides[d] * kernel.dim(int64_t(d));
  const size_t spatial = numbers.kernelSpatialDimensions.size();
  llvm::SmallVector<int64_t, 4> tap(spatial, 0);
  std::vector<int64_t> offsets;
  for (;;) {
    bool inside = true;
    int64_t offset = 0;
    for (size_t d = 0; d < spatial; ++d) {
      inside &= d < box.size() && tap[d] >= box[d].tapBegin && tap[d] < box[d].tapEnd;
      offset += tap[d] * strides[size_t(numbers.kernelSpatialDimensions[d])];
    }
    if (!inside)
      offsets.push_back(offset);
    size_t d = spatial; // the next tap, row-major
    while (d > 0 && ++tap[d - 1] == kernel.dim(numbers.kernelSpatialDimensions[d - 1]))
      tap[--d] = 0;
    if (d == 0)
      return offsets;
  }
}

std::vector<int64_t> skippedTapSums(const hlo::Instruction &convolution,
                                    const hlo::Literal &weights, int64_t padValue,
                                    llvm::ArrayRef<WindowRun> box) {
  const hlo::ConvolutionDimensionNumbers &numbers = convolution.attributes().convolutionDimensions;
  const int64_t feature = numbers.kernelOutputFeatureDimension;
  const hlo::Shape &kernel = weights.shape();
  int64_t featureStride = 1;
  for (int64_t d = feature + 1; d < kernel.rank(); ++d)
    featureStride *= kernel.dim(d);
  std::vector<int64_t> sums(size_t(kernel.dim(feature)), 0);
  if (padValue == 0)
    return sums;
  const std::vector<int64_t> taps = skippedTaps(convolution, box);
  for (auto [f, sum] : llvm::enumerate(sums)) {
    for (int64_t tap : taps)
      sum += weights.getAsInt64(tap + int64_t(f) * featureStride);
    sum = int32_t(uint32_t(uint64_t(sum) * uint64_t(padValue)));
  }
  return sums;
}

} // namespace mote::passes
