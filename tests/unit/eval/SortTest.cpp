//===- SortTest.cpp - sort, topk and the TopK custom-call ------------------===//
//
// Expected values are worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include <cmath>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string module(const std::string &computations, const std::string &body) {
  return "HloModule m\n" + computations + "ENTRY e {\n" + body + "\n}\n";
}

/// compare(p<lhs>, p<rhs>) over `count` operands of `types`.
std::string comparator(const std::vector<std::string> &types, int lhs, int rhs,
                       const std::string &direction, const std::string &type = "") {
  std::string text = "less {\n";
  for (size_t i = 0; i < 2 * types.size(); ++i)
    text += "  p" + std::to_string(i) + " = " + types[i / 2] + "[] parameter(" + std::to_string(i) +
            ")\n";
  text += "  ROOT r = pred[] compare(p" + std::to_string(lhs) + ", p" + std::to_string(rhs) +
          "), direction=" + direction + (type.empty() ? "" : ", type=" + type) + "\n}\n";
  return text;
}

} // namespace

TEST_CASE("sort floats ascending and descending") {
  CHECK(elements<float>(evaluate(
            module(comparator({"f32"}, 0, 1, "LT"), R"(  a = f32[5] constant({3, 1, 2, -7, 0.5})
  ROOT r = f32[5] sort(a), dimensions={0}, to_apply=less)"))) ==
        std::vector<float>{-7, 0.5f, 1, 2, 3});
  // compare(p1, p0) LT is a descending order.
  CHECK(elements<float>(evaluate(
            module(comparator({"f32"}, 1, 0, "LT"), R"(  a = f32[5] constant({3, 1, 2, -7, 0.5})
  ROOT r = f32[5] sort(a), dimensions={0}, to_apply=less)"))) ==
        std::vector<float>{3, 2, 1, 0.5f, -7});
}

TEST_CASE("sort with a total order places NaNs and signed zeros") {
  hlo::Literal result = evaluate(module(comparator({"f32"}, 0, 1, "LT", "TOTALORDER"),
                                        R"(  a = f32[7] constant({3, nan, -inf, 0, -0, -nan, 1})
  ROOT r = f32[7] sort(a), dimensions={0}, to_apply=less)"));
  std::vector<float> values = elements<float>(result);
  REQUIRE(values.size() == 7);
  CHECK((std::isnan(values[0]) && std::signbit(values[0])));
  CHECK(values[1] == -INFINITY);
  CHECK(bitsOf(values[2]) == bitsOf(-0.0f));
  CHECK(bitsOf(values[3]) == bitsOf(0.0f));
  CHECK(values[4] == 1);
  CHECK(values[5] == 3);
  CHECK((std::isnan(values[6]) && !std::signbit(values[6])));
}

TEST_CASE("sort several operands by one key, stably") {
  // Keys [3, 1, 2, 1]: the two 1s keep their order (indices 1 then 3).
  hlo::Literal result =
      evaluate(module(comparator({"f32", "s32"}, 0, 1, "LT"), R"(  k = f32[4] constant({3, 1, 2, 1})
  v = s32[4] iota(), iota_dimension=0
  ROOT r = (f32[4], s32[4]) sort(k, v), dimensions={0}, is_stable=true, to_apply=less)"));
  CHECK(elements<float>(result.element(0)) == std::vector<float>{1, 1, 2, 3});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{1, 3, 2, 0});
  // Descending on the second operand, ties stay in order.
  result = evaluate(
      module(comparator({"s32", "s32"}, 2, 3, "GT"), R"(  a = s32[4] iota(), iota_dimension=0
  b = s32[4] constant({1, 2, 1, 2})
  ROOT r = (s32[4], s32[4]) sort(a, b), dimensions={0}, to_apply=less)"));
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{1, 3, 0, 2});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{2, 2, 1, 1});
}

TEST_CASE("sort along the outer dimension and with unsigned comparisons") {
  CHECK(elements<int32_t>(evaluate(module(comparator({"s32"}, 0, 1, "LT"),
                                          R"(  a = s32[3,2] constant({{5, 0}, {1, 9}, {3, 4}})
  ROOT r = s32[3,2] sort(a), dimensions={0}, to_apply=less)"))) ==
        std::vector<int32_t>{1, 0, 3, 4, 5, 9});
  CHECK(elements<uint32_t>(evaluate(module(comparator({"u32"}, 0, 1, "GT", "UNSIGNED"),
                                           R"(  a = u32[3] constant({4294967295, 1, 0})
  ROOT r = u32[3] sort(a), dimensions={0}, to_apply=less)"))) ==
        std::vector<uint32_t>{4294967295u, 1, 0});
}

TEST_CASE("sort with a general comparator") {
  // By absolute value, through the evaluator.
  std::string byMagnitude = R"(less {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  a0 = f32[] abs(p0)
  a1 = f32[] abs(p1)
  ROOT r = pred[] compare(a0, a1), direction=LT
}
)";
  CHECK(elements<float>(
            evaluate(module(byMagnitude, R"(  a = f32[2,3] constant({{-3, 1, -2}, {6, -5, 4}})
  ROOT r = f32[2,3] sort(a), dimensions={1}, to_apply=less)"))) ==
        std::vector<float>{1, -2, -3, 4, -5, 6});
}

TEST_CASE("topk picks the largest with ties to the lower index") {
  hlo::Literal result =
      evaluate(module("", R"(  a = f32[2,4] constant({{1, 3, 3, 2}, {-1, nan, 7, -inf}})
  ROOT r = (f32[2,3], s32[2,3]) topk(a), k=3, largest=true)"));
  std::vector<float> values = elements<float>(result.element(0));
  CHECK(std::vector<float>(values.begin(), values.begin() + 3) == std::vector<float>{3, 3, 2});
  CHECK(std::isnan(values[3])); // NaN ranks above every number
  CHECK(values[4] == 7);
  CHECK(values[5] == -1);
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{1, 2, 3, 1, 2, 0});
  // Smallest first.
  result = evaluate(module("", R"(  a = s32[4] constant({4, 1, 1, 3})
  ROOT r = (s32[2], s32[2]) topk(a), k=2, largest=false)"));
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{1, 1});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{1, 2});
}

TEST_CASE("the TopK custom-call takes k from its result shape") {
  hlo::Literal result =
      evaluate(module("", R"(  a = f32[2,5] constant({{98, 21, 67, 27, 98}, {65, 68, 49, 3, 9}})
  ROOT r = (f32[2,2], s32[2,2]) custom-call(a), custom_call_target="TopK")"));
  CHECK(elements<float>(result.element(0)) == std::vector<float>{98, 98, 68, 65});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{0, 4, 1, 0});
}

TEST_CASE("sort and topk report bad operands") {
  std::string error =
      evaluationError(module(comparator({"f32"}, 0, 1, "LT"), R"(  a = f32[3] constant({1, 2, 3})
  ROOT r = (f32[4], s32[4]) topk(a), k=4, largest=true)"),
                      {}, {}, false);
  CHECK(error.find("k = 4") != std::string::npos);
}
