//===- BatchNormTest.cpp - batch-norm-training, -inference, -grad ----------===//
//
// Expected values are worked out by hand from the formulas of XLA's
// BatchNormExpander on a [2, 2] operand (feature index 1: features are the
// columns, two elements each) and a [2, 1, 2] one (feature index 0).
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include <cmath>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string module(const std::string &body) { return "HloModule m\nENTRY e {\n" + body + "\n}\n"; }

bool near(const std::vector<float> &a, const std::vector<float> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= 1e-5f * std::max(1.0f, std::abs(b[i]))))
      return false;
  return true;
}

} // namespace

TEST_CASE("batch-norm-training normalises each feature") {
  // Column 0 = [1, 3]: mean 2, var (1 + 9) / 2 - 4 = 1. Column 1 = [2, 6]:
  // mean 4, var (4 + 36) / 2 - 16 = 4. With epsilon 0 the normalised values
  // are -1 and 1; scale [2, 3] and offset [10, 20] give [8, 12] and [17, 23].
  hlo::Literal result = evaluate(module(R"(  x = f32[2,2] constant({{1, 2}, {3, 6}})
  s = f32[2] constant({2, 3})
  o = f32[2] constant({10, 20})
  ROOT r = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1)"));
  CHECK(near(elements<float>(result.element(0)), {8, 17, 12, 23}));
  CHECK(near(elements<float>(result.element(1)), {2, 4}));
  CHECK(near(elements<float>(result.element(2)), {1, 4}));
}

TEST_CASE("batch-norm-training with epsilon and feature index 0") {
  // Feature 0 = [0, 4] (mean 2, var 4), feature 1 = [1, 1] (mean 1, var 0).
  // epsilon = 5: feature 0 scales by 1/3, feature 1 by 1/sqrt(5) (of zero).
  hlo::Literal result = evaluate(module(R"(  x = f32[2,1,2] constant({{{0, 4}}, {{1, 1}}})
  s = f32[2] constant({1, 1})
  o = f32[2] constant({0, 0})
  ROOT r = (f32[2,1,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=5, feature_index=0)"));
  CHECK(near(elements<float>(result.element(0)), {-2.0f / 3, 2.0f / 3, 0, 0}));
  CHECK(near(elements<float>(result.element(1)), {2, 1}));
  CHECK(near(elements<float>(result.element(2)), {4, 0}));
}

TEST_CASE("batch-norm-inference uses the given mean and variance") {
  // (x - mean) / sqrt(var + eps) * scale + offset with mean [1, 2], var
  // [3, 15], eps 1: column 0 divides by 2, column 1 by 4.
  CHECK(near(elements<float>(evaluate(module(R"(  x = f32[2,2] constant({{1, 2}, {5, 10}})
  s = f32[2] constant({2, 1})
  o = f32[2] constant({0, 1})
  m = f32[2] constant({1, 2})
  v = f32[2] constant({3, 15})
  ROOT r = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=1, feature_index=1)"))),
             {0, 1, 4, 3}));
}

TEST_CASE("batch-norm-grad") {
  // One feature: x = [0, 1, 5] (mean 2, var (0 + 1 + 25) / 3 - 4 = 14/3),
  // dy = [1, 0, 0], scale 1, eps 1/3 so that var + eps = 5:
  //   grad_offset = 1; sum(dy (x - 2)) = -2; grad_scale = -2 / sqrt(5);
  //   dx = 1 / sqrt(5) / 3 * (3 dy - 1 - (x - 2) * (-2) / 5)
  //      = [3 - 1 - 0.8, 0 - 1 - 0.4, 0 - 1 + 1.2] / (3 sqrt(5)).
  hlo::Literal result = evaluate(module(R"(  x = f32[3,1] constant({{0}, {1}, {5}})
  s = f32[1] constant({1})
  m = f32[1] constant({2})
  v = f32[1] constant({4.66666651})
  dy = f32[3,1] constant({{1}, {0}, {0}})
  ROOT r = (f32[3,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), epsilon=0.333333343, feature_index=1)"));
  const float k = 1.0f / (3 * std::sqrt(5.0f));
  CHECK(near(elements<float>(result.element(0)), {1.2f * k, -1.4f * k, 0.2f * k}));
  CHECK(near(elements<float>(result.element(1)), {-2 / std::sqrt(5.0f)}));
  CHECK(near(elements<float>(result.element(2)), {1}));
}
