//===- SliceOpsTest.cpp - slice, dynamic slices, concatenate, pad ----------===//
//
// Expected values are worked out by hand from XLA's operation semantics.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string module(const std::string &body) { return "HloModule m\nENTRY e {\n" + body + "\n}\n"; }

} // namespace

TEST_CASE("slice with strides and empty ranges") {
  CHECK(elements<int32_t>(evaluate(module(R"(  a = s32[10] iota(), iota_dimension=0
  ROOT r = s32[3] slice(a), slice={[1:8:3]})"))) == std::vector<int32_t>{1, 4, 7});
  CHECK(elements<int32_t>(
            evaluate(module(R"(  a = s32[3,4] constant({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}})
  ROOT r = s32[2,2] slice(a), slice={[1:3], [0:4:2]})"))) == std::vector<int32_t>{4, 6, 8, 10});
  CHECK(evaluate(module(R"(  a = s32[4] constant({1, 2, 3, 4})
  ROOT r = s32[0] slice(a), slice={[2:2]})"))
            .elementCount() == 0);
  std::string error = evaluationError(module(R"(  a = s32[4] constant({1, 2, 3, 4})
  ROOT r = s32[2] slice(a), slice={[3:5]})"),
                                      {}, {}, false);
  CHECK(error.find("does not fit") != std::string::npos);
}

TEST_CASE("dynamic-slice clamps start indices into range") {
  auto slice = [](const std::string &starts, const std::string &type = "s32") {
    return elements<int32_t>(
        evaluate(module(R"(  a = s32[3,4] constant({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}})
  i = )" + type + R"([] constant()" +
                        starts.substr(0, starts.find(',')) + R"()
  j = )" + type + R"([] constant()" +
                        starts.substr(starts.find(',') + 1) + R"()
  ROOT r = s32[2,2] dynamic-slice(a, i, j), dynamic_slice_sizes={2,2})")));
  };
  CHECK(slice("1,1") == std::vector<int32_t>{5, 6, 9, 10});
  // Row start 5 clamps to 3 - 2 = 1, column start 9 to 4 - 2 = 2.
  CHECK(slice("5,9") == std::vector<int32_t>{6, 7, 10, 11});
  CHECK(slice("-3,-1") == std::vector<int32_t>{0, 1, 4, 5});
  // Unsigned indices are never negative: 4294967295 clamps to the last start.
  CHECK(slice("4294967295,0", "u32") == std::vector<int32_t>{4, 5, 8, 9});
  // Older HLO passes the starts as one rank-1 array.
  CHECK(elements<int32_t>(evaluate(module(R"(  a = s32[5] constant({0, 1, 2, 3, 4})
  s = s32[1] constant({4})
  ROOT r = s32[3] dynamic-slice(a, s), dynamic_slice_sizes={3})"))) ==
        std::vector<int32_t>{2, 3, 4});
}

TEST_CASE("dynamic-update-slice clamps the update into the operand") {
  auto update = [](int row, int column) {
    return elements<int32_t>(
        evaluate(module(R"(  a = s32[3,3] constant({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}})
  u = s32[2,2] constant({{1, 2}, {3, 4}})
  i = s32[] constant()" +
                        std::to_string(row) + R"()
  j = s32[] constant()" +
                        std::to_string(column) + R"()
  ROOT r = s32[3,3] dynamic-update-slice(a, u, i, j))")));
  };
  CHECK(update(0, 1) == std::vector<int32_t>{0, 1, 2, 0, 3, 4, 0, 0, 0});
  CHECK(update(7, -4) == std::vector<int32_t>{0, 0, 0, 1, 2, 0, 3, 4, 0});
  CHECK(update(1, 1) == std::vector<int32_t>{0, 0, 0, 0, 1, 2, 0, 3, 4});
}

TEST_CASE("concatenate along any dimension, zero-size operands included") {
  CHECK(elements<int32_t>(evaluate(module(R"(  a = s32[1,2] constant({{1, 2}})
  b = s32[2,2] constant({{3, 4}, {5, 6}})
  ROOT r = s32[3,2] concatenate(a, b), dimensions={0})"))) ==
        std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  CHECK(elements<int32_t>(evaluate(module(R"(  a = s32[2,1] constant({{1}, {2}})
  z = s32[2,0] constant({{}, {}})
  b = s32[2,2] constant({{3, 4}, {5, 6}})
  ROOT r = s32[2,3] concatenate(a, z, b), dimensions={1})"))) ==
        std::vector<int32_t>{1, 3, 4, 2, 5, 6});
}

TEST_CASE("pad with low, high, interior and negative padding") {
  auto pad = [](const std::string &config, const std::string &resultDims) {
    return elements<int32_t>(evaluate(module(R"(  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = s32[] constant(0)
  ROOT r = s32)" + resultDims + R"( pad(a, z), padding=)" +
                                             config)));
  };
  CHECK(pad("1_0x0_1", "[3,4]") == std::vector<int32_t>{0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0});
  CHECK(pad("0_0x0_0_1", "[2,5]") == std::vector<int32_t>{1, 0, 2, 0, 3, 4, 0, 5, 0, 6});
  // Negative low padding drops the first column; negative high drops row 1.
  CHECK(pad("0_-1x-1_0", "[1,2]") == std::vector<int32_t>{2, 3});
  // Interior then negative edges: 1 0 2 0 3 with one element cut from each end.
  CHECK(pad("0_0x-1_-1_1", "[2,3]") == std::vector<int32_t>{0, 2, 0, 0, 5, 0});
  CHECK(elements<float>(evaluate(module(R"(  a = f32[0] constant({})
  v = f32[] constant(-1.5)
  ROOT r = f32[3] pad(a, v), padding=1_2)"))) == std::vector<float>{-1.5f, -1.5f, -1.5f});
}
