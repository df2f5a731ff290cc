//===- LinearAlgebraTest.cpp - cholesky, triangular-solve, fft -------------===//
//
// Expected values are worked out by hand (small integer matrices, DFTs of
// length 3 and 4).
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include <cmath>
#include <complex>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;
using C = std::complex<float>;

namespace {

std::string module(const std::string &body) { return "HloModule m\nENTRY e {\n" + body + "\n}\n"; }

bool near(const std::vector<float> &a, const std::vector<float> &b, float tolerance = 1e-5f) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= tolerance))
      return false;
  return true;
}

bool near(const std::vector<C> &a, const std::vector<C> &b, float tolerance = 1e-5f) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= tolerance))
      return false;
  return true;
}

// A = L L^T with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]].
const char *positiveDefinite = "{{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}}";

} // namespace

TEST_CASE("cholesky factors lower and upper, ignoring the other triangle") {
  // The upper triangle is garbage for lower=true: it must not be read.
  CHECK(elements<float>(
            evaluate(module(R"(  a = f32[3,3] constant({{4, 99, 99}, {12, 37, 99}, {-16, -43, 98}})
  ROOT r = f32[3,3] cholesky(a), lower=true)"))) == std::vector<float>{2, 0, 0, 6, 1, 0, -8, 5, 3});
  CHECK(elements<float>(
            evaluate(module(R"(  a = f32[3,3] constant({{4, 12, -16}, {-1, 37, -43}, {-1, -1, 98}})
  ROOT r = f32[3,3] cholesky(a), lower=false)"))) ==
        std::vector<float>{2, 6, -8, 0, 1, 5, 0, 0, 3});
  // A batch of two; the second is not positive definite and becomes NaN.
  hlo::Literal result =
      evaluate(module(std::string("  a = f64[2,3,3] constant({") + positiveDefinite +
                      R"(, {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}}})
  ROOT r = f64[2,3,3] cholesky(a), lower=true)"));
  std::vector<double> values = elements<double>(result);
  CHECK(std::vector<double>(values.begin(), values.begin() + 9) ==
        std::vector<double>{2, 0, 0, 6, 1, 0, -8, 5, 3});
  for (size_t i = 9; i < 18; ++i)
    CHECK(std::isnan(values[i]));
}

TEST_CASE("cholesky of a complex Hermitian matrix") {
  // A = L L^H with L = [[2, 0], [1 + i, 1]]: A = [[4, 2 - 2i], [2 + 2i, 3]].
  CHECK(near(
      elements<C>(evaluate(module(R"(  a = c64[2,2] constant({{(4, 0), (2, -2)}, {(2, 2), (3, 0)}})
  ROOT r = c64[2,2] cholesky(a), lower=true)"))),
      {C(2, 0), C(0, 0), C(1, 1), C(1, 0)}));
}

TEST_CASE("triangular-solve on both sides, transposed and with a unit diagonal") {
  // L = [[2, 0], [3, 4]]; the 9 above the diagonal must be ignored.
  auto solve = [](const std::string &b, const std::string &bShape, const std::string &options) {
    return elements<float>(evaluate(module(R"(  a = f32[2,2] constant({{2, 9}, {3, 4}})
  b = f32[)" + bShape + "] constant(" + b + R"()
  ROOT r = f32[)" + bShape + "] triangular-solve(a, b), " +
                                           options)));
  };
  // L x = [2, 11] -> x = [1, 2] (two right-hand sides: the second doubled).
  CHECK(
      solve("{{2, 4}, {11, 22}}", "2,2", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE") ==
      std::vector<float>{1, 2, 2, 4});
  // L^T x = [8, 8]: 4 y = 8, 2 x + 3 y = 8 -> [1, 2].
  CHECK(solve("{{8}, {8}}", "2,1", "left_side=true, lower=true, transpose_a=TRANSPOSE") ==
        std::vector<float>{1, 2});
  // x L = [8, 8]: 4 y = 8, 2 x + 3 y = 8 -> [1, 2].
  CHECK(solve("{{8, 8}}", "1,2", "left_side=false, lower=true, transpose_a=NO_TRANSPOSE") ==
        std::vector<float>{1, 2});
  // Unit diagonal: [[1, 0], [3, 1]] x = [1, 5] -> [1, 2].
  CHECK(solve("{{1}, {5}}", "2,1",
              "left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE") ==
        std::vector<float>{1, 2});
  // Upper triangle of [[2, 9], [3, 4]] is [[2, 9], [0, 4]]: x = [(20 - 9*2)/2, 2].
  CHECK(solve("{{20}, {8}}", "2,1", "left_side=true, lower=false, transpose_a=NO_TRANSPOSE") ==
        std::vector<float>{1, 2});
}

TEST_CASE("triangular-solve with batch dimensions and the adjoint") {
  // Batch of L = [[1, 0], [i, 1]]: L^H = [[1, -i], [0, 1]], L^H x = [1 - 2i, 2] -> [1, 2].
  CHECK(near(elements<C>(evaluate(
                 module(R"(  a = c64[1,2,2] constant({{{(1, 0), (0, 0)}, {(0, 1), (1, 0)}}})
  b = c64[1,2,1] constant({{{(1, -2)}, {(2, 0)}}})
  ROOT r = c64[1,2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=ADJOINT)"))),
             {C(1, 0), C(2, 0)}));
}

TEST_CASE("fft of length 4 and its inverse") {
  // X[k] = sum_n x[n] e^{-2 pi i k n / 4} for x = [1, 2, 3, 4].
  std::vector<C> spectrum = {C(10, 0), C(-2, 2), C(-2, 0), C(-2, -2)};
  CHECK(near(elements<C>(evaluate(module(R"(  a = c64[4] constant({(1, 0), (2, 0), (3, 0), (4, 0)})
  ROOT r = c64[4] fft(a), fft_type=FFT, fft_length={4})"))),
             spectrum));
  CHECK(near(
      elements<C>(evaluate(module(R"(  a = c64[4] constant({(10, 0), (-2, 2), (-2, 0), (-2, -2)})
  ROOT r = c64[4] fft(a), fft_type=IFFT, fft_length={4})"))),
      {C(1, 0), C(2, 0), C(3, 0), C(4, 0)}));
  CHECK(near(elements<C>(evaluate(module(R"(  a = f32[4] constant({1, 2, 3, 4})
  ROOT r = c64[3] fft(a), fft_type=RFFT, fft_length={4})"))),
             {C(10, 0), C(-2, 2), C(-2, 0)}));
  CHECK(near(elements<float>(evaluate(module(R"(  a = c64[3] constant({(10, 0), (-2, 2), (-2, 0)})
  ROOT r = f32[4] fft(a), fft_type=IRFFT, fft_length={4})"))),
             {1, 2, 3, 4}));
}

TEST_CASE("fft of a length that is not a power of two, and in two dimensions") {
  // x = [0, 1, 0]: X[k] = e^{-2 pi i k / 3}.
  const float half = 0.5f, root = std::sqrt(3.0f) / 2;
  CHECK(near(elements<C>(evaluate(module(R"(  a = c64[3] constant({(0, 0), (1, 0), (0, 0)})
  ROOT r = c64[3] fft(a), fft_type=FFT, fft_length={3})"))),
             {C(1, 0), C(-half, -root), C(-half, root)}));
  // 2-D over [[1, 2], [3, 4]]: X[k][l] = sum x[m][n] (-1)^(km + ln).
  CHECK(near(
      elements<C>(evaluate(module(R"(  a = c64[2,2] constant({{(1, 0), (2, 0)}, {(3, 0), (4, 0)}})
  ROOT r = c64[2,2] fft(a), fft_type=FFT, fft_length={2,2})"))),
      {C(10, 0), C(-2, 0), C(-4, 0), C(0, 0)}));
  // Real 2-D with a length-3 last dimension: RFFT then IRFFT returns the input.
  hlo::Literal spectrum = evaluate(module(R"(  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 7}})
  ROOT r = c64[2,2] fft(a), fft_type=RFFT, fft_length={2,3})"));
  // X[0][0] = 22; X[1][0] = (1 + 2 + 3) - (4 + 5 + 7) = -10.
  std::vector<C> values = elements<C>(spectrum);
  CHECK(std::abs(values[0] - C(22, 0)) < 1e-5f);
  CHECK(std::abs(values[2] - C(-10, 0)) < 1e-5f);
  hlo::Literal back =
      evaluate("HloModule m\nENTRY e {\n  a = c64[2,2] parameter(0)\n  ROOT r = f32[2,3] fft(a), "
               "fft_type=IRFFT, fft_length={2,3}\n}\n",
               {spectrum});
  CHECK(near(elements<float>(back), {1, 2, 3, 4, 5, 7}));
}
