//===- PaddedInputConvolutionTest.cpp - Boxes of padded-input convolutions -===//

#include "PassTestUtil.h"

#include "passes/PaddedInputConvolution.h"

namespace mote::passes::test {
namespace {

bool sameRuns(const std::vector<WindowRun> &runs,
              std::initializer_list<std::array<int64_t, 4>> expected) {
  if (runs.size() != expected.size())
    return false;
  size_t i = 0;
  for (const std::array<int64_t, 4> &run : expected) {
    const WindowRun &got = runs[i++];
    if (got.outBegin != run[0] || got.outEnd != run[1] || got.tapBegin != run[2] ||
        got.tapEnd != run[3])
      return false;
  }
  return true;
}

TEST_CASE("window runs: edges read fewer taps, the interior all of them") {
  // DS-CNN's depthwise layers: 3 taps, padding 1 on each side of 25 rows.
  CHECK(sameRuns(windowRuns(25, 25, 3, 1, 1, 1), {{0, 1, 1, 3}, {1, 24, 0, 3}, {24, 25, 0, 2}}));
  // Its first layer's rows: 10 taps, stride 2, padding 4 and 5 around 49.
  CHECK(sameRuns(windowRuns(49, 25, 10, 2, 1, 4), {{0, 1, 4, 10},
                                                   {1, 2, 2, 10},
                                                   {2, 22, 0, 10},
                                                   {22, 23, 0, 9},
                                                   {23, 24, 0, 7},
                                                   {24, 25, 0, 5}}));
  // Dilation 2: tap t reads o + 2t - 2 of 4, so outputs 0 and 1 skip tap 0,
  // outputs 2 and 3 tap 2.
  CHECK(sameRuns(windowRuns(4, 4, 3, 1, 2, 2), {{0, 2, 1, 3}, {2, 4, 0, 2}}));
  // Padding only on the high side.
  CHECK(sameRuns(windowRuns(6, 6, 3, 1, 1, 0), {{0, 4, 0, 3}, {4, 5, 0, 2}, {5, 6, 0, 1}}));
  // An output reading only padding has no box.
  CHECK(windowRuns(3, 8, 2, 1, 1, 3).empty());
}

TEST_CASE("skipped taps add the pad value times their weights, per output feature") {
  auto module = load(R"(
HloModule m
ENTRY main {
  x = s8[1,4,4,2] parameter(0)
  zp = s8[] constant(-3)
  p = s8[1,6,6,2] pad(x, zp), padding=0_0x1_1x1_1x0_0
  w = s8[3,3,1,2] constant({{{{1, 10}}, {{2, 20}}, {{3, 30}}}, {{{4, 40}}, {{5, 50}}, {{6, 60}}}, {{{7, 70}}, {{8, 80}}, {{9, 90}}}})
  ROOT c = s32[1,4,4,2] convolution(p, w), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2
}
)");
  const hlo::Instruction *convolution = module->entry()->root();
  const hlo::Instruction &pad = *convolution->operand(0);
  const hlo::Literal &weights = *convolution->operand(1)->attributes().literal;
  const hlo::Literal &zero = *pad.operand(1)->attributes().literal;
  CHECK(readsPaddedInputInPlace(*convolution, pad, &zero, &weights));
  // A nonzero pad value needs the weights.
  CHECK_FALSE(readsPaddedInputInPlace(*convolution, pad, &zero, nullptr));
  // The top-left box: row 0 and column 0 of the window skipped (1+2+3+4+7 = 17).
  std::vector<int64_t> corner =
      skippedTapSums(*convolution, weights, -3, {{0, 1, 1, 3}, {0, 1, 1, 3}});
  CHECK(corner == std::vector<int64_t>{-51, -510});
  // The interior skips nothing.
  CHECK(skippedTapSums(*convolution, weights, -3, {{1, 3, 0, 3}, {1, 3, 0, 3}}) ==
        std::vector<int64_t>{0, 0});
  // The same taps as offsets into the kernel (2 output features a tap):
  // row 0, then column 0 of rows 1 and 2.
  CHECK(skippedTaps(*convolution, {{0, 1, 1, 3}, {0, 1, 1, 3}}) ==
        std::vector<int64_t>{0, 2, 4, 6, 12});
  // The bottom edge skips row 2 only.
  CHECK(skippedTaps(*convolution, {{3, 4, 0, 2}, {1, 3, 0, 3}}) ==
        std::vector<int64_t>{12, 14, 16});
  CHECK(skippedTaps(*convolution, {{1, 3, 0, 3}, {1, 3, 0, 3}}).empty());
}

} // namespace
} // namespace mote::passes::test
