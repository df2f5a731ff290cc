//===- IntegerRhsPacking.cpp - Constant rhs laid out for grouped forms ----===//
//
// The grouped integer forms (IntegerContraction.h) read, per step and vector
// of columns, the G values of each column next to each other. A constant rhs
// (weights) is laid out that way at compile time, panel by panel so a tile
// reads its whole rhs as one sequential run: the main tiles' columns in
// panels as wide as a main tile, then one panel of the tail's columns; in a
// panel, step by step (outer contracting index, then group of the innermost
// contracting dimension); in a step, column by column. A panel starting at
// column c0 therefore starts at element c0 * steps * G.
//
//===----------------------------------------------------------------------===//

#include "codegen/IntegerRhsPacking.h"

#include "codegen/ElementTypes.h"

namespace mote::codegen {

namespace {

llvm::GlobalVariable *global(llvm::Module &module, llvm::Constant *data, const llvm::Twine &name) {
  auto *variable = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage, data, name);
  variable->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  variable->setAlignment(llvm::Align(64));
  return variable;
}

} // namespace

PackedIntegerRhs packIntegerRhs(llvm::Module &module, const ContractionPlan &plan,
                                const ContractionTiling &tiling, unsigned group, int lhsOffset) {
  const hlo::Literal &values = *plan.rhsValues;
  const OperandStrides &rhs = plan.operand[1];
  const bool isSigned = hlo::isSignedInteger(plan.rhsType);
  auto valueAt = [&](int64_t linear) {
    return isSigned ? values.getAsInt64(linear) : int64_t(values.getAsUint64(linear));
  };
  llvm::ArrayRef<int64_t> dims = plan.contractingDims;
  const int64_t inner = dims.back();
  PackedIntegerRhs packed;
  packed.groups = (inner + group - 1) / group;
  int64_t outerSteps = 1;
  for (int64_t dim : dims.drop_back())
    outerSteps *= dim;
  packed.steps = outerSteps * packed.groups;

  // The rhs offset of each outer contracting index, row-major.
  std::vector<int64_t> outerOffsets(size_t(outerSteps), rhs.base);
  for (int64_t o = 0; o < outerSteps; ++o)
    for (int64_t d = int64_t(dims.size()) - 2, rest = o; d >= 0; --d) {
      outerOffsets[size_t(o)] += (rest % dims[size_t(d)]) * rhs.contracting[size_t(d)];
      rest /= dims[size_t(d)];
    }

  const int64_t columns = plan.columns;
  const int64_t panelWidth = tiling.tileColumns();
  const int64_t mainColumns = columns / panelWidth * panelWidth;
  std::vector<int64_t> packedValues(size_t(columns * packed.steps * group), 0);
  std::vector<int64_t> columnSums(size_t(columns), 0);
  for (int64_t column = 0; column < columns; ++column) {
    const int64_t panelStart =
        column < mainColumns ? column / panelWidth * panelWidth : mainColumns;
    const int64_t width = column < mainColumns ? panelWidth : columns - mainColumns;
    for (int64_t step = 0; step < packed.steps; ++step) {
      const int64_t outer = step / packed.groups, first = step % packed.groups * group;
      for (int64_t j = 0; j < group && first + j < inner; ++j) {
        const int64_t value = valueAt(outerOffsets[size_t(outer)] +
                                      (first + j) * rhs.contracting.back() + column * rhs.column);
        packedValues[size_t(
            (panelStart * packed.steps + step * width + column - panelStart) * group + j)] = value;
        columnSums[size_t(column)] += value;
      }
    }
  }

  llvm::LLVMContext &context = module.getContext();
  const unsigned bits = hlo::bitWidth(plan.rhsType);
  if (bits == 8) {
    std::vector<uint8_t> bytes(packedValues.begin(), packedValues.end());
    packed.values = global(module, llvm::ConstantDataArray::get(context, bytes), "packed.rhs");
  } else {
    std::vector<uint16_t> halves(packedValues.begin(), packedValues.end());
    packed.values = global(module, llvm::ConstantDataArray::get(context, halves), "packed.rhs");
  }
  packed.initialSums = initialSums(module, plan, lhsOffset, columnSums);
  return packed;
}

llvm::GlobalVariable *initialSums(llvm::Module &module, const ContractionPlan &plan, int lhsOffset,
                                  llvm::ArrayRef<int64_t> columnSums) {
  if (!plan.columnBias && !lhsOffset)
    return nullptr;
  // Each sum gains lhsOffset times its column's sum of rhs values: it
  // starts from the negation (modulo 2^32, like every sum here).
  std::vector<uint32_t> initial(size_t(plan.columns), 0);
  for (int64_t column = 0; column < plan.columns; ++column) {
    int64_t sum = 0;
    if (plan.columnBias)
      sum += plan.columnBias->getAsInt64(plan.columnBias->elementCount() == 1 ? 0 : column);
    if (lhsOffset)
      sum -= int64_t(lhsOffset) * columnSums[size_t(column)];
    initial[size_t(column)] = uint32_t(sum);
  }
  return global(module, llvm::ConstantDataArray::get(module.getContext(), initial), "packed.sums");
}

} // namespace mote::codegen
