//===- ShapeOpsTest.cpp - broadcast, reshape, bitcast, copy, transpose, reverse ===//
//
// Expected values are worked out by hand from XLA's operation semantics.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

using namespace mote;
using namespace mote::eval::test;

namespace {

/// A module whose entry computes `body` (instructions, the last one ROOT) with
/// `a` = the given constant.
std::string withConstant(const std::string &type, const std::string &value,
                         const std::string &root) {
  return "HloModule m\nENTRY e {\n  a = " + type + " constant(" + value + ")\n  ROOT r = " + root +
         "\n}\n";
}

const char *kMatrix = "{{1, 2, 3}, {4, 5, 6}}";

} // namespace

TEST_CASE("broadcast maps operand dimensions into the result") {
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[]", "7", "s32[2,2] broadcast(a), dimensions={}"))) ==
        std::vector<int32_t>{7, 7, 7, 7});
  CHECK(elements<int32_t>(evaluate(
            withConstant("s32[3]", "{1, 2, 3}", "s32[2,3] broadcast(a), dimensions={1}"))) ==
        std::vector<int32_t>{1, 2, 3, 1, 2, 3});
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[2]", "{1, 2}", "s32[2,3] broadcast(a), dimensions={0}"))) ==
        std::vector<int32_t>{1, 1, 1, 2, 2, 2});
  // [2,3] into [2,4,3]: result[i][k][j] = a[i][j].
  auto r3 = elements<int32_t>(
      evaluate(withConstant("s32[2,3]", kMatrix, "s32[2,4,3] broadcast(a), dimensions={0,2}")));
  REQUIRE(r3.size() == 24);
  CHECK(r3[0 * 12 + 0 * 3 + 2] == 3);
  CHECK(r3[1 * 12 + 3 * 3 + 0] == 4);
  CHECK(r3[1 * 12 + 2 * 3 + 1] == 5);
  CHECK(evaluate(withConstant("f32[3]", "{1, 2, 3}", "f32[0,3] broadcast(a), dimensions={1}"))
            .elementCount() == 0);
}

TEST_CASE("reshape keeps row-major order") {
  CHECK(elements<int32_t>(evaluate(withConstant("s32[2,3]", kMatrix, "s32[3,2] reshape(a)"))) ==
        std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  auto scalar = evaluate(withConstant("f32[1,1]", "{{2.5}}", "f32[] reshape(a)"));
  CHECK(scalar.shape().isScalar());
  CHECK(elements<float>(scalar) == std::vector<float>{2.5f});
  CHECK(evaluate(withConstant("s32[0,3]", "{}", "s32[3,0] reshape(a)")).elementCount() == 0);
}

TEST_CASE("transpose permutes dimensions") {
  CHECK(elements<int32_t>(evaluate(
            withConstant("s32[2,3]", kMatrix, "s32[3,2] transpose(a), dimensions={1,0}"))) ==
        std::vector<int32_t>{1, 4, 2, 5, 3, 6});
  // a[i][j][k] = 100i + 10j + k; result dims {2,0,1}: result[k][i][j] = a[i][j][k].
  const char *cube = "{{{0, 1, 2, 3}, {10, 11, 12, 13}, {20, 21, 22, 23}}, "
                     "{{100, 101, 102, 103}, {110, 111, 112, 113}, {120, 121, 122, 123}}}";
  auto r = elements<int32_t>(
      evaluate(withConstant("s32[2,3,4]", cube, "s32[4,2,3] transpose(a), dimensions={2,0,1}")));
  REQUIRE(r.size() == 24);
  CHECK(r[0] == 0);
  CHECK(r[(3 * 2 + 1) * 3 + 2] == 123); // k=3, i=1, j=2
  CHECK(r[(1 * 2 + 0) * 3 + 2] == 21);  // k=1, i=0, j=2
  CHECK(r[(2 * 2 + 1) * 3 + 0] == 102); // k=2, i=1, j=0
}

TEST_CASE("reverse along chosen dimensions") {
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[2,3]", kMatrix, "s32[2,3] reverse(a), dimensions={1}"))) ==
        std::vector<int32_t>{3, 2, 1, 6, 5, 4});
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[2,3]", kMatrix, "s32[2,3] reverse(a), dimensions={0,1}"))) ==
        std::vector<int32_t>{6, 5, 4, 3, 2, 1});
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[2,3]", kMatrix, "s32[2,3] reverse(a), dimensions={}"))) ==
        std::vector<int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("copy keeps the logical value whatever the layout") {
  CHECK(elements<int32_t>(
            evaluate(withConstant("s32[2,3]{1,0}", kMatrix, "s32[2,3]{0,1} copy(a)"))) ==
        std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  const char *tuple = R"(HloModule m
ENTRY e {
  a = s32[2] constant({1, 2})
  b = f32[] constant(3)
  inner = (f32[]) tuple(b)
  t = (s32[2], (f32[])) tuple(a, inner)
  ROOT c = (s32[2], (f32[])) copy(t)
})";
  auto result = evaluate(tuple);
  REQUIRE(result.tupleSize() == 2);
  CHECK(elements<int32_t>(result.element(0)) == std::vector<int32_t>{1, 2});
  CHECK(elements<float>(result.element(1).element(0)) == std::vector<float>{3});
}

TEST_CASE("bitcast reinterprets the physical buffer through both layouts") {
  // Default layouts: a bitcast is a reshape.
  CHECK(elements<int32_t>(evaluate(withConstant("s32[2,3]", kMatrix, "s32[6] bitcast(a)"))) ==
        std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  // Column-major operand: memory holds 1 4 2 5 3 6.
  CHECK(
      elements<int32_t>(evaluate(withConstant("s32[2,3]{0,1}", kMatrix, "s32[6]{0} bitcast(a)"))) ==
      std::vector<int32_t>{1, 4, 2, 5, 3, 6});
  // Memory 1..6 read as a column-major [2,3]: element (i, j) is at 2j + i.
  CHECK(elements<int32_t>(evaluate(withConstant("s32[3,2]{1,0}", "{{1, 2}, {3, 4}, {5, 6}}",
                                                "s32[2,3]{0,1} bitcast(a)"))) ==
        std::vector<int32_t>{1, 3, 5, 2, 4, 6});
}

TEST_CASE("shape ops reject attributes that do not fit") {
  std::string error = evaluationError(
      withConstant("s32[2,3]", kMatrix, "s32[3,2] transpose(a), dimensions={0,0}"), {}, {}, false);
  CHECK(error.find("permutation") != std::string::npos);
  error = evaluationError(
      withConstant("s32[3]", "{1, 2, 3}", "s32[2,4] broadcast(a), dimensions={1}"), {}, {}, false);
  CHECK(error.find("broadcast dimension") != std::string::npos);
}

TEST_CASE("large transposes (walked in tiles) move every element") {
  // a[i][j] = 100 i + j via two iotas; the transpose must give t[j][i] = a[i][j].
  const char *matrix = R"(HloModule m
ENTRY e {
  i = s32[40,33] iota(), iota_dimension=0
  j = s32[40,33] iota(), iota_dimension=1
  h = s32[] constant(100)
  hb = s32[40,33] broadcast(h), dimensions={}
  ih = s32[40,33] multiply(i, hb)
  a = s32[40,33] add(ih, j)
  ROOT t = s32[33,40] transpose(a), dimensions={1,0}
})";
  auto t = elements<int32_t>(evaluate(matrix));
  REQUIRE(t.size() == 40 * 33);
  int wrong = 0;
  for (int j = 0; j < 33; ++j)
    for (int i = 0; i < 40; ++i)
      wrong += t[j * 40 + i] != 100 * i + j;
  CHECK(wrong == 0);

  // A batch dimension in front: b[k][i][j] = 10000 k + 100 i + j, dims {0,2,1}.
  const char *batched = R"(HloModule m
ENTRY e {
  k = s32[3,40,35] iota(), iota_dimension=0
  i = s32[3,40,35] iota(), iota_dimension=1
  j = s32[3,40,35] iota(), iota_dimension=2
  c1 = s32[] constant(10000)
  c2 = s32[] constant(100)
  b1 = s32[3,40,35] broadcast(c1), dimensions={}
  b2 = s32[3,40,35] broadcast(c2), dimensions={}
  kk = s32[3,40,35] multiply(k, b1)
  ii = s32[3,40,35] multiply(i, b2)
  s = s32[3,40,35] add(kk, ii)
  b = s32[3,40,35] add(s, j)
  ROOT t = s32[3,35,40] transpose(b), dimensions={0,2,1}
})";
  auto u = elements<int32_t>(evaluate(batched));
  REQUIRE(u.size() == 3 * 40 * 35);
  wrong = 0;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 35; ++j)
      for (int i = 0; i < 40; ++i)
        wrong += u[(k * 35 + j) * 40 + i] != 10000 * k + 100 * i + j;
  CHECK(wrong == 0);
}
