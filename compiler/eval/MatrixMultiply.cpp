//===- MatrixMultiply.cpp - The inner kernel of dot and convolution -------===//
//
// A register-blocked loop nest: a tile of MR rows x NR columns of C stays in
// registers while k runs, reading a column of A and a row of B per step. B is
// copied block by block into contiguous NR-wide strips that stay in cache
// while every row tile uses them. The compiler vectorises the NR columns. On x86-64 the entry
// points are also compiled for x86-64-v3 (AVX2, FMA) and picked at load time; both versions round
// every product and sum identically (fused ones through std::fma, which is exact on every host),
// so they give bit-identical results.
//
//===----------------------------------------------------------------------===//

#include "eval/MatrixMultiply.h"

#include <algorithm>
#include <cmath>
#include <vector>

// Each product is rounded before it is added unless fused on purpose, on every
// host and with any -march: the evaluator is an oracle and must not change
// with the CPU.
#pragma clang fp contract(off)

#if defined(__x86_64__) && defined(__clang__) && defined(__ELF__)
#define MOTE_EVAL_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MOTE_EVAL_VECTOR_CLONES
#endif

namespace mote::eval {

namespace {

/// sum += a * b, in one rounding when `Fused` (floating point only).
template <bool Fused, typename T> inline void multiplyAdd(T &sum, T a, T b) {
  if constexpr (Fused)
    sum = std::fma(a, b, sum);
  else
    sum += a * b;
}

/// Complex products the way generated code computes them (no C99 Annex G
/// recovery of infinities, which would make every step a library call).
template <bool Fused, typename R>
inline void multiplyAdd(std::complex<R> &sum, std::complex<R> a, std::complex<R> b) {
  static_assert(!Fused, "complex sums are never fused");
  sum = std::complex<R>(sum.real() + (a.real() * b.real() - a.imag() * b.imag()),
                        sum.imag() + (a.real() * b.imag() + a.imag() * b.real()));
}

/// C[0..R)[0..NR) += A[0..R)[0..k) * B[0..k)[0..NR), accumulators in registers.
template <bool Fused, typename T, int R, int NR>
[[gnu::always_inline]] inline void tile(int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb,
                                        T *c, int64_t ldc) {
  T sum[R][NR];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NR; ++j)
      sum[r][j] = c[r * ldc + j];
  for (int64_t p = 0; p < k; ++p) {
    const T *row = b + p * ldb;
    for (int r = 0; r < R; ++r) {
      const T x = a[r * lda + p];
      for (int j = 0; j < NR; ++j)
        multiplyAdd<Fused>(sum[r][j], x, row[j]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < NR; ++j)
      c[r * ldc + j] = sum[r][j];
}

/// tile() for the `rows` (<= R) rows left at the bottom of C.
template <bool Fused, typename T, int R, int NR>
[[gnu::always_inline]] inline void rowTile(int64_t rows, int64_t k, const T *a, int64_t lda,
                                           const T *b, int64_t ldb, T *c, int64_t ldc) {
  if constexpr (R > 0) {
    if (rows == R)
      tile<Fused, T, R, NR>(k, a, lda, b, ldb, c, ldc);
    else
      rowTile<Fused, T, R - 1, NR>(rows, k, a, lda, b, ldb, c, ldc);
  }
}

/// The columns left at the right of C (fewer than NR): plain loops.
template <bool Fused, typename T>
inline void edgeTile(int64_t rows, int64_t columns, int64_t k, const T *a, int64_t lda, const T *b,
                     int64_t ldb, T *c, int64_t ldc) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < columns; ++j) {
      T sum = c[r * ldc + j];
      for (int64_t p = 0; p < k; ++p)
        multiplyAdd<Fused>(sum, a[r * lda + p], b[p * ldb + j]);
      c[r * ldc + j] = sum;
    }
}

/// C with fewer rows than a register tile: no packing, B is streamed row by
/// row into a block of C that stays in L1.
template <bool Fused, typename T>
[[gnu::always_inline]] inline void streamedMultiply(int64_t m, int64_t n, int64_t k, const T *a,
                                                    int64_t lda, const T *b, int64_t ldb, T *c,
                                                    int64_t ldc) {
  constexpr int64_t NC = 4096 / sizeof(T);
  for (int64_t j0 = 0; j0 < n; j0 += NC) {
    const int64_t nb = std::min(NC, n - j0);
    for (int64_t p = 0; p < k; ++p) {
      const T *row = b + p * ldb + j0;
      for (int64_t i = 0; i < m; ++i) {
        const T x = a[i * lda + p];
        T *out = c + i * ldc + j0;
        for (int64_t j = 0; j < nb; ++j)
          multiplyAdd<Fused>(out[j], x, row[j]);
      }
    }
  }
}

template <bool Fused, typename T, int MR, int NR>
[[gnu::always_inline]] inline void blockedMultiply(int64_t m, int64_t n, int64_t k, const T *a,
                                                   int64_t lda, const T *b, int64_t ldb, T *c,
                                                   int64_t ldc) {
  if (m < 4 && n >= 4 * NR) {
    streamedMultiply<Fused>(m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  // A KC x NC block of B is copied into NR-wide strips, each contiguous, and
  // reused by every row tile of C.
  constexpr int64_t KC = 256;
  constexpr int64_t NC = 1024;
  std::vector<T> strips(std::min(KC, k) * std::min(NC, n / NR * NR));
  for (int64_t p0 = 0; p0 < k; p0 += KC) {
    const int64_t kb = std::min(KC, k - p0);
    for (int64_t j0 = 0; j0 < n; j0 += NC) {
      const int64_t nb = std::min(NC, n - j0);
      const int64_t full = nb / NR * NR;
      for (int64_t j = 0; j < full; j += NR)
        for (int64_t p = 0; p < kb; ++p)
          std::copy_n(b + (p0 + p) * ldb + j0 + j, NR, strips.data() + (j * kb + p * NR));
      for (int64_t i0 = 0; i0 < m; i0 += MR) {
        const int64_t rows = std::min<int64_t>(MR, m - i0);
        const T *ap = a + i0 * lda + p0;
        T *cp = c + i0 * ldc + j0;
        for (int64_t j = 0; j < full; j += NR)
          rowTile<Fused, T, MR, NR>(rows, kb, ap, lda, strips.data() + j * kb, NR, cp + j, ldc);
        if (full < nb)
          edgeTile<Fused>(rows, nb - full, kb, ap, lda, b + p0 * ldb + j0 + full, ldb, cp + full,
                          ldc);
      }
    }
  }
}

} // namespace

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                        const float *b, int64_t ldb, float *c, int64_t ldc) {
  blockedMultiply<false, float, 6, multiplyVectorColumns<float>()>(m, n, k, a, lda, b, ldb, c, ldc);
}

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                        const double *b, int64_t ldb, double *c, int64_t ldc) {
  blockedMultiply<false, double, 6, multiplyVectorColumns<double>()>(m, n, k, a, lda, b, ldb, c,
                                                                     ldc);
}

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const uint32_t *a, int64_t lda,
                        const uint32_t *b, int64_t ldb, uint32_t *c, int64_t ldc) {
  blockedMultiply<false, uint32_t, 4, multiplyVectorColumns<uint32_t>()>(m, n, k, a, lda, b, ldb, c,
                                                                         ldc);
}

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const uint64_t *a, int64_t lda,
                        const uint64_t *b, int64_t ldb, uint64_t *c, int64_t ldc) {
  blockedMultiply<false, uint64_t, 4, multiplyVectorColumns<uint64_t>()>(m, n, k, a, lda, b, ldb, c,
                                                                         ldc);
}

void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const std::complex<float> *a, int64_t lda,
                        const std::complex<float> *b, int64_t ldb, std::complex<float> *c,
                        int64_t ldc) {
  blockedMultiply<false, std::complex<float>, 2, 4>(m, n, k, a, lda, b, ldb, c, ldc);
}

void multiplyAccumulate(int64_t m, int64_t n, int64_t k, const std::complex<double> *a, int64_t lda,
                        const std::complex<double> *b, int64_t ldb, std::complex<double> *c,
                        int64_t ldc) {
  blockedMultiply<false, std::complex<double>, 2, 4>(m, n, k, a, lda, b, ldb, c, ldc);
}

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulateFused(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                             const float *b, int64_t ldb, float *c, int64_t ldc) {
  blockedMultiply<true, float, 6, multiplyVectorColumns<float>()>(m, n, k, a, lda, b, ldb, c, ldc);
}

MOTE_EVAL_VECTOR_CLONES
void multiplyAccumulateFused(int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                             const double *b, int64_t ldb, double *c, int64_t ldc) {
  blockedMultiply<true, double, 6, multiplyVectorColumns<double>()>(m, n, k, a, lda, b, ldb, c,
                                                                    ldc);
}

} // namespace mote::eval
