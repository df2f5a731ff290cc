//===- Convolution.cpp - convolution as patches times a kernel matrix -----===//
//
// For each group and block of output positions, the input values under the
// window are gathered into a patch matrix (one row per output position, one
// column per (window position, input feature) pair, zero where the window
// covers padding) and multiplied by the kernel seen as a [window x input
// feature, output feature] matrix. So each output element sums its products
// over the window positions in row-major order, input features innermost,
// starting from zero; padding contributes 0 * w. Window positions that fall
// into the holes of lhs dilation are left out altogether (outputs are
// grouped by the phase at which their windows meet the dilated input), so a
// transposed convolution costs what its real products cost.
//
// Groups follow StableHLO's definition: feature_group_count splits the input
// features and the output features into that many consecutive groups,
// batch_group_count splits the input batch and the output features; group g
// of the output only sees group g of the input.
//
//===----------------------------------------------------------------------===//

#include "eval/MatrixMultiply.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/WindowIndex.h"
#include "eval/WorkArrays.h"

#include "hlo/Diagnostics.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

struct ConvolutionGeometry {
  int64_t batch = 0;         ///< input batch
  int64_t inputFeatures = 0; ///< input features
  int64_t outputBatch = 0;
  int64_t outputFeatures = 0;
  int64_t groups = 1; ///< feature or batch groups (one of them is 1)
  bool batchGroups = false;
  int64_t groupInputFeatures = 0;  ///< kernel input features
  int64_t groupOutputFeatures = 0; ///< output features per group
  Index inputSpatial, outputSpatial, windowSize;
  hlo::Window window;
  /// Per spatial dimension, [output index][window index] -> input index, or
  /// -1 where the window covers padding or a dilation hole.
  std::vector<std::vector<int64_t>> inputIndex;

  int64_t product(llvm::ArrayRef<int64_t> dims) const {
    int64_t size = 1;
    for (int64_t d : dims)
      size *= d;
    return size;
  }
};

llvm::Error checkDistinct(const hlo::Instruction &instruction, llvm::ArrayRef<int64_t> dims,
                          int64_t rank, llvm::StringRef operand) {
  llvm::SmallVector<bool, 8> used(rank, false);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank || used[dim])
      return errorAt(instruction,
                     "dim_labels of the " + operand + " do not name each dimension once");
    used[dim] = true;
  }
  return llvm::Error::success();
}

llvm::Expected<ConvolutionGeometry> analyse(const hlo::Instruction &instruction,
                                            const Literal &input, const Literal &kernel,
                                            Index &resultDims) {
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  const hlo::Shape &in = input.shape();
  const hlo::Shape &k = kernel.shape();
  const int64_t spatial = static_cast<int64_t>(numbers.inputSpatialDimensions.size());
  const int64_t rank = spatial + 2;
  if (in.rank() != rank || k.rank() != rank || instruction.shape().rank() != rank ||
      numbers.kernelSpatialDimensions.size() != size_t(spatial) ||
      numbers.outputSpatialDimensions.size() != size_t(spatial))
    return errorAt(instruction, "convolution operands and result must have rank " +
                                    llvm::Twine(rank) + " to match dim_labels");
  if (attributes.window.size() != size_t(spatial))
    return errorAt(instruction, "convolution window has " + llvm::Twine(attributes.window.size()) +
                                    " dimensions, expected " + llvm::Twine(spatial));
  auto all = [](int64_t a, int64_t b, llvm::ArrayRef<int64_t> rest) {
    Index dims{a, b};
    dims.append(rest.begin(), rest.end());
    return dims;
  };
  if (llvm::Error error =
          checkDistinct(instruction,
                        all(numbers.inputBatchDimension, numbers.inputFeatureDimension,
                            numbers.inputSpatialDimensions),
                        rank, "input"))
    return std::move(error);
  if (llvm::Error error =
          checkDistinct(instruction,
                        all(numbers.kernelInputFeatureDimension,
                            numbers.kernelOutputFeatureDimension, numbers.kernelSpatialDimensions),
                        rank, "kernel"))
    return std::move(error);
  if (llvm::Error error =
          checkDistinct(instruction,
                        all(numbers.outputBatchDimension, numbers.outputFeatureDimension,
                            numbers.outputSpatialDimensions),
                        rank, "output"))
    return std::move(error);

  ConvolutionGeometry g;
  g.batch = in.dim(numbers.inputBatchDimension);
  g.inputFeatures = in.dim(numbers.inputFeatureDimension);
  g.groupInputFeatures = k.dim(numbers.kernelInputFeatureDimension);
  g.outputFeatures = k.dim(numbers.kernelOutputFeatureDimension);
  const int64_t featureGroups = attributes.featureGroupCount;
  const int64_t batchGroups = attributes.batchGroupCount;
  if (featureGroups < 1 || batchGroups < 1 || (featureGroups > 1 && batchGroups > 1))
    return errorAt(instruction, "feature_group_count and batch_group_count must be >= 1 and "
                                "not both above 1");
  g.batchGroups = batchGroups > 1;
  g.window = attributes.window;
  g.groups = std::max(featureGroups, batchGroups);
  if (g.inputFeatures != g.groupInputFeatures * featureGroups)
    return errorAt(instruction, "input features (" + llvm::Twine(g.inputFeatures) +
                                    ") must be the kernel input features times "
                                    "feature_group_count");
  if (g.batch % batchGroups != 0 || g.outputFeatures % g.groups != 0)
    return errorAt(instruction, "batch and output features must divide into the groups");
  g.outputBatch = g.batch / batchGroups;
  g.groupOutputFeatures = g.outputFeatures / g.groups;

  resultDims.assign(rank, 0);
  resultDims[numbers.outputBatchDimension] = g.outputBatch;
  resultDims[numbers.outputFeatureDimension] = g.outputFeatures;
  for (int64_t d = 0; d < spatial; ++d) {
    const hlo::WindowDimension &w = attributes.window[d];
    const int64_t inputSize = in.dim(numbers.inputSpatialDimensions[d]);
    const int64_t windowSize = k.dim(numbers.kernelSpatialDimensions[d]);
    if (w.size != windowSize)
      return errorAt(instruction, "window size " + llvm::Twine(w.size) +
                                      " does not match the kernel's " + llvm::Twine(windowSize));
    if (!isValidWindowDimension(w))
      return errorAt(instruction, "window strides and dilations must be positive");
    const int64_t outputSize = windowedOutputSize(inputSize, w);
    resultDims[numbers.outputSpatialDimensions[d]] = outputSize;
    g.inputSpatial.push_back(inputSize);
    g.outputSpatial.push_back(outputSize);
    g.windowSize.push_back(windowSize);
    std::vector<int64_t> table = windowInputTable(inputSize, outputSize, w);
    g.inputIndex.push_back(std::move(table));
  }
  return g;
}

/// Where element (batch, spatial position, feature) of the packed input is.
struct InputLayout {
  int64_t batchStride, positionStride, featureStride;
};

/// Outputs whose windows meet a base-dilated input at the same phase: along
/// each spatial dimension, one residue class of output indices and the window
/// indices that land on input elements (not on dilation holes) for all of
/// them. Without base dilation there is one class holding everything.
struct PhaseClass {
  std::vector<Index> outputs, windows; ///< per spatial dimension

  static int64_t product(const std::vector<Index> &lists) {
    int64_t size = 1;
    for (const Index &list : lists)
      size *= static_cast<int64_t>(list.size());
    return size;
  }
};

std::vector<PhaseClass> phaseClasses(const ConvolutionGeometry &g) {
  const size_t spatial = g.windowSize.size();
  // Per dimension, the classes of that dimension alone.
  std::vector<std::vector<std::pair<Index, Index>>> perDimension(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    const hlo::WindowDimension &w = g.window[d];
    const int64_t period = w.baseDilation / std::gcd(w.stride, w.baseDilation);
    for (int64_t r = 0; r < std::min(period, g.outputSpatial[d]); ++r) {
      Index outputs, windows;
      for (int64_t o = r; o < g.outputSpatial[d]; o += period)
        outputs.push_back(o);
      for (int64_t i = 0; i < g.windowSize[d]; ++i) {
        int64_t position = r * w.stride + i * w.windowDilation - w.paddingLow;
        if (((position % w.baseDilation) + w.baseDilation) % w.baseDilation == 0)
          windows.push_back(i);
      }
      if (!windows.empty())
        perDimension[d].emplace_back(std::move(outputs), std::move(windows));
    }
  }
  std::vector<PhaseClass> classes;
  Index counts;
  for (const auto &list : perDimension)
    counts.push_back(static_cast<int64_t>(list.size()));
  forEachIndex(counts, [&](llvm::ArrayRef<int64_t> choice) {
    PhaseClass phase;
    for (size_t d = 0; d < spatial; ++d) {
      phase.outputs.push_back(perDimension[d][choice[d]].first);
      phase.windows.push_back(perDimension[d][choice[d]].second);
    }
    classes.push_back(std::move(phase));
  });
  return classes;
}

/// Builds patch rows [firstRow, firstRow + rows) of `phase` for `group`. Row
/// r, column (w * groupInputFeatures + f) is stored at patch[r * rowStride +
/// column * columnStride]; target[r] receives the row's output position.
/// Rows are (batch, output position) in row-major order; they are walked one
/// window position at a time, in runs along the last spatial dimension, so
/// the inner loop is a plain strided gather even for depthwise convolutions.
template <typename Acc>
void gatherPatches(const ConvolutionGeometry &g, const PhaseClass &phase, const Acc *input,
                   InputLayout layout, int64_t group, int64_t firstRow, int64_t rows, Acc *patch,
                   int64_t rowStride, int64_t columnStride, int64_t *target) {
  const int64_t spatial = static_cast<int64_t>(g.windowSize.size());
  const int64_t features = g.groupInputFeatures;
  const Acc *groupInput = input + (g.batchGroups ? group * g.outputBatch : 0) * layout.batchStride +
                          (g.batchGroups ? 0 : group * features) * layout.featureStride;
  // Row space: batch, then this class's output indices per spatial dimension.
  Index rowDims{g.outputBatch}, windowCounts;
  for (int64_t d = 0; d < spatial; ++d) {
    rowDims.push_back(static_cast<int64_t>(phase.outputs[d].size()));
    windowCounts.push_back(static_cast<int64_t>(phase.windows[d].size()));
  }
  auto rowIndex = [&](int64_t row) {
    Index index(rowDims.size());
    for (int64_t d = static_cast<int64_t>(rowDims.size()) - 1; d >= 0; --d) {
      index[d] = row % rowDims[d];
      row /= rowDims[d];
    }
    return index;
  };
  {
    const int64_t positions = g.product(g.outputSpatial);
    Index index = rowIndex(firstRow);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t position = 0;
      for (int64_t d = 0; d < spatial; ++d)
        position = position * g.outputSpatial[d] + phase.outputs[d][index[d + 1]];
      target[r] = index[0] * positions + position;
      nextIndex(index, rowDims);
    }
  }
  if (!patch)
    return; // an empty window or no input features: the patch has no columns
  // offsets[d][k * outputs + j]: input offset of window choice k for output
  // choice j along dimension d, or -1 for padding.
  const Index inputStrides = rowMajorStrides(g.inputSpatial);
  std::vector<std::vector<int64_t>> offsets(spatial);
  for (int64_t d = 0; d < spatial; ++d)
    for (int64_t window : phase.windows[d])
      for (int64_t output : phase.outputs[d]) {
        int64_t index = g.inputIndex[d][output * g.windowSize[d] + window];
        offsets[d].push_back(index < 0 ? -1 : index * inputStrides[d] * layout.positionStride);
      }

  const int64_t last = static_cast<int64_t>(rowDims.size()) - 1;
  Acc *column = patch;
  forEachIndex(windowCounts, [&](llvm::ArrayRef<int64_t> window) {
    Index index = rowIndex(firstRow);
    for (int64_t r = 0; r < rows;) {
      // A run of rows along the last row dimension.
      const int64_t run = std::min(rows - r, rowDims[last] - index[last]);
      if (run <= 0)
        break;
      int64_t offset = 0;
      bool inside = true;
      for (int64_t d = 0; d + 1 < spatial; ++d) {
        int64_t o = offsets[d][window[d] * rowDims[d + 1] + index[d + 1]];
        inside = inside && o >= 0;
        offset += o;
      }
      Acc *out = column + r * rowStride;
      if (spatial == 0) {
        for (int64_t t = 0; t < run; ++t)
          for (int64_t f = 0; f < features; ++f)
            out[t * rowStride + f * columnStride] =
                groupInput[(index[0] + t) * layout.batchStride + f * layout.featureStride];
      } else {
        const Acc *from = groupInput + index[0] * layout.batchStride + offset;
        const int64_t *lastOffsets =
            offsets[spatial - 1].data() + window[spatial - 1] * rowDims[last] + index[last];
        if (!inside) {
          for (int64_t t = 0; t < run; ++t)
            for (int64_t f = 0; f < features; ++f)
              out[t * rowStride + f * columnStride] = Acc(0);
        } else if (features == 1) { // depthwise: one gather per row
          for (int64_t t = 0; t < run; ++t)
            out[t * rowStride] = lastOffsets[t] >= 0 ? from[lastOffsets[t]] : Acc(0);
        } else {
          for (int64_t t = 0; t < run; ++t) {
            const int64_t o = lastOffsets[t];
            for (int64_t f = 0; f < features; ++f)
              out[t * rowStride + f * columnStride] =
                  o >= 0 ? from[o + f * layout.featureStride] : Acc(0);
          }
        }
      }
      r += run;
      index[last] += run - 1;
      nextIndex(index, rowDims);
    }
    column += features * columnStride;
  });
}

template <typename Acc>
void convolve(const ConvolutionGeometry &g, const hlo::ConvolutionDimensionNumbers &numbers,
              llvm::ArrayRef<bool> reversed, const Literal &inputLiteral,
              const Literal &kernelLiteral, Literal &result, ContractionArithmetic arithmetic) {
  const int64_t spatial = static_cast<int64_t>(g.windowSize.size());
  const int64_t positions = g.product(g.outputSpatial);
  const int64_t rows = g.outputBatch * positions;
  const int64_t features = g.groupInputFeatures;
  const int64_t windowPositions = g.product(g.windowSize);
  const int64_t groupOutputs = g.groupOutputFeatures;
  const int64_t outputFeatures = g.outputFeatures;
  const int64_t inputPositions = g.product(g.inputSpatial);

  // With few input features per group (depthwise) keep each feature's plane
  // contiguous, so a group's gathers stay local; otherwise keep the features
  // of one position together and copy them as a run.
  const bool featureMajor = features < 8;
  Index inputOrder;
  if (featureMajor)
    inputOrder.push_back(numbers.inputFeatureDimension);
  inputOrder.push_back(numbers.inputBatchDimension);
  inputOrder.append(numbers.inputSpatialDimensions.begin(), numbers.inputSpatialDimensions.end());
  if (!featureMajor)
    inputOrder.push_back(numbers.inputFeatureDimension);
  std::vector<Acc> inputStorage;
  const Acc *input = packedView(inputLiteral, inputOrder, inputStorage);
  const InputLayout layout =
      featureMajor ? InputLayout{inputPositions, 1, g.batch * inputPositions}
                   : InputLayout{inputPositions * g.inputFeatures, g.inputFeatures, 1};

  // Narrow groups (depthwise) run transposed so output positions are the
  // vector dimension: output[feature][row] = kernel^T * patches^T. The kernel
  // is [out feature][window][in feature] then, else [window][in feature][out
  // feature]; the output [feature][row], else [row][feature].
  const bool transposed = groupOutputs < multiplyVectorColumns<Acc>();
  std::vector<Acc> output(static_cast<size_t>(result.elementCount()), Acc(0));
  Index kernelOrder;
  if (transposed)
    kernelOrder.push_back(numbers.kernelOutputFeatureDimension);
  kernelOrder.append(numbers.kernelSpatialDimensions.begin(),
                     numbers.kernelSpatialDimensions.end());
  kernelOrder.push_back(numbers.kernelInputFeatureDimension);
  if (!transposed)
    kernelOrder.push_back(numbers.kernelOutputFeatureDimension);
  llvm::SmallVector<bool, 6> kernelReversed(kernelLiteral.shape().rank(), false);
  for (int64_t d = 0; d < spatial; ++d)
    kernelReversed[numbers.kernelSpatialDimensions[d]] = reversed[d];
  std::vector<Acc> kernelStorage;
  const Acc *kernel = packedView(kernelLiteral, kernelOrder, kernelStorage, kernelReversed);

  const int64_t vector = multiplyVectorColumns<Acc>();
  std::vector<Acc> classKernel, patch, product;
  std::vector<int64_t> targets;
  for (const PhaseClass &phase : phaseClasses(g)) {
    const int64_t classRows = g.outputBatch * PhaseClass::product(phase.outputs);
    const int64_t classWindows = PhaseClass::product(phase.windows);
    const int64_t depth = classWindows * features; // patch columns
    if (classRows == 0)
      continue;
    // The kernel rows (or columns) of this class's window positions.
    const Acc *classKernelData = kernel;
    if (classWindows != windowPositions) {
      Index windowCounts;
      for (const Index &list : phase.windows)
        windowCounts.push_back(static_cast<int64_t>(list.size()));
      const Index windowStrides = rowMajorStrides(g.windowSize);
      classKernel.resize(static_cast<size_t>(depth * outputFeatures));
      int64_t column = 0;
      forEachIndex(windowCounts, [&](llvm::ArrayRef<int64_t> choice) {
        int64_t window = 0;
        for (int64_t d = 0; d < spatial; ++d)
          window += phase.windows[d][choice[d]] * windowStrides[d];
        for (int64_t f = 0; f < features; ++f, ++column) {
          const int64_t from = window * features + f;
          if (transposed)
            for (int64_t o = 0; o < outputFeatures; ++o)
              classKernel[o * depth + column] = kernel[o * windowPositions * features + from];
          else
            std::copy_n(kernel + from * outputFeatures, outputFeatures,
                        classKernel.data() + column * outputFeatures);
        }
      });
      classKernelData = classKernel.data();
    }

    // Blocks of rows whose patches take about 4 MiB.
    int64_t block =
        std::clamp<int64_t>((int64_t(1) << 20) / std::max<int64_t>(depth, 1), vector, 4096);
    block = std::min(block / vector * vector, classRows);
    patch.resize(static_cast<size_t>(block * depth));
    product.resize(static_cast<size_t>(block * groupOutputs));
    targets.resize(static_cast<size_t>(block));
    for (int64_t group = 0; group < g.groups; ++group) {
      for (int64_t first = 0; first < classRows; first += block) {
        const int64_t count = std::min(block, classRows - first);
        std::fill(product.begin(), product.end(), Acc(0));
        if (transposed) {
          // patch [depth][count] * kernel rows -> product [feature][count].
          gatherPatches(g, phase, input, layout, group, first, count, patch.data(), 1, count,
                        targets.data());
          multiplyAccumulate(arithmetic, groupOutputs, count, depth,
                             classKernelData + group * groupOutputs * depth, depth, patch.data(),
                             count, product.data(), count);
          for (int64_t f = 0; f < groupOutputs; ++f)
            for (int64_t r = 0; r < count; ++r)
              output[(group * groupOutputs + f) * rows + targets[r]] = product[f * count + r];
        } else {
          // patch [count][depth] * kernel columns -> product [count][feature].
          gatherPatches(g, phase, input, layout, group, first, count, patch.data(), depth, 1,
                        targets.data());
          multiplyAccumulate(arithmetic, count, groupOutputs, depth, patch.data(), depth,
                             classKernelData + group * groupOutputs, outputFeatures, product.data(),
                             groupOutputs);
          for (int64_t r = 0; r < count; ++r)
            std::copy_n(product.data() + r * groupOutputs, groupOutputs,
                        output.data() + targets[r] * outputFeatures + group * groupOutputs);
        }
      }
    }
  }

  Index outputOrder;
  if (transposed)
    outputOrder.push_back(numbers.outputFeatureDimension);
  outputOrder.push_back(numbers.outputBatchDimension);
  outputOrder.append(numbers.outputSpatialDimensions.begin(),
                     numbers.outputSpatialDimensions.end());
  if (!transposed)
    outputOrder.push_back(numbers.outputFeatureDimension);
  unpackPermuted(output.data(), outputOrder, result);
}

} // namespace

Result evaluateConvolution(const hlo::Instruction &instruction, Operands operands,
                           ContractionArithmetic arithmetic) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const Literal &input = *operands[0];
  const Literal &kernel = *operands[1];
  Index resultDims;
  auto geometry = analyse(instruction, input, kernel, resultDims);
  if (!geometry)
    return geometry.takeError();
  hlo::PrimitiveType type = instruction.shape().elementType();
  for (hlo::PrimitiveType t : {input.shape().elementType(), kernel.shape().elementType(), type})
    if (!hlo::visitElementType(
            t, [](auto) { return true; }, [] { return false; }))
      return unsupportedElementType(instruction, t);
  auto result = makeArrayResult(instruction, type, resultDims);
  if (!result)
    return result.takeError();
  llvm::SmallVector<bool, 4> reversed;
  for (const hlo::WindowDimension &w : instruction.attributes().window)
    reversed.push_back(w.windowReversal);
  visitAccumulator(type, input.shape().elementType(), kernel.shape().elementType(), [&](auto zero) {
    convolve<decltype(zero)>(*geometry, instruction.attributes().convolutionDimensions, reversed,
                             input, kernel, *result, arithmetic);
  });
  wrapSubByteIntegers(*result);
  return result;
}

} // namespace mote::eval
