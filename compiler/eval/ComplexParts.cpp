//===- ComplexParts.cpp - complex, real, imag -----------------------------===//
//
// complex(re, im) builds c64 from f32 and c128 from f64. real/imag take a
// complex operand apart; on a real float operand real is the identity and
// imag is zero, as in XLA.
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include "hlo/Opcode.h"

#include <algorithm>

namespace mote::eval {

using hlo::errorAt;
using hlo::Opcode;
using hlo::PrimitiveType;

llvm::Error evaluateComplex(const hlo::Instruction &instruction, const hlo::Literal &real,
                            const hlo::Literal &imag, hlo::Literal &out) {
  if (llvm::Error error = expectSameArrayShape(instruction, real, imag))
    return error;
  PrimitiveType type = real.shape().elementType();
  if (type == PrimitiveType::F32) {
    if (llvm::Error error = checkOutput(instruction, out, PrimitiveType::C64, real.shape().dims()))
      return error;
    mapElements<float, std::complex<float>>(
        real, imag, out, [](float re, float im) { return std::complex<float>(re, im); });
    return llvm::Error::success();
  }
  if (type == PrimitiveType::F64) {
    if (llvm::Error error = checkOutput(instruction, out, PrimitiveType::C128, real.shape().dims()))
      return error;
    mapElements<double, std::complex<double>>(
        real, imag, out, [](double re, double im) { return std::complex<double>(re, im); });
    return llvm::Error::success();
  }
  return unsupportedElementType(instruction, type);
}

llvm::Error evaluateRealOrImag(const hlo::Instruction &instruction, const hlo::Literal &operand,
                               hlo::Literal &out) {
  PrimitiveType type = operand.shape().elementType();
  bool wantReal = instruction.opcode() == Opcode::Real;
  if (hlo::isComplex(type)) {
    PrimitiveType component = hlo::complexComponentType(type);
    if (llvm::Error error = checkOutput(instruction, out, component, operand.shape().dims()))
      return error;
    if (type == PrimitiveType::C64)
      mapElements<std::complex<float>, float>(operand, out, [wantReal](std::complex<float> v) {
        return wantReal ? v.real() : v.imag();
      });
    else
      mapElements<std::complex<double>, double>(operand, out, [wantReal](std::complex<double> v) {
        return wantReal ? v.real() : v.imag();
      });
    return llvm::Error::success();
  }
  if (!hlo::isFloatingPoint(type) || hlo::isF8(type))
    return unsupportedElementType(instruction, type);
  if (llvm::Error error = checkOutput(instruction, out, type, operand.shape().dims()))
    return error;
  // real of a real value is itself, imag is +0 (all-zero bits in every format).
  if (!wantReal)
    std::fill(out.bytes().begin(), out.bytes().end(), uint8_t(0));
  else if (out.bytes().data() != operand.bytes().data())
    std::copy(operand.bytes().begin(), operand.bytes().end(), out.bytes().begin());
  return llvm::Error::success();
}

} // namespace mote::eval
