//===- DotTest.cpp - dot ---------------------------------------------------===//
//
// Small cases are worked out by hand; larger ones compare against a naive
// triple loop written here from the definition, on small integers so every
// f32 result is exact.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include "hlo/FloatTypes.h"

#include <array>
#include <cmath>
#include <complex>
#include <random>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string module(const std::string &parameters, const std::string &root) {
  return "HloModule m\nENTRY e {\n" + parameters + "\n  ROOT r = " + root + "\n}\n";
}

/// A row-major f32 array of small integers (exact in f32 sums).
hlo::Literal smallIntegers(std::vector<int64_t> dims, int seed) {
  hlo::Literal result(hlo::Shape::array(PrimitiveType::F32, dims));
  for (int64_t i = 0; i < result.elementCount(); ++i)
    result.set<float>(i, float((i * 7 + seed * 13) % 11) - 5.0f);
  return result;
}

/// [m,k] x [k,n] by the definition.
std::vector<float> naiveMatmul(const hlo::Literal &a, const hlo::Literal &b, int64_t m, int64_t k,
                               int64_t n) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(a.get<float>(i * k + p)) * double(b.get<float>(p * n + j));
      c[i * n + j] = float(sum);
    }
  return c;
}

} // namespace

TEST_CASE("dot of two matrices, worked by hand") {
  hlo::Literal result =
      evaluate(module("  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)",
                      "f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               {literal<float>(PrimitiveType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                literal<float>(PrimitiveType::F32, {3, 2}, {7, 8, 9, 10, 11, 12})});
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
  CHECK(elements<float>(result) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("dot of matrix and vector, vector and vector") {
  hlo::Literal matrix = literal<float>(PrimitiveType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  hlo::Literal vector = literal<float>(PrimitiveType::F32, {3}, {1, -1, 2});
  CHECK(elements<float>(
            evaluate(module("  a = f32[2,3] parameter(0)\n  v = f32[3] parameter(1)",
                            "f32[2] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                     {matrix, vector})) == std::vector<float>{5, 11});
  CHECK(elements<float>(
            evaluate(module("  v = f32[3] parameter(0)\n  w = f32[3] parameter(1)",
                            "f32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {vector, vector})) == std::vector<float>{6});
  // No contracting dimension: an outer product.
  CHECK(elements<float>(evaluate(
            module("  v = f32[3] parameter(0)\n  w = f32[2] parameter(1)", "f32[3,2] dot(v, w)"),
            {vector, literal<float>(PrimitiveType::F32, {2}, {2, 3})})) ==
        std::vector<float>{2, 3, -2, -3, 4, 6});
}

TEST_CASE("dot with batch dimensions and two contracting dimensions") {
  // lhs [b=2, c1=3, m=2, c2=2], rhs [c2=2, b=2, n=3, c1=3]; result [b, m, n].
  hlo::Literal lhs = smallIntegers({2, 3, 2, 2}, 1);
  hlo::Literal rhs = smallIntegers({2, 2, 3, 3}, 2);
  hlo::Literal result =
      evaluate(module("  a = f32[2,3,2,2] parameter(0)\n  b = f32[2,2,3,3] parameter(1)",
                      "f32[2,2,3] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1,3}, "
                      "rhs_batch_dims={1}, rhs_contracting_dims={3,0}"),
               {lhs, rhs});
  std::vector<float> expected;
  for (int b = 0; b < 2; ++b)
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 3; ++n) {
        float sum = 0;
        for (int c1 = 0; c1 < 3; ++c1)
          for (int c2 = 0; c2 < 2; ++c2)
            sum += lhs.get<float>(((b * 3 + c1) * 2 + m) * 2 + c2) *
                   rhs.get<float>(((c2 * 2 + b) * 3 + n) * 3 + c1);
        expected.push_back(sum);
      }
  CHECK(elements<float>(result) == expected);
}

TEST_CASE("dot matches the definition on shapes that hit every kernel edge") {
  // Rows and columns not multiples of the register tile, a narrow result
  // (computed transposed), k and n crossing the cache blocks (256 and 1024),
  // very few rows (streamed without packing) and a matrix-vector product.
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{37, 29, 53},
                                                            {7, 300, 3},
                                                            {1, 64, 1},
                                                            {130, 5, 17},
                                                            {2, 600, 40},
                                                            {8, 300, 1100},
                                                            {3, 70, 100},
                                                            {1, 20, 300}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    hlo::Literal a = smallIntegers({m, k}, 3), b = smallIntegers({k, n}, 4);
    std::string shapes = "  a = f32[" + std::to_string(m) + "," + std::to_string(k) +
                         "] parameter(0)\n  b = f32[" + std::to_string(k) + "," +
                         std::to_string(n) + "] parameter(1)";
    hlo::Literal result =
        evaluate(module(shapes, "f32[" + std::to_string(m) + "," + std::to_string(n) +
                                    "] dot(a, b), lhs_contracting_dims={1}, "
                                    "rhs_contracting_dims={0}"),
                 {a, b});
    CHECK(elements<float>(result) == naiveMatmul(a, b, m, k, n));
  }
}

TEST_CASE("dot accumulates each element in order of the contracting index") {
  // (1e8 + 1) rounds back to 1e8 in f32, so a left-to-right sum is 0; any
  // other association would give 1.
  CHECK(elements<float>(evaluate(
            module("  v = f32[3] parameter(0)\n  w = f32[3] parameter(1)",
                   "f32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
            {literal<float>(PrimitiveType::F32, {3}, {1e8f, 1, -1e8f}),
             literal<float>(PrimitiveType::F32, {3}, {1, 1, 1})})) == std::vector<float>{0});
}

/// [m,k] x [k,n], each element summed from +0 in order of k by fused
/// multiply-adds (what a target with FMA computes).
template <typename T>
std::vector<T> fusedMatmul(const hlo::Literal &a, const hlo::Literal &b, int64_t m, int64_t k,
                           int64_t n) {
  std::vector<T> c(m * n, T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c[i * n + j] = std::fma(a.get<T>(i * k + p), b.get<T>(p * n + j), c[i * n + j]);
  return c;
}

template <typename T>
hlo::Literal randomMatrix(PrimitiveType type, int64_t rows, int64_t columns, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<T> uniform(-1, 1);
  hlo::Literal result(hlo::Shape::array(type, {rows, columns}));
  for (int64_t i = 0; i < result.elementCount(); ++i)
    result.set<T>(i, uniform(random));
  return result;
}

TEST_CASE("with fused arithmetic, each product is added by one fused multiply-add") {
  // 1 * -r + x * x, with x = 1 + 2^-12 and r = x * x rounded (1 + 2^-11):
  // 0 with a rounded product, the rounding error 2^-24 when fused.
  const std::string text =
      module("  v = f32[2] parameter(0)\n  w = f32[2] parameter(1)",
             "f32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  std::vector<hlo::Literal> operands = {
      literal<float>(PrimitiveType::F32, {2}, {1, 1 + 0x1p-12f}),
      literal<float>(PrimitiveType::F32, {2}, {-(1 + 0x1p-11f), 1 + 0x1p-12f})};
  eval::EvaluatorOptions fused;
  fused.contraction.fusedF32 = true;
  CHECK(elements<float>(evaluate(text, operands)) == std::vector<float>{0});
  CHECK(elements<float>(evaluate(text, operands, fused)) == std::vector<float>{0x1p-24f});
  // f64 sums follow their own switch: x = 1 + 2^-27 leaves 2^-54.
  const std::string wide =
      module("  v = f64[2] parameter(0)\n  w = f64[2] parameter(1)",
             "f64[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  std::vector<hlo::Literal> wideOperands = {
      literal<double>(PrimitiveType::F64, {2}, {1, 1 + 0x1p-27}),
      literal<double>(PrimitiveType::F64, {2}, {-(1 + 0x1p-26), 1 + 0x1p-27})};
  CHECK(elements<double>(evaluate(wide, wideOperands, fused)) == std::vector<double>{0});
  fused.contraction.fusedF64 = true;
  CHECK(elements<double>(evaluate(wide, wideOperands, fused)) == std::vector<double>{0x1p-54});
}

TEST_CASE("fused sums match the definition on shapes that hit every kernel edge") {
  eval::EvaluatorOptions fused;
  fused.contraction.fusedF32 = true;
  fused.contraction.fusedF64 = true;
  unsigned seed = 1;
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{
           {37, 29, 53}, {7, 300, 3}, {130, 5, 17}, {2, 600, 40}, {8, 300, 1100}, {1, 20, 300}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    auto shapes = [&](const char *type) {
      return std::string("  a = ") + type + "[" + std::to_string(m) + "," + std::to_string(k) +
             "] parameter(0)\n  b = " + type + "[" + std::to_string(k) + "," + std::to_string(n) +
             "] parameter(1)";
    };
    auto dot = [&](const char *type) {
      return std::string(type) + "[" + std::to_string(m) + "," + std::to_string(n) +
             "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}";
    };
    hlo::Literal a = randomMatrix<float>(PrimitiveType::F32, m, k, seed++);
    hlo::Literal b = randomMatrix<float>(PrimitiveType::F32, k, n, seed++);
    CHECK(elements<float>(evaluate(module(shapes("f32"), dot("f32")), {a, b}, fused)) ==
          fusedMatmul<float>(a, b, m, k, n));
    hlo::Literal a64 = randomMatrix<double>(PrimitiveType::F64, m, k, seed++);
    hlo::Literal b64 = randomMatrix<double>(PrimitiveType::F64, k, n, seed++);
    CHECK(elements<double>(evaluate(module(shapes("f64"), dot("f64")), {a64, b64}, fused)) ==
          fusedMatmul<double>(a64, b64, m, k, n));
  }
}

TEST_CASE("s8 x s8 dot accumulates in s32") {
  hlo::Literal result =
      evaluate(module("  a = s8[2,3] parameter(0)\n  b = s8[3,1] parameter(1)",
                      "s32[2,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               {literal<int8_t>(PrimitiveType::S8, {2, 3}, {127, 127, 127, -128, 1, 2}),
                literal<int8_t>(PrimitiveType::S8, {3, 1}, {127, 127, -1})});
  // 127*127*2 - 127 = 32131; -128*127 + 127 - 2 = -16131.
  CHECK(elements<int32_t>(result) == std::vector<int32_t>{32131, -16131});
  // Mixed widths (s16 x s8 -> s32), as in XLA's DotUpcast test.
  CHECK(elements<int32_t>(evaluate(
            module("  l = s16[2,3] parameter(0)\n  q = s8[3,2] parameter(1)",
                   "s32[2,2] dot(l, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
            {literal<int16_t>(PrimitiveType::S16, {2, 3}, {1, 2, 3, 5, 6, 7}),
             literal<int8_t>(PrimitiveType::S8, {3, 2}, {1, 2, 3, 4, 5, 6})})) ==
        std::vector<int32_t>{22, 28, 58, 76});
}

TEST_CASE("integer dot wraps around in the result type") {
  // 4 * 2^30 = 2^32 wraps to 0 in s32; 3 * 2^30 wraps to -2^30.
  CHECK(elements<int32_t>(evaluate(
            module("  v = s32[4] parameter(0)\n  w = s32[4] parameter(1)",
                   "s32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
            {literal<int32_t>(PrimitiveType::S32, {4}, {1 << 30, 1 << 30, 1 << 30, 1 << 30}),
             literal<int32_t>(PrimitiveType::S32, {4}, {1, 1, 1, 1})})) == std::vector<int32_t>{0});
  CHECK(elements<uint8_t>(
            evaluate(module("  v = u8[2] parameter(0)\n  w = u8[2] parameter(1)",
                            "u8[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {literal<uint8_t>(PrimitiveType::U8, {2}, {16, 200}),
                      literal<uint8_t>(PrimitiveType::U8, {2}, {16, 2})})) ==
        std::vector<uint8_t>{144}); // (256 + 400) mod 256
}

TEST_CASE("bf16 dot accumulates in f32 and rounds once") {
  using hlo::BFloat16;
  auto bf16 = [](std::initializer_list<float> values) {
    hlo::Literal result(hlo::Shape::array(PrimitiveType::BF16, {int64_t(values.size())}));
    int64_t i = 0;
    for (float value : values)
      result.set<BFloat16>(i++, BFloat16(value));
    return result;
  };
  const float tiny = 1.0f / 256; // half an ulp of 1 in bf16
  // In f32: 1 + 2^-8 + 2^-8 = 1 + 2^-7, a bf16 value. Rounding to bf16 after
  // each step would lose both halves (ties to even) and give 1.
  hlo::Literal result =
      evaluate(module("  v = bf16[3] parameter(0)\n  w = bf16[3] parameter(1)",
                      "bf16[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
               {bf16({1, tiny, tiny}), bf16({1, 1, 1})});
  CHECK(halfElements<BFloat16>(result) == std::vector<float>{1.0f + 2 * tiny});
  // bf16 operands with an f32 result keep the f32 sum.
  CHECK(elements<float>(
            evaluate(module("  v = bf16[3] parameter(0)\n  w = bf16[3] parameter(1)",
                            "f32[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {bf16({1, tiny, tiny}), bf16({1, 1, 0.5f})})) ==
        std::vector<float>{1.0f + tiny + tiny / 2});
}

TEST_CASE("dot of f64, c64 and pred") {
  CHECK(elements<double>(
            evaluate(module("  v = f64[2] parameter(0)\n  w = f64[2] parameter(1)",
                            "f64[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {literal<double>(PrimitiveType::F64, {2}, {0.1, 1e-20}),
                      literal<double>(PrimitiveType::F64, {2}, {3, 1})})) ==
        std::vector<double>{0.1 * 3 + 1e-20});
  using C = std::complex<float>;
  // (1+2i)(3-i) + (i)(2i) = 5 + 5i - 2 = 3 + 5i.
  CHECK(elements<C>(
            evaluate(module("  v = c64[2] parameter(0)\n  w = c64[2] parameter(1)",
                            "c64[] dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                     {literal<C>(PrimitiveType::C64, {2}, {C(1, 2), C(0, 1)}),
                      literal<C>(PrimitiveType::C64, {2}, {C(3, -1), C(0, 2)})})) ==
        std::vector<C>{C(3, 5)});
  // pred: an or of ands.
  CHECK(elements<bool>(evaluate(
            module("  a = pred[2,2] parameter(0)\n  b = pred[2,2] parameter(1)",
                   "pred[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
            {literal<bool>(PrimitiveType::Pred, {2, 2}, {true, false, false, false}),
             literal<bool>(PrimitiveType::Pred, {2, 2}, {true, false, true, true})})) ==
        std::vector<bool>{true, false, false, false});
}

TEST_CASE("dot rejects mismatched dimension numbers with an error") {
  std::string error = evaluationError(
      module("  a = f32[2,3] parameter(0)\n  b = f32[4,2] parameter(1)",
             "f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      {smallIntegers({2, 3}, 0), smallIntegers({4, 2}, 0)}, {}, false);
  CHECK(error.find("differ in size") != std::string::npos);
  error = evaluationError(
      module("  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)",
             "f32[2,2] dot(a, b), lhs_contracting_dims={5}, rhs_contracting_dims={0}"),
      {smallIntegers({2, 3}, 0), smallIntegers({3, 2}, 0)}, {}, false);
  CHECK(error.find("out of range") != std::string::npos);
}
