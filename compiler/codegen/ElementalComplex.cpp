//===- ElementalComplex.cpp - Elementwise ops on complex operands ---------===//
//
// What compiler/eval/ElementwiseUnary.cpp and ElementwiseBinary.cpp compute
// for c64/c128, op by op, on ComplexOps.h. Where the evaluator writes an op
// as std::complex arithmetic (expm1 as exp(z) - 1, log1p as log(1 + z),
// logistic as 1 / (1 + exp(-z)), rsqrt as 1 / sqrt(z), cbrt as
// pow(z, 1/3)), the same steps run here: 1 + z adds +0 to the imaginary
// part (turning -0 into +0), and 1 / w is a full complex division.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"

#include "codegen/ComplexSupport.h"

namespace mote::codegen {

using hlo::Opcode;
using namespace complex;

namespace {

/// 1 + z as std::complex adds a real one: (1 + re, 0 + im).
Complex onePlus(llvm::IRBuilderBase &b, Complex z) {
  return {b.CreateFAdd(constant(z.re, 1.0), z.re), b.CreateFAdd(constant(z.im, 0.0), z.im)};
}

/// 1 / z as a complex division of (1, 0) by z.
Complex reciprocal(llvm::IRBuilderBase &b, Complex z) {
  return emitComplexDivide(b, {constant(z.re, 1.0), constant(z.re, 0.0)}, z);
}

llvm::Value *isEqualTo(llvm::IRBuilderBase &b, Complex z, double re) {
  return b.CreateAnd(b.CreateFCmpOEQ(z.re, constant(z.re, re)),
                     b.CreateFCmpOEQ(z.im, constant(z.im, 0.0)));
}

/// The evaluator's power: 1 when x is 1 or y is 0, inf^(a + 0i) = inf or
/// 0 for real a > 0 or < 0, else glibc's cpow.
Complex power(llvm::IRBuilderBase &b, Complex x, Complex y) {
  llvm::Value *zero = constant(x.re, 0.0), *one = constant(x.re, 1.0);
  llvm::Value *trivial = b.CreateOr(isEqualTo(b, x, 1.0), isEqualTo(b, y, 0.0));
  llvm::Value *infiniteBase = b.CreateAnd(
      b.CreateAnd(b.CreateFCmpOEQ(x.im, zero),
                  b.CreateFCmpOEQ(x.re, llvm::ConstantFP::getInfinity(x.re->getType()))),
      b.CreateFCmpOEQ(y.im, zero));
  llvm::Value *positive = b.CreateAnd(infiniteBase, b.CreateFCmpOGT(y.re, zero));
  llvm::Value *negative = b.CreateAnd(infiniteBase, b.CreateFCmpOLT(y.re, zero));
  Complex result = math::emitComplexPow(b, x, y);
  result = select(b, positive, x, select(b, negative, Complex{zero, zero}, result));
  return select(b, trivial, Complex{one, zero}, result);
}

} // namespace

bool isComplexElementwise(Opcode opcode) {
  switch (opcode) {
  case Opcode::Abs:
  case Opcode::Negate:
  case Opcode::Sign:
  case Opcode::Exp:
  case Opcode::Expm1:
  case Opcode::Log:
  case Opcode::Log1p:
  case Opcode::Logistic:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
  case Opcode::Cbrt:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Tan:
  case Opcode::Sinh:
  case Opcode::Cosh:
  case Opcode::Tanh:
  case Opcode::Asin:
  case Opcode::Acos:
  case Opcode::Atan:
  case Opcode::Asinh:
  case Opcode::Acosh:
  case Opcode::Atanh:
  case Opcode::Add:
  case Opcode::Subtract:
  case Opcode::Multiply:
  case Opcode::Divide:
  case Opcode::Power:
    return true;
  default:
    return false;
  }
}

llvm::Value *emitComplexUnaryOp(llvm::IRBuilderBase &b, Opcode opcode, llvm::Value *operand) {
  Complex z = splitComplex(b, operand);
  Complex result;
  switch (opcode) {
  case Opcode::Abs:
    return emitHypot(b, z.re, z.im);
  case Opcode::Negate:
    result = {b.CreateFNeg(z.re), b.CreateFNeg(z.im)};
    break;
  case Opcode::Sign: {
    // z / |z|, 0 for 0 (NaN stays NaN).
    llvm::Value *magnitude = emitHypot(b, z.re, z.im);
    llvm::Value *zero = constant(z.re, 0.0);
    result = select(b, b.CreateFCmpOEQ(magnitude, zero), Complex{zero, zero},
                    Complex{b.CreateFDiv(z.re, magnitude), b.CreateFDiv(z.im, magnitude)});
    break;
  }
  case Opcode::Exp:
    result = math::emitComplexExp(b, z);
    break;
  case Opcode::Expm1: {
    Complex e = math::emitComplexExp(b, z);
    result = {b.CreateFSub(e.re, constant(e.re, 1.0)), b.CreateFSub(e.im, constant(e.im, 0.0))};
    break;
  }
  case Opcode::Log:
    result = math::emitComplexLog(b, z);
    break;
  case Opcode::Log1p:
    result = math::emitComplexLog(b, onePlus(b, z));
    break;
  case Opcode::Logistic:
    result = reciprocal(
        b, onePlus(b, math::emitComplexExp(b, {b.CreateFNeg(z.re), b.CreateFNeg(z.im)})));
    break;
  case Opcode::Sqrt:
    result = math::emitComplexSqrt(b, z);
    break;
  case Opcode::Rsqrt:
    result = reciprocal(b, math::emitComplexSqrt(b, z));
    break;
  case Opcode::Cbrt: {
    // pow(z, 1/3) with 1/3 rounded to the part type.
    const bool wide = z.re->getType()->getScalarType()->isDoubleTy();
    double third = wide ? 1.0 / 3.0 : double(1.0f / 3.0f);
    result = math::emitComplexPow(b, z, {constant(z.re, third), constant(z.re, 0.0)});
    break;
  }
  case Opcode::Sin:
    result = math::emitComplexSin(b, z);
    break;
  case Opcode::Cos:
    result = math::emitComplexCos(b, z);
    break;
  case Opcode::Tan:
    result = math::emitComplexTan(b, z);
    break;
  case Opcode::Sinh:
    result = math::emitComplexSinh(b, z);
    break;
  case Opcode::Cosh:
    result = math::emitComplexCosh(b, z);
    break;
  case Opcode::Tanh:
    result = math::emitComplexTanh(b, z);
    break;
  case Opcode::Asin:
    result = math::emitComplexAsin(b, z);
    break;
  case Opcode::Acos:
    result = math::emitComplexAcos(b, z);
    break;
  case Opcode::Atan:
    result = math::emitComplexAtan(b, z);
    break;
  case Opcode::Asinh:
    result = math::emitComplexAsinh(b, z);
    break;
  case Opcode::Acosh:
    result = math::emitComplexAcosh(b, z);
    break;
  case Opcode::Atanh:
    result = math::emitComplexAtanh(b, z);
    break;
  default:
    return nullptr;
  }
  return joinComplex(b, result);
}

llvm::Value *emitComplexBinaryOp(llvm::IRBuilderBase &b, Opcode opcode, llvm::Value *lhs,
                                 llvm::Value *rhs) {
  Complex x = splitComplex(b, lhs), y = splitComplex(b, rhs);
  Complex result;
  switch (opcode) {
  case Opcode::Add:
    result = {b.CreateFAdd(x.re, y.re), b.CreateFAdd(x.im, y.im)};
    break;
  case Opcode::Subtract:
    result = {b.CreateFSub(x.re, y.re), b.CreateFSub(x.im, y.im)};
    break;
  case Opcode::Multiply:
    result = emitComplexMultiply(b, x, y);
    break;
  case Opcode::Divide:
    result = emitComplexDivide(b, x, y);
    break;
  case Opcode::Power:
    result = power(b, x, y);
    break;
  default:
    return nullptr;
  }
  return joinComplex(b, result);
}

} // namespace mote::codegen
