//===- GatherScatterTest.cpp - gather and scatter --------------------------===//
//
// Expected values are worked out by hand from XLA's operation semantics (some
// mirror cases of XLA's own gather/scatter tests).
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string module(const std::string &computations, const std::string &body) {
  return "HloModule m\n" + computations + "ENTRY e {\n" + body + "\n}\n";
}

const char *matrix = "  a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n";

const char *addition = R"(add {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ROOT r = s32[] add(p, q)
}
)";

const char *replace = R"(replace {
  p = s32[] parameter(0)
  ROOT q = s32[] parameter(1)
}
)";

} // namespace

TEST_CASE("gather rows and columns") {
  CHECK(elements<int32_t>(evaluate(module("", std::string(matrix) + R"(  i = s32[2] constant({0, 2})
  ROOT r = s32[2,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3})"))) ==
        std::vector<int32_t>{1, 2, 3, 7, 8, 9});
  CHECK(elements<int32_t>(evaluate(module("", std::string(matrix) + R"(  i = s32[2] constant({0, 2})
  ROOT r = s32[3,2] gather(a, i), offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={3,1})"))) ==
        std::vector<int32_t>{1, 3, 4, 6, 7, 9});
}

TEST_CASE("gather clamps start indices so the slice fits") {
  auto window = [](const std::string &start) {
    return elements<int32_t>(
        evaluate(module("", std::string(matrix) + "  i = s32[1,2] constant({{" + start + R"(}})
  ROOT r = s32[1,2,2] gather(a, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2})")));
  };
  CHECK(window("0, 1") == std::vector<int32_t>{2, 3, 5, 6});
  CHECK(window("2, 2") == std::vector<int32_t>{5, 6, 8, 9});  // clamped to (1, 1)
  CHECK(window("-5, 7") == std::vector<int32_t>{2, 3, 5, 6}); // clamped to (0, 1)
  // u32 indices are never negative; a huge one clamps to the last start.
  CHECK(elements<int32_t>(
            evaluate(module("", std::string(matrix) + R"(  i = u32[1] constant({4294967295})
  ROOT r = s32[1,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3})"))) ==
        std::vector<int32_t>{7, 8, 9});
}

TEST_CASE("gather with index_vector_dim == rank and with a permuted start_index_map") {
  // Each index is a scalar: a one-element vector.
  CHECK(elements<int32_t>(
            evaluate(module("", std::string(matrix) + R"(  i = s32[2,1] constant({{2}, {0}})
  ROOT r = s32[2,1,3] gather(a, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3})"))) ==
        std::vector<int32_t>{7, 8, 9, 1, 2, 3});
  // Vector (column, row) picks single elements: a[2][0] = 7 and a[0][1] = 2.
  CHECK(elements<int32_t>(
            evaluate(module("", std::string(matrix) + R"(  i = s32[2,2] constant({{0, 2}, {1, 0}})
  ROOT r = s32[2] gather(a, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=1, slice_sizes={1,1})"))) ==
        std::vector<int32_t>{7, 2});
}

TEST_CASE("gather with operand batching dimensions") {
  // out[j][b] = a[b][i[j][b]] with the batch on dim 0 of the operand and dim
  // 1 of the indices.
  CHECK(
      elements<int32_t>(evaluate(module("", R"(  a = s32[2,3] constant({{10, 11, 12}, {20, 21, 22}})
  i = s32[2,2] constant({{2, 0}, {1, 1}})
  ROOT r = s32[2,2] gather(a, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={1}, index_vector_dim=2, slice_sizes={1,1})"))) ==
      std::vector<int32_t>{12, 20, 11, 21});
}

TEST_CASE("scatter adds, duplicate indices accumulating") {
  CHECK(elements<int32_t>(
            evaluate(module(addition, std::string(matrix) + R"(  i = s32[3] constant({0, 2, 0})
  u = s32[3,3] constant({{10, 20, 30}, {70, 80, 90}, {1, 1, 1}})
  ROOT r = s32[3,3] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add)"))) ==
        std::vector<int32_t>{12, 23, 34, 4, 5, 6, 77, 88, 99});
}

TEST_CASE("scatter skips windows that do not fit in the operand") {
  // XLA's EvaluateScatter_OobIndices: only (2,1), (1,1) and (1,2) are in bounds.
  hlo::Literal result = evaluate(module(
      replace,
      std::string(matrix) +
          R"(  i = s32[6,2] constant({{2, 7}, {2, 1}, {1, 1}, {5, 1}, {2147483647, 1}, {1, 2}})
  u = s32[6,1,1] constant({{{10}}, {{20}}, {{30}}, {{40}}, {{50}}, {{60}}})
  ROOT r = s32[3,3] scatter(a, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=replace)"));
  CHECK(elements<int32_t>(result) == std::vector<int32_t>{1, 2, 3, 4, 30, 60, 7, 20, 9});
  // A window of 2 starting at 3 in a [4] operand sticks out: the whole window
  // is skipped, although its first element is inside. Negative starts too.
  auto scatterAt = [](const std::string &indices) {
    return elements<int32_t>(evaluate(module(
        replace, "  a = s32[4] constant({0, 0, 0, 0})\n  i = s32[2,1] constant({" + indices + R"(})
  u = s32[2,2] constant({{1, 2}, {3, 4}})
  ROOT r = s32[4] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=replace)")));
  };
  CHECK(scatterAt("{3}, {2}") == std::vector<int32_t>{0, 0, 3, 4});
  CHECK(scatterAt("{-1}, {0}") == std::vector<int32_t>{3, 4, 0, 0});
}

TEST_CASE("scatter applies updates in order through a general combiner") {
  // acc * 10 + update, all three updates to element 1: 5 -> 51 -> 512 -> 5123.
  std::string digits = R"(digits {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ten = s32[] constant(10)
  s = s32[] multiply(p, ten)
  ROOT r = s32[] add(s, q)
}
)";
  CHECK(elements<int32_t>(evaluate(module(digits, R"(  a = s32[3] constant({0, 5, 0})
  i = s32[3] constant({1, 1, 1})
  u = s32[3] constant({1, 2, 3})
  ROOT r = s32[3] scatter(a, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=digits)"))) ==
        std::vector<int32_t>{0, 5123, 0});
}

TEST_CASE("variadic scatter and scatter with batching dimensions") {
  std::string pair = R"(pair {
  p0 = f32[] parameter(0)
  p1 = s32[] parameter(1)
  q0 = f32[] parameter(2)
  q1 = s32[] parameter(3)
  s = f32[] add(p0, q0)
  m = s32[] maximum(p1, q1)
  ROOT r = (f32[], s32[]) tuple(s, m)
}
)";
  hlo::Literal result = evaluate(module(pair, R"(  a = f32[3] constant({1, 2, 3})
  b = s32[3] constant({5, 5, 5})
  i = s32[2] constant({2, 0})
  u = f32[2] constant({10, 20})
  v = s32[2] constant({9, 1})
  ROOT r = (f32[3], s32[3]) scatter(a, b, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=pair)"));
  CHECK(elements<float>(result.element(0)) == std::vector<float>{21, 2, 13});
  CHECK(elements<int32_t>(result.element(1)) == std::vector<int32_t>{5, 5, 9});
  // Batching: batch b writes its update into row b at column i[b].
  CHECK(
      elements<int32_t>(evaluate(module(addition, R"(  a = s32[2,3] constant({{0, 0, 0}, {0, 0, 0}})
  i = s32[2,1] constant({{1}, {2}})
  u = s32[2] constant({5, 7})
  ROOT r = s32[2,3] scatter(a, i, u), update_window_dims={}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add)"))) ==
      std::vector<int32_t>{0, 5, 0, 0, 0, 7});
}

TEST_CASE("gather and scatter report bad dimension numbers") {
  std::string error =
      evaluationError(module("", std::string(matrix) + R"(  i = s32[2] constant({0, 2})
  ROOT r = s32[2,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4})"),
                      {}, {}, false);
  CHECK(error.find("does not fit") != std::string::npos);
}
