//===- MathEmitter.h - Freestanding math emitted inline as LLVM IR -*- C++ -*-===//
///
/// \file
/// Elementary functions and 16-bit float conversions emitted as straight-line
/// LLVM IR. Generated code may call nothing but memcpy/memset, so none of
/// these lowers to a libm call: no llvm.exp/log/sin intrinsics, no
/// llvm.floor/rint/fma (libcalls on targets without the instruction), no
/// half-precision intrinsics. Everything is selects instead of branches so
/// the code vectorises; the only intrinsics used are llvm.sqrt, llvm.fabs,
/// llvm.copysign, llvm.fmuladd (fused only where the target has FMA) and
/// llvm.ctlz, which lower to instructions on every supported target.
///
/// Every float function takes and returns float or double, scalar or a fixed
/// vector of them. f16/bf16 math is done by the caller in f32, as XLA's CPU
/// backend does. The builder's fast-math flags are ignored: the algorithms
/// rely on exact IEEE rounding of each step.
///
/// Accuracy: maximum error in ulps against long double libm, measured on the
/// host (with and without FMA contraction of llvm.fmuladd) over 2^24 f32
/// inputs spread evenly over all bit patterns and 2^24 f64 inputs (random bit
/// patterns plus uniform values in the function's busy range), and for the
/// trig functions 2^22 more log-uniform inputs from 1e3 (f32) or 1e6 (f64)
/// up to the largest finite value. The bounds the tests assert are in
/// brackets.
///
///   function   f32            f64            notes
///   exp        0.97 [1]       0.98 [1]       subnormal results rounded once
///   expm1      1.40 [2]       1.93 [2]
///   log        0.78 [1]       0.83 [1]
///   log1p      0.81 [1]       0.86 [1]
///   tanh       2.23 [3]       2.57 [3]
///   logistic   2.32 [3]       2.36 [3]       subnormal results 0.98 [1]
///   erf        0.84 [1]       0.98 [1]
///   sin, cos   0.80 [1]       0.78 [1]       whole finite range
///   tan        2.22 [2.5]     2.17 [2.5]     whole finite range
///   pow        1.02 [1.5]     0.98 [1.5]     normal results
///   atan2      1.48 [2]       1.49 [2]
///   cbrt       0.96 [1]       0.96 [1]
///   rsqrt      1.48 [1.5]     1.49 [1.5]     1/sqrt(x), two roundings as XLA
///
/// sin/cos/tan reduce by pi/2 with Cody-Waite below 2^14 (f32) / 2^24 (f64)
/// and with Payne-Hanek above (2/pi bits as immediate constants picked by
/// selects, exact integer products); every lane computes both. The f32 path
/// needs i64 multiply and shifts, which 32-bit cores do inline.
///
/// f64 functions use 64-bit integer division by 3 (cbrt) and 64-bit
/// fptosi; they are meant for 64-bit targets. f32 functions and all the
/// 16-bit conversions compile to call-free code on Cortex-M4 as well.
///
/// The default test run uses 2^20 points; MOTE_MATH_SAMPLES=16777216
/// reproduces the table.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_MATHEMITTER_H
#define MOTE_CODEGEN_MATHEMITTER_H

#include "llvm/IR/IRBuilder.h"

namespace mote::codegen::math {

llvm::Value *emitExp(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitExpm1(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitLog(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitLog1p(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitTanh(llvm::IRBuilderBase &b, llvm::Value *x);
/// 1 / (1 + exp(-x)), computed without overflow for large |x|.
llvm::Value *emitLogistic(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitErf(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitSin(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitCos(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitTan(llvm::IRBuilderBase &b, llvm::Value *x);
/// x^y with the special cases of C99 Annex F.
llvm::Value *emitPow(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);
/// The angle of (x, y), quadrants and signed zeros as C99 Annex F.
llvm::Value *emitAtan2(llvm::IRBuilderBase &b, llvm::Value *y, llvm::Value *x);
llvm::Value *emitCbrt(llvm::IRBuilderBase &b, llvm::Value *x);
/// 1 / sqrt(x).
llvm::Value *emitRsqrt(llvm::IRBuilderBase &b, llvm::Value *x);
/// fmod(x, y), exact (bit-identical to C's fmod). Unlike the functions
/// above it calls a looping helper function it adds to the module.
llvm::Value *emitFmod(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);

/// 16-bit float conversions on the storage bits: i16 (or a vector of i16) for
/// the 16-bit side. Integer-only, bit-exact IEEE round-to-nearest-even, with
/// NaN (quieted, sign and top payload kept), infinity, subnormals and overflow.
llvm::Value *emitF16ToF32(llvm::IRBuilderBase &b, llvm::Value *bits);
llvm::Value *emitF32ToF16(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitBF16ToF32(llvm::IRBuilderBase &b, llvm::Value *bits);
llvm::Value *emitF32ToBF16(llvm::IRBuilderBase &b, llvm::Value *x);
/// f16 <-> f64 directly; f64 -> f16 rounds once (going through f32 would
/// round twice).
llvm::Value *emitF16ToF64(llvm::IRBuilderBase &b, llvm::Value *bits);
llvm::Value *emitF64ToF16(llvm::IRBuilderBase &b, llvm::Value *x);

} // namespace mote::codegen::math

#endif // MOTE_CODEGEN_MATHEMITTER_H
