//===- Quantized.h - Uniform quantized StableHLO to integer HLO -*- C++ -*-===//
///
/// \file
/// A tensor of `!quant.uniform<i8:f32, scale:zero_point>` is its storage
/// integers q, standing for the real values scale * (q - zero_point).
/// uniform_quantize computes q = clamp(round_nearest_even(x / scale) +
/// zero_point, storage_min, storage_max); uniform_dequantize the other way.
/// dot_general and convolution of quantized operands run on the integers:
/// the s8 operands (less their zero points) convert to s32, the contraction
/// accumulates in s32, and the result is the s32 accumulator with scale
/// lhs_scale * rhs_scale -- then a requantize to s8 is convert to f32,
/// multiply by the scale ratio, add the zero point, round, clamp, convert.
/// Other ops on quantized values dequantize, compute in the expressed type
/// and quantize again (the spec's dequantize_op_quantize).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_QUANTIZED_H
#define MOTE_STABLEHLO_QUANTIZED_H

#include "stablehlo/Converter.h"

namespace mote::stablehlo {

/// An elementwise op (or select, clamp, ...) with quantized operands or results.
llvm::Error lowerQuantizedElementwise(OpContext &context);
/// compare of quantized operands: on the dequantized values.
llvm::Error lowerQuantizedCompare(OpContext &context);
/// dot_general and convolution with a quantized operand.
llvm::Error lowerQuantizedContraction(OpContext &context);

/// The real values scale * (q - zero_point) of storage integers `q`.
hlo::Instruction *dequantize(OpContext &context, hlo::Instruction *q,
                             const QuantizedType &quantized);
/// Real values `x` as storage integers of `quantized`.
hlo::Instruction *quantize(OpContext &context, hlo::Instruction *x, const QuantizedType &quantized);
/// Storage integers of `from` as storage integers of `to`.
hlo::Instruction *requantize(OpContext &context, hlo::Instruction *q, const QuantizedType &from,
                             const QuantizedType &to);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_QUANTIZED_H
