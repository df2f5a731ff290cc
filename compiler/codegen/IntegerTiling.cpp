//===- IntegerTiling.cpp - Forms and tiles of integer contractions --------===//
//
// Which instructions an integer contraction takes on a target
// (IntegerContraction.h's table) and the register tiles each form fills.
//
//===----------------------------------------------------------------------===//

#include "codegen/IntegerContraction.h"

#include "codegen/IntegerDotStep.h"

namespace mote::codegen {

using hlo::PrimitiveType;

namespace {
bool isByte(PrimitiveType type) { return hlo::bitWidth(type) == 8; }

/// Whether a grouped form can compute `plan`: 8-bit operands, a constant
/// rhs shared by every row and outer index (laid out at compile time), an
/// lhs shared by the columns and contiguous along the innermost contracting
/// dimension.
bool takesGroupedForm(const ContractionPlan &plan) {
  const OperandStrides &lhs = plan.operand[0], &rhs = plan.operand[1];
  return plan.rhsValues && isByte(plan.lhsType) && isByte(plan.rhsType) &&
         !plan.contractingDims.empty() && lhs.contracting.back() == 1 && lhs.column == 0 &&
         rhs.row == 0 && llvm::all_of(rhs.outer, [](int64_t stride) { return stride == 0; });
}

bool isArmM(const llvm::Triple &triple) { return triple.isARM() || triple.isThumb(); }

/// Tiles of `rows` x `columns` scalar sums.
ContractionTiling scalarTiling(const ContractionPlan &plan, int64_t rows, int64_t columns) {
  ContractionTiling tiling;
  tiling.rows = unsigned(std::clamp<int64_t>(plan.rows, 1, rows));
  const int64_t width = std::clamp<int64_t>(plan.columns, 1, columns);
  tiling.widths.assign(size_t(width), 1);
  if (const int64_t rest = plan.columns % width)
    tiling.tail.push_back(TileWidths(size_t(rest), 1));
  tiling.leftoverRows = unsigned(plan.rows % tiling.rows);
  return tiling;
}

/// The tail and leftover rows of a tiling whose main tile is `tiling.rows`
/// rows of vectors of `tiling.lanes`: the columns left over in vectors of
/// that width and its halves, then scalars.
void finishVectorTiling(ContractionTiling &tiling, const ContractionPlan &plan) {
  TileWidths rest;
  int64_t left = std::max<int64_t>(plan.columns, 1) % tiling.tileColumns();
  for (unsigned width = tiling.lanes; width >= 1; width /= 2)
    for (; left >= width; left -= width)
      rest.push_back(width);
  if (!rest.empty())
    tiling.tail.push_back(rest);
  tiling.leftoverRows = unsigned(plan.rows % tiling.rows);
}

/// Tiles for the widening form over byte operands that are rows along the
/// columns (a depthwise convolution): a row of a tile is as many columns as
/// a vector register holds bytes, so each operand is one load a row and
/// its products fill registers of 16-bit lanes; rows as the sums leave
/// registers for (operands and products take about six, and two more a
/// vector when two indices' products are added before they widen: more
/// rows spill).
ContractionTiling byteRowTiling(const ContractionPlan &plan, VectorRegisters registers,
                                bool productPairs) {
  const unsigned lanes = registers.bytes / 4; // s32 sums a register
  const int64_t columns = std::max<int64_t>(plan.columns, 1);
  const int64_t vectors =
      std::clamp<int64_t>((columns + lanes - 1) / lanes, 1, registers.bytes / lanes);
  ContractionTiling tiling;
  tiling.lanes = lanes;
  tiling.widths.assign(size_t(vectors), lanes);
  const int64_t operands = 6 + (productPairs ? 2 * vectors : 0);
  tiling.rows = unsigned(std::clamp<int64_t>((int64_t(registers.count) - operands) / vectors, 1,
                                             std::max<int64_t>(plan.rows, 1)));
  finishVectorTiling(tiling, plan);
  return tiling;
}

/// Tiles for the matrix form: four rows (two pairs) of four vectors of four
/// columns, sixteen 2x2 blocks of sums in registers beside a step's eight
/// rhs and two lhs registers; the columns left over in vectors of four,
/// two, then one.
ContractionTiling matrixTiling(const ContractionPlan &plan) {
  constexpr unsigned kLanes = 4;
  const int64_t columns = std::max<int64_t>(plan.columns, 1);
  ContractionTiling tiling;
  tiling.lanes = kLanes;
  tiling.widths.assign(size_t(std::clamp<int64_t>(columns / kLanes, 1, 4)), kLanes);
  tiling.rows = unsigned(std::clamp<int64_t>(plan.rows, 1, 4));
  finishVectorTiling(tiling, plan);
  return tiling;
}
} // namespace

bool rowsAlongColumns(const ContractionPlan &plan) {
  return llvm::all_of(plan.operand, [](const OperandStrides &strides) {
    return strides.column == 0 || strides.column == 1;
  });
}

llvm::StringRef integerDotFormName(IntegerDotForm form) {
  switch (form) {
  case IntegerDotForm::Widening:
    return "widening";
  case IntegerDotForm::X86Vnni:
    return "x86-vnni";
  case IntegerDotForm::X86MaddWords:
    return "x86-madd-words";
  case IntegerDotForm::ArmDot:
    return "arm-dot";
  case IntegerDotForm::ArmMatrix:
    return "arm-matrix";
  case IntegerDotForm::ArmMultiplyPairs:
    return "arm-multiply-pairs";
  case IntegerDotForm::ArmPartialSums:
    return "arm-partial-sums";
  case IntegerDotForm::ArmDsp:
    return "arm-dsp";
  case IntegerDotForm::MveReduce:
    return "mve-reduce";
  }
  return "?";
}

bool isIntegerContraction(const ContractionPlan &plan) { return plan.type == PrimitiveType::S32; }

IntegerDotForm chooseIntegerDotForm(const ContractionPlan &plan, const llvm::Triple &triple,
                                    const target::TargetSpec *spec) {
  if (!takesGroupedForm(plan))
    return IntegerDotForm::Widening;
  auto has = [&](llvm::StringRef feature) { return spec && target::hasFeature(*spec, feature); };
  if (triple.isX86())
    return has("avx512vnni") || has("avxvnni") ? IntegerDotForm::X86Vnni
                                               : IntegerDotForm::X86MaddWords;
  if (triple.isAArch64()) {
    // A single row would leave half of each matrix step's sums unused.
    if (has("i8mm") && plan.rows >= 2)
      return IntegerDotForm::ArmMatrix;
    if (has("dotprod"))
      return IntegerDotForm::ArmDot;
    // Rows of whole 16-byte groups, or of such groups and a half one (an
    // 8-byte load whose products are half the instructions): partial sums
    // a column; else pairs.
    const int64_t inner = plan.contractingDims.back();
    return inner % 16 == 0 || (inner > 16 && inner % 8 == 0) ? IntegerDotForm::ArmPartialSums
                                                             : IntegerDotForm::ArmMultiplyPairs;
  }
  if (isArmM(triple)) {
    if (has("mve"))
      return IntegerDotForm::MveReduce;
    if (has("dsp"))
      return IntegerDotForm::ArmDsp;
  }
  return IntegerDotForm::Widening;
}

ContractionTiling chooseIntegerTiling(const ContractionPlan &plan, const llvm::Triple &triple,
                                      const target::TargetSpec *spec) {
  const IntegerDotForm form = chooseIntegerDotForm(plan, triple, spec);
  switch (form) {
  case IntegerDotForm::ArmMatrix:
    return matrixTiling(plan);
  case IntegerDotForm::MveReduce:
    // Eight sums in general registers, four lhs and two rhs vectors in
    // MVE's eight.
    return scalarTiling(plan, 4, 2);
  case IntegerDotForm::ArmDsp:
    return scalarTiling(plan, 2, 2);
  case IntegerDotForm::ArmPartialSums:
    // Sixteen sums of four lanes, four lhs and four rhs vectors, products;
    // a single row (a dense layer on one input) spends the other rows'
    // registers on columns, so its one lhs load serves eight of them.
    return plan.rows == 1 ? scalarTiling(plan, 1, 12) : scalarTiling(plan, 4, 4);
  default:
    break;
  }
  // Thumb without vectors has about a dozen free registers; a depthwise
  // convolution's bytes go four channels a word (IntegerDotStep::addByteQuad).
  if (isArmM(triple) && !(spec && target::hasFeature(*spec, "mve.fp"))) {
    const bool quads = form == IntegerDotForm::Widening && isByte(plan.lhsType) &&
                       isByte(plan.rhsType) && plan.operand[0].column == 1 &&
                       plan.operand[1].column == 1 && spec && target::hasFeature(*spec, "dsp");
    return quads ? scalarTiling(plan, 1, 4) : scalarTiling(plan, 2, 2);
  }
  const VectorRegisters registers = vectorRegisters(triple, spec);
  if (form == IntegerDotForm::Widening && isByte(plan.lhsType) && isByte(plan.rhsType) &&
      registers.bytes >= 16 && rowsAlongColumns(plan))
    return byteRowTiling(plan, registers, integerProductPairs(form, plan, triple));
  // s32 lanes are f32 lanes: the float cost model's register tiles fit,
  // less the registers the form's arithmetic holds.
  ContractionPlan lanes = plan;
  lanes.type = PrimitiveType::F32;
  lanes.fused = true;
  lanes.extraRegisters = integerStepRegisters(form, plan, spec);
  return chooseContractionTiling(lanes, triple, spec);
}
} // namespace mote::codegen
