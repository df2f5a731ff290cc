//===- ConvolutionPadding.cpp - Explicit padding for tiled convolutions ---===//
//
// Code generation tiles a convolution as a strided contraction when every
// window position it reads is an affine function of the output position,
// which positive padding and window reversal break. Both move into operands
// of their own: the input is padded with zeros by a `pad` (padding takes part
// in the sums as 0 * w, exactly what the padded values then contribute), and
// the kernel is reversed by a `reverse` (the same products in the same
// order). Negative padding stays: it only crops.
//
// An integer depthwise convolution's pad then joins its output fusion, and
// the kernel reads it in place (PaddedInputConvolution.h): no padded copy.
//
// Only convolutions the kernel can then tile are rewritten (ContractionTypes.h, no lhs
// dilation, no batch groups); lhs dilation is left alone because its holes do
// not take part in the sums.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/ContractionTypes.h"
#include "passes/Passes.h"

#include "hlo/Literal.h"

namespace mote::passes {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

bool isRewritable(const Instruction &convolution) {
  if (convolution.opcode() != Opcode::Convolution || convolution.operandCount() != 2)
    return false;
  const hlo::Shape &input = convolution.operand(0)->shape();
  const hlo::Shape &kernel = convolution.operand(1)->shape();
  if (!convolution.shape().isArray() || !input.isArray() || !kernel.isArray() ||
      !isTiledContractionType(convolution.shape().elementType(), input.elementType(),
                              kernel.elementType()))
    return false;
  const hlo::InstructionAttributes &attributes = convolution.attributes();
  const hlo::ConvolutionDimensionNumbers &numbers = attributes.convolutionDimensions;
  if (attributes.batchGroupCount != 1 ||
      attributes.window.size() != numbers.inputSpatialDimensions.size() ||
      numbers.kernelSpatialDimensions.size() != attributes.window.size())
    return false;
  bool needed = false;
  for (const hlo::WindowDimension &dim : attributes.window) {
    if (dim.baseDilation != 1)
      return false;
    needed |= dim.paddingLow > 0 || dim.paddingHigh > 0 || dim.windowReversal;
  }
  return needed;
}

/// `operand` padded with zeros by the positive part of the window's padding.
Instruction *padInput(hlo::Computation &computation, Instruction &convolution, NameTable &names) {
  Instruction *input = convolution.operand(0);
  const hlo::InstructionAttributes &attributes = convolution.attributes();
  const auto &spatial = attributes.convolutionDimensions.inputSpatialDimensions;
  std::vector<hlo::PaddingDimension> padding(input->shape().rank());
  llvm::SmallVector<int64_t, 4> dims(input->shape().dims().begin(), input->shape().dims().end());
  bool any = false;
  for (size_t d = 0; d < spatial.size(); ++d) {
    const hlo::WindowDimension &dim = attributes.window[d];
    hlo::PaddingDimension &pad = padding[spatial[d]];
    pad.low = std::max<int64_t>(dim.paddingLow, 0);
    pad.high = std::max<int64_t>(dim.paddingHigh, 0);
    dims[spatial[d]] += pad.low + pad.high;
    any |= pad.low || pad.high;
  }
  if (!any)
    return input;
  const PrimitiveType type = input->shape().elementType();
  hlo::Literal zeroValue(hlo::Shape::array(type, {}));
  zeroValue.setFromDouble(0, 0.0);
  auto zero = makeInstruction(Opcode::Constant, names.unique(convolution.name().str() + ".zero"),
                              hlo::Shape::array(type, {}), {});
  zero->mutableAttributes().literal = std::move(zeroValue);
  zero->setLocation(convolution.location());
  Instruction *zeroInstruction = computation.addInstruction(std::move(zero));
  auto pad = makeInstruction(Opcode::Pad, names.unique(convolution.name().str() + ".padded"),
                             hlo::Shape::array(type, dims), {input, zeroInstruction});
  pad->mutableAttributes().padding = std::move(padding);
  pad->setLocation(convolution.location());
  return computation.addInstruction(std::move(pad));
}

/// The kernel reversed along the spatial dimensions the window reverses.
Instruction *reverseKernel(hlo::Computation &computation, Instruction &convolution,
                           NameTable &names) {
  Instruction *kernel = convolution.operand(1);
  const hlo::InstructionAttributes &attributes = convolution.attributes();
  const auto &spatial = attributes.convolutionDimensions.kernelSpatialDimensions;
  hlo::DimVector reversed;
  for (size_t d = 0; d < spatial.size(); ++d)
    if (attributes.window[d].windowReversal)
      reversed.push_back(spatial[d]);
  if (reversed.empty())
    return kernel;
  llvm::sort(reversed);
  auto reverse =
      makeInstruction(Opcode::Reverse, names.unique(convolution.name().str() + ".reversed_kernel"),
                      kernel->shape(), {kernel});
  reverse->mutableAttributes().dimensions = std::move(reversed);
  reverse->mutableAttributes().hasDimensions = true;
  reverse->setLocation(convolution.location());
  return computation.addInstruction(std::move(reverse));
}

} // namespace

llvm::Expected<bool> ConvolutionPadding::run(hlo::Module &module) {
  NameTable names(module);
  bool changed = false;
  for (const auto &computation : module.computations()) {
    std::vector<Instruction *> convolutions;
    for (const auto &instruction : computation->instructions())
      if (isRewritable(*instruction))
        convolutions.push_back(instruction.get());
    for (Instruction *convolution : convolutions) {
      Instruction *input = padInput(*computation, *convolution, names);
      Instruction *kernel = reverseKernel(*computation, *convolution, names);
      convolution->setOperand(0, input);
      convolution->setOperand(1, kernel);
      for (hlo::WindowDimension &dim : convolution->mutableAttributes().window) {
        dim.paddingLow = std::min<int64_t>(dim.paddingLow, 0);
        dim.paddingHigh = std::min<int64_t>(dim.paddingHigh, 0);
        dim.windowReversal = false;
      }
    }
    if (!convolutions.empty()) {
      restoreDefinitionOrder(*computation);
      changed = true;
    }
  }
  return changed;
}

} // namespace mote::passes
