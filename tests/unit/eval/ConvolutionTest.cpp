//===- ConvolutionTest.cpp - convolution -----------------------------------===//
//
// A few 1-D cases are worked out by hand; the rest compare against a direct
// loop written here from XLA's definition (output by output, window position
// by window position, no patches or packing), on small integers so f32 sums
// are exact.
//
//===----------------------------------------------------------------------===//

#include "EvaluateText.h"

#include "hlo/FloatTypes.h"

#include <functional>

using namespace mote;
using namespace mote::eval::test;
using hlo::PrimitiveType;

namespace {

std::string shapeText(const std::string &type, const std::vector<int64_t> &dims) {
  std::string text = type + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

/// One convolution: operands given in their own dimension orders.
struct Case {
  std::string labels; ///< e.g. "b01f_01io->b01f"
  std::vector<int64_t> input, kernel, output;
  std::string window; ///< e.g. "size=3x3 stride=2x1 pad=1_1x0_2"
  int64_t featureGroups = 1, batchGroups = 1;
  // Per spatial dim (in label order): stride, pads, dilations, reversal.
  std::vector<int64_t> stride, padLow, lhsDilation, rhsDilation;
  std::vector<bool> reversal;
};

/// Positions of the label characters: batch/feature/spatial of each operand.
struct Labels {
  int64_t inBatch, inFeature, kIn, kOut, outBatch, outFeature;
  std::vector<int64_t> inSpatial, kSpatial, outSpatial;
};

Labels parseLabels(const std::string &text) {
  Labels l;
  std::string in = text.substr(0, text.find('_'));
  std::string k = text.substr(text.find('_') + 1, text.find("->") - text.find('_') - 1);
  std::string out = text.substr(text.find("->") + 2);
  size_t spatial = in.size() - 2;
  l.inSpatial.resize(spatial);
  l.kSpatial.resize(spatial);
  l.outSpatial.resize(spatial);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 'b')
      l.inBatch = i;
    else if (in[i] == 'f')
      l.inFeature = i;
    else
      l.inSpatial[in[i] - '0'] = i;
    if (k[i] == 'i')
      l.kIn = i;
    else if (k[i] == 'o')
      l.kOut = i;
    else
      l.kSpatial[k[i] - '0'] = i;
    if (out[i] == 'b')
      l.outBatch = i;
    else if (out[i] == 'f')
      l.outFeature = i;
    else
      l.outSpatial[out[i] - '0'] = i;
  }
  return l;
}

int64_t linear(const std::vector<int64_t> &dims, const std::vector<int64_t> &index) {
  int64_t result = 0;
  for (size_t d = 0; d < dims.size(); ++d)
    result = result * dims[d] + index[d];
  return result;
}

/// The definition: out[b, o, s] = sum over window positions w and kernel
/// input features i of lhs[batch, feature, s * stride + w * rhs_dilation -
/// pad_low (when it lands on an lhs_dilation multiple inside the input)] *
/// rhs[i, o, w (reversed where asked)].
std::vector<double> reference(const Case &c, const hlo::Literal &lhs, const hlo::Literal &rhs) {
  Labels l = parseLabels(c.labels);
  const size_t spatial = l.inSpatial.size();
  const int64_t kIn = c.kernel[l.kIn], cOut = c.kernel[l.kOut];
  const int64_t outBatch = c.output[l.outBatch];
  std::vector<double> out;
  std::vector<int64_t> o(c.output.size(), 0);
  std::function<void(size_t)> walk = [&](size_t d) {
    if (d < c.output.size()) {
      for (o[d] = 0; o[d] < c.output[d]; ++o[d])
        walk(d + 1);
      return;
    }
    const int64_t b = o[l.outBatch], f = o[l.outFeature];
    const int64_t featureGroup = f / (cOut / c.featureGroups);
    const int64_t batchGroup = f / (cOut / c.batchGroups);
    double sum = 0;
    std::vector<int64_t> w(spatial, 0);
    std::function<void(size_t)> window = [&](size_t s) {
      if (s < spatial) {
        for (w[s] = 0; w[s] < c.kernel[l.kSpatial[s]]; ++w[s])
          window(s + 1);
        return;
      }
      std::vector<int64_t> lhsIndex(c.input.size()), rhsIndex(c.kernel.size());
      for (size_t d = 0; d < spatial; ++d) {
        int64_t position = o[l.outSpatial[d]] * c.stride[d] + w[d] * c.rhsDilation[d] - c.padLow[d];
        if (position < 0 || position % c.lhsDilation[d] != 0 ||
            position / c.lhsDilation[d] >= c.input[l.inSpatial[d]])
          return;
        lhsIndex[l.inSpatial[d]] = position / c.lhsDilation[d];
        int64_t size = c.kernel[l.kSpatial[d]];
        rhsIndex[l.kSpatial[d]] = c.reversal[d] ? size - 1 - w[d] : w[d];
      }
      for (int64_t i = 0; i < kIn; ++i) {
        lhsIndex[l.inBatch] = batchGroup * outBatch + b;
        lhsIndex[l.inFeature] = featureGroup * kIn + i;
        rhsIndex[l.kIn] = i;
        rhsIndex[l.kOut] = f;
        sum += lhs.getAsDouble(linear(c.input, lhsIndex)) *
               rhs.getAsDouble(linear(c.kernel, rhsIndex));
      }
    };
    window(0);
    out.push_back(sum);
  };
  walk(0);
  return out;
}

hlo::Literal smallIntegers(PrimitiveType type, const std::vector<int64_t> &dims, int seed) {
  hlo::Literal result(hlo::Shape::array(type, dims));
  for (int64_t i = 0; i < result.elementCount(); ++i)
    result.setFromDouble(i, double((i * 5 + seed * 3) % 7) - 3.0);
  return result;
}

void checkAgainstReference(Case c, PrimitiveType type = PrimitiveType::F32,
                           PrimitiveType resultType = PrimitiveType::F32) {
  const size_t spatial = c.input.size() - 2;
  auto fill = [&](std::vector<int64_t> &v, int64_t value) {
    if (v.empty())
      v.assign(spatial, value);
  };
  fill(c.stride, 1);
  fill(c.padLow, 0);
  fill(c.lhsDilation, 1);
  fill(c.rhsDilation, 1);
  if (c.reversal.empty())
    c.reversal.assign(spatial, false);
  std::string name = hlo::primitiveTypeName(type).str();
  std::string text =
      "HloModule m\nENTRY e {\n  a = " + shapeText(name, c.input) +
      " parameter(0)\n  k = " + shapeText(name, c.kernel) +
      " parameter(1)\n  ROOT r = " + shapeText(hlo::primitiveTypeName(resultType).str(), c.output) +
      " convolution(a, k), window={" + c.window + "}, dim_labels=" + c.labels +
      ", feature_group_count=" + std::to_string(c.featureGroups) +
      ", batch_group_count=" + std::to_string(c.batchGroups) + "\n}\n";
  CAPTURE(text);
  hlo::Literal lhs = smallIntegers(type, c.input, 1), rhs = smallIntegers(type, c.kernel, 2);
  hlo::Literal result = evaluate(text, {lhs, rhs});
  std::vector<double> expected = reference(c, lhs, rhs);
  REQUIRE(result.elementCount() == static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(result.getAsDouble(i) == expected[i]);
  }
}

std::string conv1d(const std::string &window, const std::string &output) {
  return "HloModule m\nENTRY e {\n  a = f32[1,1,4] parameter(0)\n  k = f32[1,1,2] parameter(1)\n"
         "  ROOT r = f32[" +
         output + "] convolution(a, k), window={" + window + "}, dim_labels=bf0_oi0->bf0\n}\n";
}

} // namespace

TEST_CASE("1-D convolutions worked by hand") {
  hlo::Literal input = literal<float>(PrimitiveType::F32, {1, 1, 4}, {1, 2, 3, 4});
  hlo::Literal kernel = literal<float>(PrimitiveType::F32, {1, 1, 2}, {10, 1});
  // Padded [0 1 2 3 4 0]: out[o] = 10 p[o] + p[o + 1].
  CHECK(elements<float>(evaluate(conv1d("size=2 pad=1_1", "1,1,5"), {input, kernel})) ==
        std::vector<float>{1, 12, 23, 34, 40});
  // lhs_dilate=2 makes [1 0 2 0 3 0 4].
  CHECK(elements<float>(evaluate(conv1d("size=2 lhs_dilate=2", "1,1,6"), {input, kernel})) ==
        std::vector<float>{10, 2, 20, 3, 30, 4});
  // rhs_dilate=2 pairs x[o] with x[o + 2]; stride 2 keeps every other one.
  CHECK(elements<float>(evaluate(conv1d("size=2 rhs_dilate=2", "1,1,2"), {input, kernel})) ==
        std::vector<float>{13, 24});
  CHECK(elements<float>(evaluate(conv1d("size=2 stride=2", "1,1,2"), {input, kernel})) ==
        std::vector<float>{12, 34});
  // Negative low padding drops the first input; reversal swaps the taps.
  CHECK(elements<float>(evaluate(conv1d("size=2 pad=-1_0", "1,1,2"), {input, kernel})) ==
        std::vector<float>{23, 34});
  CHECK(elements<float>(evaluate(conv1d("size=2 rhs_reversal=1", "1,1,3"), {input, kernel})) ==
        std::vector<float>{21, 32, 43});
}

TEST_CASE("2-D convolutions in NCHW and NHWC with strides, padding and dilation") {
  Case nchw{"bf01_oi01->bf01",
            {2, 3, 5, 6},
            {4, 3, 3, 2},
            {2, 4, 3, 4},
            "size=3x2 stride=2x2 pad=1_1x1_2"};
  nchw.stride = {2, 2};
  nchw.padLow = {1, 1};
  checkAgainstReference(nchw);

  // Enough features (9 in, 16 out) for the layouts that keep features
  // innermost, which transposes NCHW in tiles.
  Case wide{"bf01_oi01->bf01", {2, 9, 4, 5}, {16, 9, 3, 2}, {2, 16, 2, 4}, "size=3x2"};
  checkAgainstReference(wide);

  // Transposed conv (lhs dilation) with atrous kernel and negative padding.
  Case nhwc{"b01f_01io->b01f",
            {1, 4, 3, 2},
            {2, 2, 2, 5},
            {1, 6, 6, 5},
            "size=2x2 pad=-1_2x1_1 lhs_dilate=2x2 rhs_dilate=2x1"};
  nhwc.padLow = {-1, 1};
  nhwc.lhsDilation = {2, 2};
  nhwc.rhsDilation = {2, 1};
  checkAgainstReference(nhwc);

  // Window reversal and an unusual layout.
  Case odd{"0fb1_i1o0->f10b",
           {4, 2, 3, 5},
           {2, 2, 3, 3},
           {3, 4, 3, 3},
           "size=3x2 rhs_reversal=1x0 pad=0_1x0_0"};
  odd.reversal = {true, false};
  checkAgainstReference(odd);
}

TEST_CASE("transposed convolutions whose stride and lhs dilation share factors") {
  // Output phases repeat every lhs_dilate / gcd(stride, lhs_dilate) outputs.
  Case shared{"b0f_0io->b0f",
              {2, 5, 3},
              {4, 3, 2},
              {2, 7, 2},
              "size=4 stride=2 pad=2_3 lhs_dilate=4 rhs_dilate=3"};
  shared.stride = {2};
  shared.padLow = {2};
  shared.lhsDilation = {4};
  shared.rhsDilation = {3};
  checkAgainstReference(shared);
  Case coprime{"bf01_oi01->bf01",
               {1, 2, 4, 3},
               {3, 2, 3, 2},
               {1, 3, 3, 4},
               "size=3x2 stride=3x2 pad=1_1x0_1 lhs_dilate=2x3"};
  coprime.stride = {3, 2};
  coprime.padLow = {1, 0};
  coprime.lhsDilation = {2, 3};
  checkAgainstReference(coprime);
}

TEST_CASE("grouped, depthwise and batch-grouped convolutions") {
  // Two feature groups, wide enough output groups for the normal layout.
  Case grouped{"bf01_oi01->bf01", {2, 4, 4, 4}, {32, 2, 3, 3}, {2, 32, 2, 2}, "size=3x3"};
  grouped.featureGroups = 2;
  checkAgainstReference(grouped);
  // Depthwise with a channel multiplier of 2, padded (narrow groups: transposed layout).
  Case depthwise{
      "b01f_01io->b01f", {2, 5, 5, 3}, {3, 3, 1, 6}, {2, 5, 5, 6}, "size=3x3 pad=1_1x1_1"};
  depthwise.featureGroups = 3;
  depthwise.padLow = {1, 1};
  checkAgainstReference(depthwise);
  // batch_group_count as in backward filter convolutions: input batch 4 in
  // two groups, each output feature group sees its own half of the batch.
  Case batched{"fb01_io01->01bf", {3, 4, 5, 5}, {3, 4, 3, 3}, {3, 3, 2, 4}, "size=3x3"};
  batched.batchGroups = 2;
  checkAgainstReference(batched);
  // Depthwise backward filter: one batch element per group.
  Case depthwiseFilter{
      "fb01_io01->01bf", {2, 3, 4, 4}, {2, 3, 4, 4}, {3, 3, 1, 3}, "size=4x4 pad=1_1x1_1"};
  depthwiseFilter.batchGroups = 3;
  depthwiseFilter.padLow = {1, 1};
  checkAgainstReference(depthwiseFilter);
}

TEST_CASE("3-D and 1-D convolutions, integers and bf16") {
  Case volume{"b012f_012io->b012f",
              {1, 4, 5, 3, 2},
              {3, 2, 2, 2, 3},
              {1, 1, 4, 2, 3},
              "size=3x2x2 stride=2x1x1"};
  volume.stride = {2, 1, 1};
  checkAgainstReference(volume);
  Case line{"b0f_0io->b0f", {3, 9, 2}, {4, 2, 2}, {3, 3, 2}, "size=4 stride=3 pad=1_1"};
  line.stride = {3};
  line.padLow = {1};
  checkAgainstReference(line);
  Case integer{"bf01_oi01->bf01", {1, 2, 4, 4}, {3, 2, 2, 2}, {1, 3, 3, 3}, "size=2x2"};
  checkAgainstReference(integer, PrimitiveType::S8, PrimitiveType::S32);
  // Small integers are exact in bf16, and so are these sums.
  checkAgainstReference(integer, PrimitiveType::BF16, PrimitiveType::BF16);
}

TEST_CASE("convolution with an empty window or output") {
  Case empty{"bf01_oi01->bf01", {1, 2, 2, 2}, {3, 2, 3, 3}, {1, 3, 0, 0}, "size=3x3"};
  checkAgainstReference(empty);
  Case noFeatures{"bf0_oi0->bf0", {2, 0, 3}, {2, 0, 1}, {2, 2, 3}, "size=1"};
  checkAgainstReference(noFeatures);
}

TEST_CASE("convolution rejects inconsistent shapes with an error") {
  std::string error = evaluationError(
      "HloModule m\nENTRY e {\n  a = f32[1,3,4] parameter(0)\n  k = f32[2,2,2] parameter(1)\n"
      "  ROOT r = f32[1,2,3] convolution(a, k), window={size=2}, dim_labels=bf0_oi0->bf0\n}\n",
      {smallIntegers(PrimitiveType::F32, {1, 3, 4}, 0),
       smallIntegers(PrimitiveType::F32, {2, 2, 2}, 0)},
      {}, false);
  CHECK(error.find("kernel input features") != std::string::npos);
}
