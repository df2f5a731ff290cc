//===- ParserAttributesTest.cpp - Typed instruction attributes ------------===//
//
// Each attribute of XLA's operation semantics must land in its typed field
// with the values the text states.
//
//===----------------------------------------------------------------------===//

#include "ParserTestUtil.h"

using namespace mote::hlo;
using namespace mote::hlo::testing;

namespace {
/// A module whose entry holds `body` (instructions and closing brace) after
/// a few parameters of assorted shapes and two helper computations.
std::string withEntry(const std::string &body) {
  return R"(HloModule attrs
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  m = f32[4,6] parameter(0)
  i = s32[3,2] parameter(1)
  z = f32[] constant(0)
)" + body;
}
} // namespace

TEST_CASE("attributes: dimensions, index, iota, slice, dynamic slice, padding") {
  auto module = parseOk(withEntry(R"(
  t = f32[6,4] transpose(m), dimensions={1,0}
  io = s32[5,7] iota(), iota_dimension=1
  sl = f32[2,2] slice(m), slice={[0:4:2], [1:5:2]}
  s2 = f32[3,6] slice(m), slice={[1:4], [0:6]}
  d0 = s32[] constant(1)
  ds = f32[2,3] dynamic-slice(m, d0, d0), dynamic_slice_sizes={2,3}
  p = f32[7,13] pad(m, z), padding=1_2x-1_3_2
  g = (f32[], f32[]) parameter(2)
  ROOT gte = f32[] get-tuple-element(g), index=1
}
)"));
  REQUIRE(module);
  CHECK(find(*module, "t")->attributes().dimensions == DimVector{1, 0});
  CHECK(find(*module, "t")->attributes().hasDimensions);
  CHECK(find(*module, "io")->attributes().iotaDimension == 1);
  const auto &slice = find(*module, "sl")->attributes().slice;
  REQUIRE(slice.size() == 2);
  CHECK(slice[0].start == 0);
  CHECK(slice[0].limit == 4);
  CHECK(slice[0].stride == 2);
  CHECK(slice[1].start == 1);
  CHECK(slice[1].limit == 5);
  const auto &slice2 = find(*module, "s2")->attributes().slice;
  CHECK(slice2[0].stride == 1);
  CHECK(slice2[1].limit == 6);
  CHECK(find(*module, "ds")->attributes().dynamicSliceSizes == DimVector{2, 3});
  const auto &padding = find(*module, "p")->attributes().padding;
  REQUIRE(padding.size() == 2);
  CHECK(padding[0].low == 1);
  CHECK(padding[0].high == 2);
  CHECK(padding[0].interior == 0);
  CHECK(padding[1].low == -1);
  CHECK(padding[1].high == 3);
  CHECK(padding[1].interior == 2);
  CHECK(find(*module, "gte")->attributes().tupleIndex == 1);
}

TEST_CASE("attributes: convolution window, dim_labels of any rank, group counts") {
  auto module = parseOk(R"(HloModule conv
ENTRY e {
  in2 = f32[1,9,9,4] parameter(0)
  k2 = f32[3,3,2,8] parameter(1)
  c2 = f32[1,5,4,8] convolution(in2, k2), window={size=3x3 stride=2x2 pad=1_1x0_1 lhs_dilate=1x1 rhs_dilate=1x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=2, batch_group_count=1
  in1 = f32[2,3,10] parameter(2)
  k1 = f32[4,3,5] parameter(3)
  c1 = f32[2,4,6] convolution(in1, k1), window={size=5}, dim_labels=bf0_oi0->bf0
  in3 = f32[1,4,4,4,2] parameter(4)
  k3 = f32[2,2,2,2,3] parameter(5)
  c3 = f32[1,3,3,3,3] convolution(in3, k3), window={size=2x2x2}, dim_labels=b012f_012io->b012f
  in0 = f32[2,3] parameter(6)
  k0 = f32[3,5] parameter(7)
  ROOT c0 = f32[2,5] convolution(in0, k0), dim_labels=bf_io->bf
}
)");
  REQUIRE(module);
  const InstructionAttributes &c2 = find(*module, "c2")->attributes();
  REQUIRE(c2.hasWindow);
  REQUIRE(c2.window.size() == 2);
  CHECK(c2.window[0].size == 3);
  CHECK(c2.window[0].stride == 2);
  CHECK(c2.window[0].paddingLow == 1);
  CHECK(c2.window[0].paddingHigh == 1);
  CHECK(c2.window[1].paddingLow == 0);
  CHECK(c2.window[1].paddingHigh == 1);
  CHECK(c2.window[1].windowDilation == 2);
  CHECK(c2.window[0].baseDilation == 1);
  CHECK_FALSE(c2.window[0].windowReversal);
  CHECK(c2.window[1].windowReversal);
  CHECK(c2.featureGroupCount == 2);
  CHECK(c2.batchGroupCount == 1);
  const ConvolutionDimensionNumbers &n2 = c2.convolutionDimensions;
  CHECK(n2.inputBatchDimension == 0);
  CHECK(n2.inputFeatureDimension == 3);
  CHECK(n2.inputSpatialDimensions == DimVector{1, 2});
  CHECK(n2.kernelInputFeatureDimension == 2);
  CHECK(n2.kernelOutputFeatureDimension == 3);
  CHECK(n2.kernelSpatialDimensions == DimVector{0, 1});
  CHECK(n2.outputFeatureDimension == 3);

  // bf0_oi0->bf0: batch 0, feature 1, the one spatial dimension at 2; the
  // kernel's output feature first.
  const ConvolutionDimensionNumbers &n1 = find(*module, "c1")->attributes().convolutionDimensions;
  CHECK(n1.inputFeatureDimension == 1);
  CHECK(n1.inputSpatialDimensions == DimVector{2});
  CHECK(n1.kernelOutputFeatureDimension == 0);
  CHECK(n1.kernelInputFeatureDimension == 1);
  CHECK(find(*module, "c1")->attributes().window[0].stride == 1);

  const ConvolutionDimensionNumbers &n3 = find(*module, "c3")->attributes().convolutionDimensions;
  CHECK(n3.inputSpatialDimensions == DimVector{1, 2, 3});
  CHECK(n3.kernelInputFeatureDimension == 3);
  CHECK(n3.outputFeatureDimension == 4);

  const InstructionAttributes &c0 = find(*module, "c0")->attributes();
  CHECK_FALSE(c0.hasWindow);
  CHECK(c0.convolutionDimensions.inputSpatialDimensions.empty());
  CHECK(c0.convolutionDimensions.kernelOutputFeatureDimension == 1);
}

TEST_CASE("attributes: dot, gather and scatter dimension numbers") {
  auto module = parseOk(withEntry(R"(
  a = f32[2,3,4] parameter(3)
  b = f32[2,4,5] parameter(4)
  d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,default}
  ga = f32[3,6] gather(m, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,6}, indices_are_sorted=true
  gb = f32[3,6] gather(m, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,6}
  u = f32[3,6] parameter(5)
  ROOT sc = f32[4,6] scatter(m, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, input_batching_dims={1}, scatter_indices_batching_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=sum
}
)"));
  REQUIRE(module);
  const DotDimensionNumbers &d = find(*module, "d")->attributes().dotDimensions;
  CHECK(d.lhsBatchDimensions == DimVector{0});
  CHECK(d.lhsContractingDimensions == DimVector{2});
  CHECK(d.rhsBatchDimensions == DimVector{0});
  CHECK(d.rhsContractingDimensions == DimVector{1});
  CHECK(find(*module, "d")->attributes().findRaw("operand_precision")->value ==
        "{highest,default}");

  const InstructionAttributes &ga = find(*module, "ga")->attributes();
  CHECK(ga.gatherDimensions.offsetDims == DimVector{1});
  CHECK(ga.gatherDimensions.collapsedSliceDims == DimVector{0});
  CHECK(ga.gatherDimensions.startIndexMap == DimVector{0, 1});
  CHECK(ga.gatherDimensions.indexVectorDim == 1);
  CHECK(ga.gatherSliceSizes == DimVector{1, 6});
  CHECK(ga.indicesAreSorted);
  const InstructionAttributes &gb = find(*module, "gb")->attributes();
  CHECK(gb.gatherDimensions.collapsedSliceDims.empty());
  CHECK(gb.gatherDimensions.operandBatchingDims == DimVector{0});
  CHECK(gb.gatherDimensions.startIndicesBatchingDims == DimVector{0});
  CHECK(gb.gatherDimensions.indexVectorDim == 2);
  CHECK_FALSE(gb.indicesAreSorted);

  Instruction *scatter = find(*module, "sc");
  const InstructionAttributes &sc = scatter->attributes();
  CHECK(sc.scatterDimensions.updateWindowDims == DimVector{1});
  CHECK(sc.scatterDimensions.insertedWindowDims == DimVector{0});
  CHECK(sc.scatterDimensions.scatterDimsToOperandDims == DimVector{0, 1});
  CHECK(sc.scatterDimensions.inputBatchingDims == DimVector{1});
  CHECK(sc.scatterDimensions.scatterIndicesBatchingDims == DimVector{0});
  CHECK(sc.scatterDimensions.indexVectorDim == 1);
  CHECK(sc.indicesAreSorted);
  CHECK(sc.uniqueIndices);
  CHECK(scatter->calledComputation(0)->name() == "sum");
}

TEST_CASE("attributes: compare, reduce-precision, sort, topk, rng, fft, custom-call, fusion") {
  auto module = parseOk(withEntry(R"(
  c1 = pred[4,6] compare(m, m), direction=GE
  c2 = pred[4,6] compare(m, m), direction=NE, type=TOTALORDER
  c3 = pred[3,2] compare(i, i), direction=LT, type=UNSIGNED
  rp = f32[4,6] reduce-precision(m), exponent_bits=5, mantissa_bits=2
  so = f32[4,6] sort(m), dimensions={1}, is_stable=true, to_apply=less
  tk = (f32[4,2], s32[4,2]) topk(m), k=2, largest=false
  one = f32[] constant(1)
  rn = f32[2,2] rng(z, one), distribution=rng_normal
  st = u64[2] parameter(2)
  rb = (u64[2], u32[8]) rng-bit-generator(st), algorithm=rng_three_fry
  cx = c64[4,6] convert(m)
  ff = c64[4,6] fft(cx), fft_type=IFFT, fft_length={6}
  cc = f32[4,6] custom-call(m), custom_call_target="Sharding\n\"x\"", backend_config={"k": 1}
  fu = f32[] fusion(z, one), kind=kOutput, calls=sum
  ROOT r = f32[4,6] copy(m)
}
)"));
  REQUIRE(module);
  CHECK(find(*module, "c1")->attributes().comparisonDirection == ComparisonDirection::GE);
  CHECK(find(*module, "c1")->attributes().comparisonType == ComparisonType::Default);
  CHECK(find(*module, "c2")->attributes().comparisonDirection == ComparisonDirection::NE);
  CHECK(find(*module, "c2")->attributes().comparisonType == ComparisonType::TotalOrder);
  CHECK(find(*module, "c3")->attributes().comparisonType == ComparisonType::Unsigned);
  CHECK(find(*module, "rp")->attributes().exponentBits == 5);
  CHECK(find(*module, "rp")->attributes().mantissaBits == 2);
  CHECK(find(*module, "so")->attributes().isStable);
  CHECK(find(*module, "so")->attributes().dimensions == DimVector{1});
  CHECK(find(*module, "tk")->attributes().k == 2);
  CHECK_FALSE(find(*module, "tk")->attributes().largest);
  CHECK(find(*module, "rn")->attributes().distribution == RandomDistribution::Normal);
  CHECK(find(*module, "rb")->attributes().rngAlgorithm == RandomAlgorithm::ThreeFry);
  CHECK(find(*module, "ff")->attributes().fftType == FftType::IFFT);
  CHECK(find(*module, "ff")->attributes().fftLength == DimVector{6});
  const InstructionAttributes &cc = find(*module, "cc")->attributes();
  CHECK(cc.customCallTarget == "Sharding\n\"x\"");
  CHECK(cc.customCallBackendConfig == R"({"k": 1})");
  REQUIRE(cc.findRaw("backend_config"));
  CHECK(cc.findRaw("backend_config")->value == R"({"k": 1})");
  CHECK(find(*module, "fu")->attributes().fusionKind == "kOutput");
}

TEST_CASE("attributes: batch norm, triangular solve, cholesky") {
  auto module = parseOk(R"(HloModule linalg
ENTRY e {
  x = f32[2,3,4,5] parameter(0)
  s = f32[3] parameter(1)
  bn = (f32[2,3,4,5], f32[3], f32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1
  a = f32[4,4] parameter(2)
  b = f32[4,3] parameter(3)
  ts = f32[4,3] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  ROOT ch = f32[4,4] cholesky(a), lower=true
}
)");
  REQUIRE(module);
  const InstructionAttributes &bn = find(*module, "bn")->attributes();
  CHECK(bn.epsilon == 0.001f);
  CHECK(bn.featureIndex == 1);
  const InstructionAttributes &ts = find(*module, "ts")->attributes();
  CHECK(ts.leftSide);
  CHECK(ts.lower);
  CHECK(ts.unitDiagonal);
  CHECK(ts.transposeA == TriangularSolveTranspose::Adjoint);
  CHECK(find(*module, "ch")->attributes().lower);
}

TEST_CASE("attributes: keys that mean nothing for an op stay raw") {
  auto module = parseOk(R"(HloModule raw_keys
ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x), index=3, direction=EQ, slice={[0:1]}
}
)");
  REQUIRE(module);
  const InstructionAttributes &n = module->entry()->root()->attributes();
  CHECK(n.tupleIndex == 0);
  REQUIRE(n.raw.size() == 3);
  CHECK(n.raw[0].key == "index");
  CHECK(n.raw[0].value == "3");
  CHECK(n.raw[2].value == "{[0:1]}");
}
