//===- ComplexOps.h - Arithmetic and math on complex values -----*- C++ -*-===//
///
/// \file
/// c64 and c128 values are { re, im } structs (ElementTypes.h). The emitters
/// here work on the two parts, each a float or double (or a fixed vector of
/// them), and compute what the reference evaluator's std::complex computes on
/// the host, so compiled code and evaluator agree:
///
///  - multiply and divide are the C99 Annex G operations of libgcc
///    (__mulsc3/__muldc3, __divsc3/__divdc3), which clang's std::complex
///    calls: the plain formulas plus the recovery of infinities that compute
///    as NaN + iNaN; c64 division runs in double. Bit-exact.
///  - abs is glibc's hypotf (bit-exact: one rounding from double) and
///    hypot (Borges' correction without FMA; at most 1 ulp apart).
///  - exp, log, sqrt, pow, sinh, cosh, tanh, sin, cos, tan follow glibc's
///    cexp, clog, csqrt, cpow, csinh, ccosh, ctanh (sin, cos, tan as -i f(iz)
///    the way C99 Annex G defines them) with their scaling and special
///    cases, on the inline real math of MathEmitter.h. Largest difference
///    from the evaluator in ulps of either part, measured with and without
///    FMA over 2^23 points of every kind (tests/unit/codegen/
///    ComplexMathTest.cpp; the bounds it asserts in brackets), the same for
///    c64 and c128:
///      exp 3 [4], log 2 [3], sqrt 0 [0], abs 0 [0 c64, 1 c128],
///      sin, cos, sinh, cosh 5 [6], tan, tanh 9 [10],
///      asin, asinh 1 [3], acos, acosh, atan, atanh 2 for c64 and 1 for
///      c128 [3].
///    pow is exp(y log x): log's error, times |y|, becomes a relative error
///    of the result (normwise 5 ulps for real y <= 1/2, 40 [64] for |y| <= 3,
///    |x| in [1/4, 4]).
///  - asin, acos, atan, asinh, acosh, atanh follow glibc's casin, cacos,
///    catan, casinh, cacosh, catanh: asinh's cases by the size of the
///    parts (ComplexInverse.cpp), catan as catanh with the parts exchanged.
///
/// Everything is straight-line code (selects, no branches) and calls
/// nothing, like MathEmitter.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_COMPLEXOPS_H
#define MOTE_CODEGEN_COMPLEXOPS_H

#include "hlo/Opcode.h"

#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// The two parts of a complex value, of the same float type.
struct Complex {
  llvm::Value *re;
  llvm::Value *im;
};

/// A { re, im } struct value taken apart, and put together.
Complex splitComplex(llvm::IRBuilderBase &b, llvm::Value *value);
llvm::Value *joinComplex(llvm::IRBuilderBase &b, Complex value);

// ComplexArithmetic.cpp
Complex emitComplexMultiply(llvm::IRBuilderBase &b, Complex x, Complex y);
Complex emitComplexDivide(llvm::IRBuilderBase &b, Complex x, Complex y);
/// sqrt(x^2 + y^2) without undue overflow, as glibc's hypotf/hypot.
llvm::Value *emitHypot(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);
/// Whether x is a signaling NaN (the quiet bit clear).
llvm::Value *emitIsSignalingNan(llvm::IRBuilderBase &b, llvm::Value *x);

// ElementalComplex.cpp: the elementwise ops on complex operands, with the
// evaluator's definitions of those std::complex lacks (expm1, log1p,
// logistic, rsqrt, cbrt, sign, power's special cases).
/// Whether `opcode` with complex operands is implemented.
bool isComplexElementwise(hlo::Opcode opcode);
/// `opcode` on a complex struct value: a struct, or a real part for abs.
llvm::Value *emitComplexUnaryOp(llvm::IRBuilderBase &b, hlo::Opcode opcode, llvm::Value *operand);
llvm::Value *emitComplexBinaryOp(llvm::IRBuilderBase &b, hlo::Opcode opcode, llvm::Value *lhs,
                                 llvm::Value *rhs);

namespace math {

// ComplexMath.cpp
Complex emitComplexExp(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexLog(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexSqrt(llvm::IRBuilderBase &b, Complex z);
/// exp(y * log(x)), glibc's cpow (the evaluator's own special cases of
/// power are the caller's).
Complex emitComplexPow(llvm::IRBuilderBase &b, Complex x, Complex y);

// ComplexExp.cpp and ComplexMath.cpp
Complex emitComplexSinh(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexCosh(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexTanh(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexSin(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexCos(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexTan(llvm::IRBuilderBase &b, Complex z);

// ComplexInverse.cpp
Complex emitComplexAsin(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexAcos(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexAtan(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexAsinh(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexAcosh(llvm::IRBuilderBase &b, Complex z);
Complex emitComplexAtanh(llvm::IRBuilderBase &b, Complex z);

} // namespace math

} // namespace mote::codegen

#endif // MOTE_CODEGEN_COMPLEXOPS_H
