//===- ShapeInferenceTest.cpp - Result shapes of HLO ops -------------------===//
//
// Each case parses a small module (without verifying it) and asks shape
// inference for one instruction's shape. Expected shapes are worked out by
// hand from XLA's operation semantics; the comments show the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInference.h"
#include "hlo/Diagnostics.h"
#include "hlo/Module.h"
#include "hlo/Parser.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

using namespace mote::hlo;

namespace {

/// The shape inferred for instruction `name` of `text` (layouts omitted), or
/// "error: <message>" when inference refuses it.
std::string infer(const std::string &text, llvm::StringRef name) {
  auto module = parseModuleText(text);
  if (!module) {
    std::string message = errorToString(module.takeError(), nullptr);
    FAIL("module does not parse: " << message);
    return "";
  }
  for (const auto &computation : (*module)->computations()) {
    if (Instruction *instruction = computation->findInstruction(name)) {
      auto shape = inferShape(*instruction);
      if (!shape)
        return "error: " + errorToString(shape.takeError(), nullptr);
      return shape->toString(false);
    }
  }
  FAIL("no instruction named " << name.str());
  return "";
}

/// An entry computation with `body` as its instructions.
/// `body` holds the instructions and the closing brace.
std::string entry(const std::string &body) { return "HloModule m\n\nENTRY e {" + body; }

const char *kAdd = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

/// A module holding the scalar f32 adder above and then `entryText`.
std::string withAdd(const std::string &entryText) {
  return std::string("HloModule m\n") + kAdd + entryText;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("elementwise ops keep their operands' dimensions") {
  std::string m = entry(R"(
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  i = s32[2,3] parameter(2)
  h = bf16[2,3] parameter(3)
  c = c64[4] parameter(4)
  hf = f16[2,3] parameter(5)
  sum = f32[2,3] add(x, y)
  less = pred[2,3] compare(x, y), direction=LT
  total = pred[2,3] compare(x, y), direction=LT, type=TOTALORDER
  bad_type = pred[2,3] compare(i, i), direction=LT, type=FLOAT
  mixed = f32[2,3] add(h, x)
  halves = bf16[2,3] add(hf, h)
  bad_types = f32[2,3] add(x, i)
  absolute = f32[4] abs(c)
  re = f32[4] real(c)
  finite = pred[2,3] is-finite(x)
  shifted = s32[2,3] shift-left(i, i)
  ROOT n = f32[2,3] negate(x)
}
)");
  CHECK(infer(m, "sum") == "f32[2,3]");
  CHECK(infer(m, "less") == "pred[2,3]");
  CHECK(infer(m, "total") == "pred[2,3]");
  CHECK(contains(infer(m, "bad_type"), "compare: type=FLOAT cannot compare s32 operands"));
  // XLA lets floating-point precisions meet; the more precise type wins.
  CHECK(infer(m, "mixed") == "f32[2,3]");
  // Range ranks before precision: bf16's 8 exponent bits beat f16's 5.
  CHECK(infer(m, "halves") == "bf16[2,3]");
  CHECK(contains(infer(m, "bad_types"), "different element types"));
  CHECK(infer(m, "absolute") == "f32[4]");
  CHECK(infer(m, "re") == "f32[4]");
  CHECK(infer(m, "finite") == "pred[2,3]");
  CHECK(infer(m, "shifted") == "s32[2,3]");
}

TEST_CASE("elementwise ops reject wrong dimensions and types") {
  std::string m = entry(R"(
  x = f32[2,3] parameter(0)
  t = f32[3,2] parameter(1)
  p = pred[2,3] parameter(2)
  transposed = f32[2,3] multiply(x, t)
  not_float = f32[2,3] not(x)
  pred_sub = pred[2,3] subtract(p, p)
  ROOT r = f32[2,3] exponential(p)
}
)");
  CHECK(infer(m, "transposed") ==
        "error: in %transposed: multiply: operands must have the same dimensions, got f32[2,3] "
        "and f32[3,2]");
  CHECK(contains(infer(m, "not_float"), "expected a pred or integer element type, got f32"));
  CHECK(contains(infer(m, "pred_sub"), "expected an arithmetic element type"));
  CHECK(contains(infer(m, "r"), "expected a floating-point or complex element type, got pred"));
}

TEST_CASE("select, clamp, complex and converts") {
  std::string m = entry(R"(
  p = pred[] parameter(0)
  v = pred[3] parameter(1)
  x = f32[2] parameter(2)
  y = f32[2] parameter(3)
  lo = f32[] parameter(4)
  w = f32[4] parameter(5)
  d = f64[2] parameter(6)
  u = u8[3,4] parameter(7)
  odd = u8[3,3] parameter(8)
  scalar_pred = f32[2] select(p, x, y)
  bad_pred = f32[2] select(v, x, y)
  clamped = f32[4] clamp(lo, w, lo)
  cplx = c64[2] complex(x, y)
  bad_cplx = c64[2] complex(x, d)
  narrowed = f16[2] convert(x)
  to_bytes = u8[2,4] bitcast-convert(x)
  from_bytes = f32[3] bitcast-convert(u)
  ROOT bad_bytes = f32[3] bitcast-convert(odd)
}
)");
  CHECK(infer(m, "scalar_pred") == "f32[2]");
  CHECK(contains(infer(m, "bad_pred"), "must be a scalar or have the dimensions of f32[2]"));
  CHECK(infer(m, "clamped") == "f32[4]");
  CHECK(infer(m, "cplx") == "c64[2]");
  CHECK(contains(infer(m, "bad_cplx"), "expected two f32 or two f64 operands"));
  CHECK(infer(m, "narrowed") == "f16[2]");
  // 32 bits into 8-bit pieces adds a minor dimension of 4, and back.
  CHECK(infer(m, "to_bytes") == "u8[2,4]");
  CHECK(infer(m, "from_bytes") == "f32[3]");
  CHECK(contains(infer(m, "bad_bytes"), "needs a last dimension of size 4"));
}

TEST_CASE("broadcast, reshape, transpose, reverse, iota") {
  std::string m = entry(R"(
  v = f32[3] parameter(0)
  x = f32[2,3,4] parameter(1)
  b = f32[2,3] broadcast(v), dimensions={1}
  bad_b = f32[3,2] broadcast(v), dimensions={1}
  r = f32[6,4] reshape(x)
  bad_r = f32[5,5] reshape(x)
  t = f32[4,2,3] transpose(x), dimensions={2,0,1}
  bad_t = f32[4,2,3] transpose(x), dimensions={2,0,0}
  rev = f32[2,3,4] reverse(x), dimensions={0,2}
  io = s32[3,5] iota(), iota_dimension=1
  ROOT bad_io = s32[3,5] iota(), iota_dimension=2
}
)");
  CHECK(infer(m, "b") == "f32[2,3]");
  CHECK(contains(infer(m, "bad_b"),
                 "operand dimension 0 has size 3 but result dimension 1 has size 2"));
  CHECK(infer(m, "r") == "f32[6,4]");
  CHECK(contains(infer(m, "bad_r"), "(24 elements) to f32[5,5] (25 elements)"));
  // result[i] = operand[perm[i]]: [x.dim(2), x.dim(0), x.dim(1)].
  CHECK(infer(m, "t") == "f32[4,2,3]");
  CHECK(contains(infer(m, "bad_t"), "is not a permutation"));
  CHECK(infer(m, "rev") == "f32[2,3,4]");
  CHECK(infer(m, "io") == "s32[3,5]");
  CHECK(contains(infer(m, "bad_io"), "iota_dimension=2 is out of range"));
}

TEST_CASE("slices, dynamic slices and updates") {
  std::string m = entry(R"(
  x = f32[10,5] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  u = f32[2,5] parameter(3)
  s = f32[3,5] slice(x), slice={[2:9:3], [0:5]}
  bad_s = f32[3,5] slice(x), slice={[2:11], [0:5]}
  ds = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
  bad_ds = f32[2,6] dynamic-slice(x, i, j), dynamic_slice_sizes={2,6}
  few_idx = f32[2,3] dynamic-slice(x, i), dynamic_slice_sizes={2,3}
  ROOT dus = f32[10,5] dynamic-update-slice(x, u, i, j)
}
)");
  // Rows 2, 5 and 8: ceil((9 - 2) / 3) = 3.
  CHECK(infer(m, "s") == "f32[3,5]");
  CHECK(contains(infer(m, "bad_s"), "has a limit beyond the dimension size 10"));
  CHECK(infer(m, "ds") == "f32[2,3]");
  CHECK(contains(infer(m, "bad_ds"), "slice size 6 of dimension 1 must be in [0, 5]"));
  CHECK(contains(infer(m, "few_idx"), "expected 2 start indices"));
  CHECK(infer(m, "dus") == "f32[10,5]");
}

TEST_CASE("concatenate and pad, including negative and interior padding") {
  std::string m = entry(R"(
  a = f32[2,3] parameter(0)
  b = f32[4,3] parameter(1)
  c = f32[4,2] parameter(2)
  x = f32[4,3] parameter(3)
  z = f32[] constant(0)
  cat = f32[6,3] concatenate(a, b), dimensions={0}
  bad_cat = f32[6,3] concatenate(a, c), dimensions={0}
  pad = f32[10,2] pad(x, z), padding=1_-1_2x-1_0
  ROOT bad_pad = f32[1,3] pad(x, z), padding=-3_-2x0_0
}
)");
  CHECK(infer(m, "cat") == "f32[6,3]");
  CHECK(contains(infer(m, "bad_cat"), "in dimension 1, which is not the concatenated one"));
  // dim 0: 4 + 1 - 1 + (4 - 1) * 2 = 10; dim 1: 3 - 1 + 0 = 2.
  CHECK(infer(m, "pad") == "f32[10,2]");
  // dim 0: 4 - 3 - 2 = -1.
  CHECK(contains(infer(m, "bad_pad"), "padding makes dimension 0 negative (-1)"));
}

TEST_CASE("dot with batch, contracting and free dimensions") {
  std::string m = entry(R"(
  l = f32[5,2,3] parameter(0)
  r = f32[5,3,4] parameter(1)
  q = f32[5,4,4] parameter(2)
  m = f32[2,3] parameter(3)
  v = f32[3] parameter(4)
  i = s8[2,3] parameter(5)
  k = s8[3,7] parameter(6)
  bmm = f32[5,2,4] dot(l, r), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  mv = f32[2] dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  outer = f32[2,3,3] dot(m, v), lhs_contracting_dims={}, rhs_contracting_dims={}
  wide = s32[2,7] dot(i, k), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bad_size = f32[5,2,4] dot(l, q), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT bad_dims = f32[2] dot(m, v), lhs_contracting_dims={2}, rhs_contracting_dims={0}
}
)");
  CHECK(infer(m, "bmm") == "f32[5,2,4]");
  CHECK(infer(m, "mv") == "f32[2]");
  CHECK(infer(m, "outer") == "f32[2,3,3]");
  // The declared type is the preferred element type: s8 x s8 accumulates in s32.
  CHECK(infer(m, "wide") == "s32[2,7]");
  CHECK(infer(m, "bad_size") == "error: in %bad_size: dot: lhs contracting dimension 2 has size 3 "
                                "but rhs contracting dimension 1 has size 4");
  CHECK(contains(infer(m, "bad_dims"), "lhs dimension numbers {2} are out of range"));
}

TEST_CASE("convolution with padding, strides, dilation and groups") {
  std::string m = entry(R"(
  in = f32[1,7,7,3] parameter(0)
  k = f32[3,3,3,8] parameter(1)
  g = f32[1,5,5,6] parameter(2)
  gk = f32[3,3,2,6] parameter(3)
  bg = f32[4,5,5,2] parameter(4)
  strided = f32[1,4,4,8] convolution(in, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  dilated = f32[1,3,3,8] convolution(in, k), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  based = f32[1,13,13,8] convolution(in, k), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  nchw = f32[1,8,5,5] convolution(in, k), window={size=3x3}, dim_labels=b01f_01io->bf01
  grouped = f32[1,3,3,6] convolution(g, gk), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=3
  batched = f32[2,3,3,6] convolution(bg, gk), window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2
  ROOT bad_features = f32[1,3,3,6] convolution(g, gk), window={size=3x3}, dim_labels=b01f_01io->b01f
}
)");
  // 7 + 1 + 1 = 9 padded; (9 - 3) / 2 + 1 = 4.
  CHECK(infer(m, "strided") == "f32[1,4,4,8]");
  // The dilated window spans 5: (9 - 5) / 2 + 1 = 3.
  CHECK(infer(m, "dilated") == "f32[1,3,3,8]");
  // The dilated base is 13, padded 15: (15 - 3) / 1 + 1 = 13.
  CHECK(infer(m, "based") == "f32[1,13,13,8]");
  CHECK(infer(m, "nchw") == "f32[1,8,5,5]");
  // 6 input features in 3 groups of 2; output 5 - 3 + 1 = 3.
  CHECK(infer(m, "grouped") == "f32[1,3,3,6]");
  // A batch of 4 in 2 groups leaves 2.
  CHECK(infer(m, "batched") == "f32[2,3,3,6]");
  CHECK(contains(infer(m, "bad_features"), "input features (6) must equal feature_group_count (1) "
                                           "times the kernel input features (2)"));
}

TEST_CASE("reduce, including variadic reduce and bad reducers") {
  std::string m = std::string("HloModule m\n") + kAdd + R"(
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  v = f32[] select(gt, av, bv)
  i = s32[] select(gt, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

three {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[2,3,4] parameter(0)
  values = f32[4,5] parameter(1)
  indices = s32[4,5] parameter(2)
  z = f32[] constant(0)
  zi = s32[] constant(0)
  sum = f32[2,4] reduce(x, z), dimensions={1}, to_apply=add
  all = f32[] reduce(x, z), dimensions={0,1,2}, to_apply=add
  pair = (f32[4], s32[4]) reduce(values, indices, z, zi), dimensions={1}, to_apply=argmax
  bad_arity = f32[2,4] reduce(x, z), dimensions={1}, to_apply=three
  bad_dim = f32[2,4] reduce(x, z), dimensions={3}, to_apply=add
  ROOT bad_init = f32[4] reduce(values, zi), dimensions={1}, to_apply=add
}
)";
  CHECK(infer(m, "sum") == "f32[2,4]");
  CHECK(infer(m, "all") == "f32[]");
  CHECK(infer(m, "pair") == "(f32[4], s32[4])");
  CHECK(contains(infer(m, "bad_arity"), "reduce: to_apply must take 2 parameters, takes 3"));
  CHECK(contains(infer(m, "bad_dim"), "dimensions={3} is out of range"));
  CHECK(contains(infer(m, "bad_init"), "to_apply result 0 is f32[] but init value 0 is s32[]"));
}

TEST_CASE("reduce-window and select-and-scatter") {
  std::string m = withAdd(R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

ENTRY e {
  x = f32[4,6] parameter(0)
  z = f32[] constant(0)
  src = f32[2,2] parameter(1)
  pool = f32[4,3] reduce-window(x, z), window={size=3x2 stride=1x2 pad=1_1x0_0}, to_apply=add
  dilated = f32[7,3] reduce-window(x, z), window={size=3x2 stride=1x2 pad=1_1x0_0 lhs_dilate=2x1}, to_apply=add
  bad_window = f32[4,3] reduce-window(x, z), window={size=3 stride=1}, to_apply=add
  sas = f32[4,6] select-and-scatter(x, src, z), window={size=2x3 stride=2x3}, select=ge, scatter=add
  ROOT bad_src = f32[4,6] select-and-scatter(x, src, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
}
)");
  // dim 0: 4 + 1 + 1 = 6, (6 - 3) / 1 + 1 = 4; dim 1: (6 - 2) / 2 + 1 = 3.
  CHECK(infer(m, "pool") == "f32[4,3]");
  // The base of dim 0 dilated by 2 spans 7, padded 9: 9 - 3 + 1 = 7.
  CHECK(infer(m, "dilated") == "f32[7,3]");
  CHECK(contains(infer(m, "bad_window"), "window has 1 dimensions but the operand has rank 2"));
  // Windows 2x3 with strides 2x3 over 4x6 give 2x2 positions, the source's shape.
  CHECK(infer(m, "sas") == "f32[4,6]");
  CHECK(contains(infer(m, "bad_src"), "must match the windowed operand f32[2,3]"));
}

TEST_CASE("gather, with and without batching dimensions") {
  std::string m = entry(R"(
  x = f32[5,4] parameter(0)
  rows = s32[3,1] parameter(1)
  flat = s32[3] parameter(2)
  bx = f32[2,5,4] parameter(3)
  bi = s32[2,3,1] parameter(4)
  g = f32[3,4] gather(x, rows), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
  implicit = f32[3,4] gather(x, flat), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
  window = f32[3,2,4] gather(x, rows), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,4}
  batched = f32[2,3,4] gather(bx, bi), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,4}
  bad_collapse = f32[3,4] gather(x, rows), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,4}
  ROOT bad_map = f32[3,4] gather(x, rows), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,4}
}
)");
  CHECK(infer(m, "g") == "f32[3,4]");
  // index_vector_dim = rank(indices) implies a trailing index vector of size 1.
  CHECK(infer(m, "implicit") == "f32[3,4]");
  CHECK(infer(m, "window") == "f32[3,2,4]");
  // Output: indices dims 0 and 1 (2, 3), then operand dim 2 (slice 4).
  CHECK(infer(m, "batched") == "f32[2,3,4]");
  CHECK(contains(infer(m, "bad_collapse"), "dimension 0 must have slice size 0 or 1, got 2"));
  CHECK(contains(infer(m, "bad_map"), "start_index_map has 2 entries but index vectors have 1"));
}

TEST_CASE("scatter checks updates against operand and indices") {
  std::string m = withAdd(R"(
ENTRY e {
  x = f32[5,4] parameter(0)
  rows = s32[3,1] parameter(1)
  u = f32[3,4] parameter(2)
  wide = f32[3,5] parameter(3)
  short = f32[2,4] parameter(4)
  scattered = f32[5,4] scatter(x, rows, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  pair = (f32[5,4], f32[5,4]) scatter(x, x, rows, u, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  bad_window = f32[5,4] scatter(x, rows, wide), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT bad_count = f32[5,4] scatter(x, rows, short), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)");
  CHECK(infer(m, "scattered") == "f32[5,4]");
  // Two operands need a reducer of four parameters.
  CHECK(contains(infer(m, "pair"), "to_apply must take 4 parameters, takes 2"));
  CHECK(contains(infer(m, "bad_window"),
                 "window dimension 1 has size 5, larger than operand dimension 1 (4)"));
  CHECK(contains(infer(m, "bad_count"),
                 "scatter dimension 0 has size 2 but indices dimension 0 has size 3"));
}

TEST_CASE("sort, topk and map") {
  std::string m = withAdd(R"(
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY e {
  k = f32[3,10] parameter(0)
  v = s32[3,10] parameter(1)
  one = f32[3,10] sort(k), dimensions={1}, to_apply=add
  both = (f32[3,10], s32[3,10]) sort(k, v), dimensions={1}, to_apply=less
  top = (f32[3,4], s32[3,4]) topk(k), k=4, largest=true
  too_many = (f32[3,11], s32[3,11]) topk(k), k=11, largest=true
  ROOT mapped = f32[3,10] map(k, k), dimensions={0,1}, to_apply=add
}
)");
  CHECK(contains(infer(m, "one"), "comparator must return pred[], returns f32[]"));
  CHECK(infer(m, "both") == "(f32[3,10], s32[3,10])");
  CHECK(infer(m, "top") == "(f32[3,4], s32[3,4])");
  CHECK(contains(infer(m, "too_many"), "k=11 must be within [0, 10]"));
  CHECK(infer(m, "mapped") == "f32[3,10]");
}

TEST_CASE("tuples, calls and control flow") {
  std::string m = R"(HloModule m

cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(j, x)
}

neg {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}

ident {
  x = f32[4] parameter(0)
  ROOT c = f32[4] copy(x)
}

ENTRY e {
  x = f32[4] parameter(0)
  i = s32[] parameter(1)
  p = pred[] parameter(2)
  zero = s32[] constant(0)
  t = (s32[], f32[4]) tuple(zero, x)
  loop = (s32[], f32[4]) while(t), condition=cond, body=body
  second = f32[4] get-tuple-element(loop), index=1
  bad_index = f32[4] get-tuple-element(loop), index=2
  called = f32[4] call(x), to_apply=neg
  branch = f32[4] conditional(p, x, x), true_computation=neg, false_computation=ident
  indexed = f32[4] conditional(i, x, x), branch_computations={neg, ident}
  bad_loop = f32[4] while(x), condition=cond, body=body
  ROOT r = (f32[4], f32[4]) tuple(called, branch)
}
)";
  CHECK(infer(m, "t") == "(s32[], f32[4])");
  CHECK(infer(m, "loop") == "(s32[], f32[4])");
  CHECK(infer(m, "second") == "f32[4]");
  CHECK(contains(infer(m, "bad_index"), "index=2 is out of range for (s32[], f32[4])"));
  CHECK(infer(m, "called") == "f32[4]");
  CHECK(infer(m, "branch") == "f32[4]");
  CHECK(infer(m, "indexed") == "f32[4]");
  CHECK(contains(infer(m, "bad_loop"),
                 "condition parameter 0 has shape (s32[], f32[4]) but operand 0 has shape f32[4]"));
}

TEST_CASE("fft, linear algebra and batch norm") {
  std::string m = entry(R"(
  r = f32[4,8] parameter(0)
  c = c64[4,5] parameter(1)
  a = f32[2,3,3] parameter(2)
  b = f32[2,3,5] parameter(3)
  x = f32[2,3,4] parameter(4)
  s = f32[3] parameter(5)
  rfft = c64[4,5] fft(r), fft_type=RFFT, fft_length={8}
  irfft = f32[4,8] fft(c), fft_type=IRFFT, fft_length={8}
  chol = f32[2,3,3] cholesky(a), lower=true
  solve = f32[2,3,5] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  bad_solve = f32[2,3,5] triangular-solve(a, b), left_side=false, lower=true, transpose_a=NO_TRANSPOSE
  bn = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1
  ROOT bad_bn = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=2
}
)");
  // A real FFT of length 8 keeps 8 / 2 + 1 = 5 frequencies.
  CHECK(infer(m, "rfft") == "c64[4,5]");
  CHECK(infer(m, "irfft") == "f32[4,8]");
  CHECK(infer(m, "chol") == "f32[2,3,3]");
  CHECK(infer(m, "solve") == "f32[2,3,5]");
  CHECK(contains(infer(m, "bad_solve"), "on the right"));
  CHECK(infer(m, "bn") == "(f32[2,3,4], f32[3], f32[3])");
  CHECK(contains(infer(m, "bad_bn"), "scale has 3 elements but feature dimension 2 has 4"));
}

TEST_CASE("tokens, ids and dimension sizes") {
  std::string m = entry(R"(
  x = f32[3,<=5] parameter(0)
  n = s32[] parameter(1)
  tok = token[] after-all()
  dep = f32[3,<=5] add-dependency(x, tok)
  pid = u32[] partition-id()
  size = s32[] get-dimension-size(x), dimensions={1}
  set = f32[3,<=5] set-dimension-size(x, n), dimensions={1}
  state = u64[2] rng-get-and-update-state(), delta=1
  ROOT bad_size = s32[] get-dimension-size(x), dimensions={2}
}
)");
  CHECK(infer(m, "tok") == "token[]");
  CHECK(infer(m, "dep") == "f32[3,<=5]");
  CHECK(infer(m, "pid") == "u32[]");
  CHECK(infer(m, "size") == "s32[]");
  CHECK(infer(m, "set") == "f32[3,<=5]");
  CHECK(infer(m, "state") == "u64[2]");
  CHECK(contains(infer(m, "bad_size"), "dimension 2 is out of range"));
}

TEST_CASE("instructions built without a shape get the inferred one") {
  Computation computation("c");
  auto makeParameter = [&](int64_t number, Shape shape) {
    auto parameter = std::make_unique<Instruction>(Opcode::Parameter, "p" + std::to_string(number),
                                                   std::move(shape));
    parameter->mutableAttributes().parameterNumber = number;
    return computation.addInstruction(std::move(parameter));
  };
  Instruction *x = makeParameter(0, Shape::array(PrimitiveType::F32, {2, 3}));
  Instruction *y = makeParameter(1, Shape::array(PrimitiveType::F32, {3, 4}));
  auto dot = std::make_unique<Instruction>(Opcode::Dot, "d", Shape());
  dot->addOperand(x);
  dot->addOperand(y);
  dot->mutableAttributes().dotDimensions.lhsContractingDimensions = {1};
  dot->mutableAttributes().dotDimensions.rhsContractingDimensions = {0};
  auto shape = inferShape(*dot);
  REQUIRE(shape);
  CHECK(shape->toString() == "f32[2,4]");

  // Too many operands is an error, not a crash.
  dot->addOperand(y);
  auto wrong = inferShape(*dot);
  REQUIRE_FALSE(wrong);
  CHECK(errorToString(wrong.takeError(), nullptr) == "in %d: dot: expected 2 operands, got 3");

  // A convert without a declared shape cannot know its result type.
  auto convert = std::make_unique<Instruction>(Opcode::Convert, "cv", Shape());
  convert->addOperand(x);
  auto unknown = inferShape(*convert);
  REQUIRE_FALSE(unknown);
  CHECK(contains(errorToString(unknown.takeError(), nullptr), "needs an explicit result shape"));
}
