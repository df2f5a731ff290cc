//===- LowerReductions.cpp - Ops with scalar regions to HLO ---------------===//
///
/// \file
/// reduce, reduce_window, select_and_scatter, sort, map and scatter: each
/// region becomes a scalar computation, and ops with several results become
/// one HLO instruction of tuple shape with a get-tuple-element per result.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::DimVector;
using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

namespace {

/// The op's results: `instruction` itself, or its tuple's elements.
void setResults(OpContext &context, Instruction *instruction) {
  if (!instruction->shape().isTuple()) {
    context.results = {instruction};
    return;
  }
  for (size_t i = 0; i < instruction->shape().tupleSize(); ++i)
    context.results.push_back(context.getTupleElement(instruction, static_cast<int64_t>(i)));
}

llvm::Expected<hlo::Computation *> scalarRegion(OpContext &context, size_t index,
                                                llvm::StringRef name) {
  if (context.op.regions.size() <= index)
    return context.error("expected a region");
  auto region = context.converter.convertRegion(context.op.regions[index], context.scope,
                                                RegionParameters::Scalars, name);
  if (!region)
    return region.takeError();
  return region->computation;
}

/// Builds `opcode` over `operands` with `called`, its shape inferred.
llvm::Error
addWithComputations(OpContext &context, Opcode opcode, llvm::ArrayRef<Instruction *> operands,
                    llvm::ArrayRef<hlo::Computation *> called,
                    const std::function<void(hlo::InstructionAttributes &)> &configure) {
  auto result = context.addInferred(opcode, operands, [&](Instruction &instruction) {
    for (hlo::Computation *computation : called)
      instruction.addCalledComputation(computation);
    configure(instruction.mutableAttributes());
  });
  if (!result)
    return result.takeError();
  setResults(context, *result);
  return llvm::Error::success();
}

llvm::Error lowerReduce(OpContext &context) {
  DimVector dimensions;
  if (llvm::Error error = context.integers("dimensions", dimensions))
    return error;
  auto body = scalarRegion(context, 0, "reducer");
  if (!body)
    return body.takeError();
  return addWithComputations(context, Opcode::Reduce, context.operands, {*body},
                             [&](hlo::InstructionAttributes &attributes) {
                               attributes.dimensions = dimensions;
                               attributes.hasDimensions = true;
                             });
}

/// window_dimensions, window_strides, base/lhs and window/rhs dilations,
/// padding: one WindowDimension per dimension of the operand.
llvm::Expected<hlo::Window> windowOf(const OpContext &context, size_t rank,
                                     llvm::StringRef sizesKey, llvm::StringRef baseDilationKey,
                                     llvm::StringRef windowDilationKey) {
  DimVector sizes, strides, baseDilations, windowDilations, padding, reversal;
  if (!sizesKey.empty())
    if (llvm::Error error = context.integers(sizesKey, sizes))
      return std::move(error);
  for (auto [key, values] : {std::pair<llvm::StringRef, DimVector *>{"window_strides", &strides},
                             {baseDilationKey, &baseDilations},
                             {windowDilationKey, &windowDilations},
                             {"padding", &padding},
                             {"window_reversal", &reversal}})
    if (llvm::Error error = context.integers(key, *values, /*optional=*/true))
      return std::move(error);
  hlo::Window window(rank);
  auto fits = [&](const DimVector &values, size_t per) {
    return values.empty() || values.size() == rank * per;
  };
  if ((!sizes.empty() && sizes.size() != rank) || !fits(strides, 1) || !fits(baseDilations, 1) ||
      !fits(windowDilations, 1) || !fits(padding, 2) || !fits(reversal, 1))
    return context.error("window attributes must have one entry per dimension (" +
                         llvm::Twine(rank) + ")");
  for (size_t i = 0; i < rank; ++i) {
    hlo::WindowDimension &dim = window[i];
    if (!sizes.empty())
      dim.size = sizes[i];
    if (!strides.empty())
      dim.stride = strides[i];
    if (!baseDilations.empty())
      dim.baseDilation = baseDilations[i];
    if (!windowDilations.empty())
      dim.windowDilation = windowDilations[i];
    if (!padding.empty()) {
      dim.paddingLow = padding[2 * i];
      dim.paddingHigh = padding[2 * i + 1];
    }
    if (!reversal.empty())
      dim.windowReversal = reversal[i] != 0;
  }
  return window;
}

llvm::Error lowerReduceWindow(OpContext &context) {
  if (context.operands.empty())
    return context.error("expected operands");
  auto window = windowOf(context, static_cast<size_t>(context.operands[0]->shape().rank()),
                         "window_dimensions", "base_dilations", "window_dilations");
  if (!window)
    return window.takeError();
  auto body = scalarRegion(context, 0, "reducer");
  if (!body)
    return body.takeError();
  return addWithComputations(context, Opcode::ReduceWindow, context.operands, {*body},
                             [&](hlo::InstructionAttributes &attributes) {
                               attributes.window = *window;
                               attributes.hasWindow = true;
                             });
}

llvm::Error lowerSelectAndScatter(OpContext &context) {
  if (context.operands.size() != 3)
    return context.error("expected operand, source and init_value");
  auto window = windowOf(context, static_cast<size_t>(context.operands[0]->shape().rank()),
                         "window_dimensions", "", "");
  if (!window)
    return window.takeError();
  auto select = scalarRegion(context, 0, "select");
  if (!select)
    return select.takeError();
  auto scatter = scalarRegion(context, 1, "scatter");
  if (!scatter)
    return scatter.takeError();
  return addWithComputations(context, Opcode::SelectAndScatter, context.operands,
                             {*select, *scatter}, [&](hlo::InstructionAttributes &attributes) {
                               attributes.window = *window;
                               attributes.hasWindow = true;
                             });
}

llvm::Error lowerSort(OpContext &context) {
  if (context.operands.empty())
    return context.error("expected operands");
  int64_t dimension = context.optionalInteger("dimension").value_or(-1);
  if (dimension < 0)
    dimension += context.operands[0]->shape().rank();
  auto comparator = scalarRegion(context, 0, "comparator");
  if (!comparator)
    return comparator.takeError();
  return addWithComputations(context, Opcode::Sort, context.operands, {*comparator},
                             [&](hlo::InstructionAttributes &attributes) {
                               attributes.dimensions = {dimension};
                               attributes.hasDimensions = true;
                               attributes.isStable = context.flag("is_stable");
                             });
}

llvm::Error lowerMap(OpContext &context) {
  DimVector dimensions;
  if (llvm::Error error = context.integers("dimensions", dimensions))
    return error;
  auto body = scalarRegion(context, 0, "mapped");
  if (!body)
    return body.takeError();
  return addWithComputations(context, Opcode::Map, context.operands, {*body},
                             [&](hlo::InstructionAttributes &attributes) {
                               attributes.dimensions = dimensions;
                               attributes.hasDimensions = true;
                             });
}

llvm::Error lowerScatter(OpContext &context) {
  size_t count = context.operands.size();
  if (count < 3 || count % 2 == 0)
    return context.error("expected inputs, scatter_indices and as many updates as inputs");
  const Attribute *numbers = context.attribute("scatter_dimension_numbers");
  if (!numbers || numbers->kind != Attribute::Kind::Struct)
    return context.error("expected scatter_dimension_numbers = #stablehlo.scatter<...>");
  hlo::ScatterDimensionNumbers scatter;
  for (auto [key, field] :
       {std::pair<llvm::StringRef, DimVector *>{"update_window_dims", &scatter.updateWindowDims},
        {"inserted_window_dims", &scatter.insertedWindowDims},
        {"input_batching_dims", &scatter.inputBatchingDims},
        {"scatter_indices_batching_dims", &scatter.scatterIndicesBatchingDims},
        {"scatter_dims_to_operand_dims", &scatter.scatterDimsToOperandDims}}) {
    field->clear();
    if (const Attribute *value = numbers->field(key))
      if (!integersOf(*value, *field))
        return hlo::errorAt(value->location, "expected integers for '" + key + "'");
  }
  const Attribute *indexVector = numbers->field("index_vector_dim");
  scatter.indexVectorDim =
      indexVector && indexVector->kind == Attribute::Kind::Integer ? indexVector->integer : 0;
  auto body = scalarRegion(context, 0, "update");
  if (!body)
    return body.takeError();
  return addWithComputations(context, Opcode::Scatter, context.operands, {*body},
                             [&](hlo::InstructionAttributes &attributes) {
                               attributes.scatterDimensions = scatter;
                               attributes.indicesAreSorted = context.flag("indices_are_sorted");
                               attributes.uniqueIndices = context.flag("unique_indices");
                             });
}

} // namespace

llvm::Expected<hlo::Window> windowAttributes(const OpContext &context, size_t rank,
                                             llvm::StringRef sizesKey,
                                             llvm::StringRef baseDilationKey,
                                             llvm::StringRef windowDilationKey) {
  return windowOf(context, rank, sizesKey, baseDilationKey, windowDilationKey);
}

void registerReductionLowerings(llvm::StringMap<OpLowering> &table) {
  table["stablehlo.reduce"] = lowerReduce;
  table["stablehlo.reduce_window"] = lowerReduceWindow;
  table["stablehlo.select_and_scatter"] = lowerSelectAndScatter;
  table["stablehlo.sort"] = lowerSort;
  table["stablehlo.map"] = lowerMap;
  table["stablehlo.scatter"] = lowerScatter;
}

} // namespace mote::stablehlo
