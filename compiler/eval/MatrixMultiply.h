//===- MatrixMultiply.h - The inner kernel of dot and convolution -*- C++ -*-===//
///
/// \file
/// Internal to Dot.cpp and Convolution.cpp: C += A * B on row-major work
/// arrays. Each element of C is accumulated in increasing k, one multiply and
/// one add at a time (no fused multiply-add, no reassociation), so the result
/// does not depend on blocking, vector width or the host CPU. The columns of
/// C are what runs in parallel: callers put the longer output dimension there.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_MATRIXMULTIPLY_H
#define MOTE_EVAL_MATRIXMULTIPLY_H

#include "eval/Evaluator.h"

#include <complex>
#include <cstdint>
#include <type_traits>

namespace mote::eval {

/// C[i][j] += sum over p < k of A[i][p] * B[p][j], for i < m and j < n; the
/// leading dimensions are row strides in elements.
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                        const float *b, int64_t ldb, float *c, int64_t ldc);
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                        const double *b, int64_t ldb, double *c, int64_t ldc);
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const uint32_t *a, int64_t lda,
                        const uint32_t *b, int64_t ldb, uint32_t *c, int64_t ldc);
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const uint64_t *a, int64_t lda,
                        const uint64_t *b, int64_t ldb, uint64_t *c, int64_t ldc);
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const std::complex<float> *a, int64_t lda,
                        const std::complex<float> *b, int64_t ldb, std::complex<float> *c,
                        int64_t ldc);
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const std::complex<double> *a, int64_t lda,
                        const std::complex<double> *b, int64_t ldb, std::complex<double> *c,
                        int64_t ldc);

/// The same, each product added by a fused multiply-add (rounded once).
void multiplyAccumulateFused(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                             const float *b, int64_t ldb, float *c, int64_t ldc);
void multiplyAccumulateFused(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                             const double *b, int64_t ldb, double *c, int64_t ldc);

/// multiplyAccumulate with the sums' arithmetic: `arithmetic` fuses f32 or
/// f64 sums; integer and complex ones are unaffected.
template <typename T>
void multiplyAccumulate(ContractionArithmetic arithmetic, int64_t m, int64_t n, int64_t k,
                        const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (arithmetic.fusedF32)
      return multiplyAccumulateFused(m, n, k, a, lda, b, ldb, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    if (arithmetic.fusedF64)
      return multiplyAccumulateFused(m, n, k, a, lda, b, ldb, c, ldc);
  }
  multiplyAccumulate(m, n, k, a, lda, b, ldb, c, ldc);
}

/// How many columns the kernel computes at once for element type T: a C
/// narrower than this runs mostly scalar, so callers transpose the problem.
template <typename T> constexpr int64_t multiplyVectorColumns() { return sizeof(T) >= 8 ? 8 : 16; }

} // namespace mote::eval

#endif // MOTE_EVAL_MATRIXMULTIPLY_H
