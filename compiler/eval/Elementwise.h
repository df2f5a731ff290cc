//===- Elementwise.h - Shared pieces of the elementwise evaluators -*- C++ -*-===//
///
/// \file
/// Internal to the elementwise evaluators (ElementwiseOps.cpp dispatches to
/// the files declared below). Inner loops are typed and run over contiguous
/// row-major memory.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_ELEMENTWISE_H
#define MOTE_EVAL_ELEMENTWISE_H

#include "eval/OperandChecks.h"

#include <complex>
#include <cstring>
#include <type_traits>

namespace mote::eval {

template <typename T>
inline constexpr bool isHalfFloat =
    std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>;
template <typename T>
inline constexpr bool isComplexValue =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
template <typename T>
inline constexpr bool isRealFloat =
    isHalfFloat<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
inline constexpr bool isIntegerValue = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// bf16 and f16 are computed in f32 and rounded once to the result type (what
/// XLA's CPU backend does); every other type is computed in itself.
template <typename T> struct ComputeTypeOf { using type = T; };
template <> struct ComputeTypeOf<hlo::BFloat16> { using type = float; };
template <> struct ComputeTypeOf<hlo::Float16> { using type = float; };
template <typename T> using ComputeType = typename ComputeTypeOf<T>::type;

template <typename T> inline ComputeType<T> widen(T value) {
  if constexpr (isHalfFloat<T>)
    return static_cast<float>(value);
  else
    return value;
}

template <typename T> inline T narrow(ComputeType<T> value) {
  if constexpr (isHalfFloat<T>)
    return T(value);
  else
    return value;
}

/// out[i] = fn(in[i]) over all elements; the literals hold In and Out.
template <typename In, typename Out, typename Fn>
void mapElements(const hlo::Literal &in, hlo::Literal &out, Fn &&fn) {
  const int64_t count = out.elementCount();
  const uint8_t *source = in.bytes().data();
  uint8_t *destination = out.bytes().data();
  for (int64_t i = 0; i < count; ++i) {
    In value;
    std::memcpy(&value, source + i * sizeof(In), sizeof(In));
    Out result = fn(value);
    std::memcpy(destination + i * sizeof(Out), &result, sizeof(Out));
  }
}

/// out[i] = fn(a[i], b[i]) over all elements.
template <typename In, typename Out, typename Fn>
void mapElements(const hlo::Literal &a, const hlo::Literal &b, hlo::Literal &out, Fn &&fn) {
  const int64_t count = out.elementCount();
  const uint8_t *left = a.bytes().data();
  const uint8_t *right = b.bytes().data();
  uint8_t *destination = out.bytes().data();
  for (int64_t i = 0; i < count; ++i) {
    In x, y;
    std::memcpy(&x, left + i * sizeof(In), sizeof(In));
    std::memcpy(&y, right + i * sizeof(In), sizeof(In));
    Out result = fn(x, y);
    std::memcpy(destination + i * sizeof(Out), &result, sizeof(Out));
  }
}

/// Requires `b` to have the element type and dimensions of `a`.
llvm::Error expectSameArrayShape(const hlo::Instruction &instruction, const hlo::Literal &a,
                                 const hlo::Literal &b);

/// Checks that `out`, the literal an elementwise kernel writes, is an array
/// of `type` with `dims`. The caller made it from the instruction's shape, or
/// it is an operand that dies at this instruction: kernels read element i of
/// every operand before writing element i, so an operand may be its own
/// result buffer.
llvm::Error checkOutput(const hlo::Instruction &instruction, const hlo::Literal &out,
                        hlo::PrimitiveType type, llvm::ArrayRef<int64_t> dims);

/// evaluateElementwise writing into `reuse` (an operand whose value dies at
/// this instruction) when it has the result's shape; null for a fresh result.
Result evaluateElementwise(const hlo::Instruction &instruction, Operands operands,
                           hlo::Literal *reuse);

// The kernels below write their result into `out` (see checkOutput).
// ElementwiseUnary.cpp: the one-operand math, bit and rounding ops (not convert).
llvm::Error evaluateUnary(const hlo::Instruction &instruction, const hlo::Literal &operand,
                          hlo::Literal &out);
// ElementwiseBinary.cpp: arithmetic, bitwise, shifts, max/min, pow, atan2.
llvm::Error evaluateBinary(const hlo::Instruction &instruction, const hlo::Literal &lhs,
                           const hlo::Literal &rhs, hlo::Literal &out);
// Compare.cpp: compare, select, clamp.
llvm::Error evaluateCompare(const hlo::Instruction &instruction, const hlo::Literal &lhs,
                            const hlo::Literal &rhs, hlo::Literal &out);
llvm::Error evaluateSelect(const hlo::Instruction &instruction, Operands operands,
                           hlo::Literal &out);
llvm::Error evaluateClamp(const hlo::Instruction &instruction, Operands operands,
                          hlo::Literal &out);
// Convert.cpp: convert, reduce-precision, stochastic-convert.
llvm::Error evaluateConvert(const hlo::Instruction &instruction, const hlo::Literal &operand,
                            hlo::Literal &out);
llvm::Error evaluateReducePrecision(const hlo::Instruction &instruction,
                                    const hlo::Literal &operand, hlo::Literal &out);
llvm::Error evaluateStochasticConvert(const hlo::Instruction &instruction,
                                      const hlo::Literal &operand, const hlo::Literal &random,
                                      hlo::Literal &out);
// ComplexParts.cpp: complex, real, imag.
llvm::Error evaluateComplex(const hlo::Instruction &instruction, const hlo::Literal &real,
                            const hlo::Literal &imag, hlo::Literal &out);
llvm::Error evaluateRealOrImag(const hlo::Instruction &instruction, const hlo::Literal &operand,
                               hlo::Literal &out);

} // namespace mote::eval

#endif // MOTE_EVAL_ELEMENTWISE_H
