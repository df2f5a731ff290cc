//===- PaddedInputConvolution.h - Convolutions that pad as they read -*- C++ -*-===//
///
/// \file
/// A convolution whose input is an edge `pad` of a scalar constant, fused
/// into the convolution's output fusion, reads the pad in place: the padded
/// array never exists. A quantized layer pads with its input's zero point,
/// so these pads hold as much memory as the activations between layers
/// (27 x 7 x 64 bytes before a DS-CNN depthwise layer of 25 x 5 x 64).
///
/// The model. Along one spatial dimension, output position o reads window
/// taps t at input position o * stride + t * dilation - low; the taps that
/// land inside the unpadded input form one run [begin, end) of the window,
/// the same for a run of consecutive outputs (all of them in the interior;
/// one or a few at each edge). The product of one run per spatial dimension
/// is a box of outputs whose taps are a box of the window, both affine: the
/// tiled kernel computes it as an unpadded strided contraction with a
/// smaller window, no bounds checks. The taps a box skips read the pad
/// value v, and add v times the sum of their weights to each output of an
/// output feature: a constant per column, which the kernel's sums start
/// from (with the layer's bias). The sums are exact integers, so every box
/// gives the evaluator's bits.
///
/// Code generation and fusion share this header so that fusion only hands
/// a pad to a convolution whose kernel takes it.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_PADDEDINPUTCONVOLUTION_H
#define MOTE_PASSES_PADDEDINPUTCONVOLUTION_H

#include "hlo/Instruction.h"
#include "hlo/Literal.h"

#include <cstdint>
#include <vector>

namespace mote::passes {

/// Outputs [outBegin, outEnd) of one spatial dimension, all reading the
/// taps [tapBegin, tapEnd) of the window inside the unpadded input.
struct WindowRun {
  int64_t outBegin = 0, outEnd = 0;
  int64_t tapBegin = 0, tapEnd = 0;
};

/// The runs of one spatial dimension, in output order; empty when some
/// output reads only padding (its box would have no taps).
std::vector<WindowRun> windowRuns(int64_t inputSize, int64_t outputSize, int64_t windowSize,
                                  int64_t stride, int64_t dilation, int64_t low);

/// Boxes a padded-input convolution is computed in at most: each is a loop
/// nest of its own in the code.
constexpr int64_t kMaxPaddedInputBoxes = 64;

/// Whether `convolution` (integer, depthwise with one output feature per
/// group, row-major, unpadded window, output features along the result's
/// minor dimension) can read its operand 0, `pad`, an edge pad along
/// spatial dimensions only, in place. `padValue` is the pad's scalar and
/// `weights` the kernel's values, null when not constants: the pad value
/// must be one, and a nonzero one needs the weights (their sums over the
/// taps a box skips).
bool readsPaddedInputInPlace(const hlo::Instruction &convolution, const hlo::Instruction &pad,
                             const hlo::Literal *padValue, const hlo::Literal *weights);

/// The taps of `convolution`'s window outside the box [tapBegin, tapEnd)
/// of each spatial dimension, as offsets into its row-major kernel (of
/// output feature 0), in row-major order: what code generation sums at run
/// time, per output feature, for a box's starting sums (a few adds per
/// feature where a table would take four bytes per feature and box).
std::vector<int64_t> skippedTaps(const hlo::Instruction &convolution,
                                 llvm::ArrayRef<WindowRun> box);

/// The weights' sum over the taps outside the box [tapBegin, tapEnd) of
/// each spatial dimension, times `padValue`, per output feature: what the
/// skipped taps add to each output of the box (modulo 2^32, like the sums).
std::vector<int64_t> skippedTapSums(const hlo::Instruction &convolution,
                                    const hlo::Literal &weights, int64_t padValue,
                                    llvm::ArrayRef<WindowRun> box);

} // namespace mote::passes

#endif // MOTE_PASSES_PADDEDINPUTCONVOLUTION_H
