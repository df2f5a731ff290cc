//===- LowerDataMovement.cpp - Constants, shapes and indexing to HLO ------===//

#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::DimVector;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// The result type's shape, which must be static.
llvm::Expected<Shape> staticResult(const OpContext &context, size_t i = 0) {
  Shape shape = context.resultShape(i);
  if (!shape.isValid())
    return context.error("unsupported result type");
  if (shape.isArray() && (shape.hasUnboundedDims() || shape.hasDynamicDims()))
    return context.unsupported("the result shape " + shape.toString(false) +
                               " is dynamic and nothing here pins it");
  return shape;
}

/// The result shape of a dynamic op: the result type where static, else the
/// dimensions its shape operand `shapeOperand` folds to.
llvm::Expected<Shape> dynamicResult(const OpContext &context, size_t shapeOperand) {
  Shape shape = context.resultShape(0);
  if (shape.isArray() && !shape.hasUnboundedDims() && !shape.hasDynamicDims())
    return shape;
  DimVector dims;
  if (shapeOperand >= context.operands.size() ||
      !constantIntegers(context.operands[shapeOperand], dims) || !shape.isArray() ||
      static_cast<int64_t>(dims.size()) != shape.rank())
    return staticResult(context);
  return Shape::array(shape.elementType(), dims);
}

llvm::Error lowerConstant(OpContext &context) {
  const Attribute *value = context.attribute("value");
  if (!value || !value->type)
    return context.error("expected a value");
  auto shape = staticResult(context);
  if (!shape)
    return shape.takeError();
  auto literal = denseLiteral(*value, *shape, context.converter);
  if (!literal)
    return literal.takeError();
  context.results = {context.constant(std::move(*literal))};
  return llvm::Error::success();
}

/// iota, and dynamic_iota whose result type is static (its shape operand
/// only restates it).
llvm::Error lowerIota(OpContext &context) {
  auto shape = dynamicResult(context, 0);
  if (!shape)
    return shape.takeError();
  auto dimension = context.integer("iota_dimension");
  if (!dimension)
    return dimension.takeError();
  Instruction *iota = context.add(Opcode::Iota, *shape, {});
  iota->mutableAttributes().iotaDimension = *dimension;
  context.results = {iota};
  return llvm::Error::success();
}

} // namespace

/// broadcast_in_dim allows an operand dimension of size 1 to stretch; HLO's
/// broadcast does not, so such dimensions are reshaped away first.
llvm::Expected<Instruction *> broadcastInDim(OpContext &context, Instruction *operand,
                                             const Shape &result,
                                             llvm::ArrayRef<int64_t> dimensions) {
  const Shape &in = operand->shape();
  if (static_cast<int64_t>(dimensions.size()) != in.rank())
    return context.error("broadcast_dimensions has " + llvm::Twine(dimensions.size()) +
                         " entries for an operand of rank " + llvm::Twine(in.rank()));
  DimVector kept, keptDims;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (dimensions[i] < 0 || dimensions[i] >= result.rank())
      return context.error("broadcast dimension out of range");
    if (in.dim(i) == 1 && result.dim(dimensions[i]) != 1)
      continue;
    if (in.dim(i) != result.dim(dimensions[i]))
      return context.error("operand dimension " + llvm::Twine(i) + " (" + llvm::Twine(in.dim(i)) +
                           ") does not fit result dimension " + llvm::Twine(dimensions[i]));
    kept.push_back(i);
    keptDims.push_back(dimensions[i]);
  }
  if (static_cast<int64_t>(kept.size()) != in.rank()) {
    DimVector sizes;
    for (int64_t i : kept)
      sizes.push_back(in.dim(i));
    operand = context.add(Opcode::Reshape, Shape::array(in.elementType(), sizes), {operand});
  }
  Shape shape = Shape::array(in.elementType(), result.dims());
  if (operand->shape().dims() == llvm::ArrayRef<int64_t>(shape.dims()) &&
      std::is_sorted(keptDims.begin(), keptDims.end()))
    return operand;
  Instruction *broadcast = context.add(Opcode::Broadcast, shape, {operand});
  broadcast->mutableAttributes().dimensions = keptDims;
  broadcast->mutableAttributes().hasDimensions = true;
  return broadcast;
}

namespace {

llvm::Error lowerBroadcastInDim(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto shape = staticResult(context);
  if (!shape)
    return shape.takeError();
  DimVector dimensions;
  if (llvm::Error error = context.integers("broadcast_dimensions", dimensions))
    return error;
  return context.setResult(broadcastInDim(context, context.operands[0], *shape, dimensions));
}

llvm::Error lowerBroadcast(OpContext &context) { // the old stablehlo.broadcast: new leading dims
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto shape = staticResult(context);
  if (!shape)
    return shape.takeError();
  Instruction *operand = context.operands[0];
  DimVector dimensions;
  for (int64_t i = 0; i < operand->shape().rank(); ++i)
    dimensions.push_back(shape->rank() - operand->shape().rank() + i);
  return context.setResult(broadcastInDim(context, operand, *shape, dimensions));
}

llvm::Error lowerReshape(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto shape = staticResult(context);
  if (!shape)
    return shape.takeError();
  context.results = {context.add(Opcode::Reshape, *shape, context.operands)};
  return llvm::Error::success();
}

/// An op whose attribute `key` goes to `dimensions` and whose shape HLO infers.
llvm::Error lowerWithDimensions(OpContext &context, Opcode opcode, llvm::StringRef key) {
  if (llvm::Error error = context.expectCounts(context.operands.size(), 1))
    return error;
  DimVector dimensions;
  if (llvm::Error error = context.integers(key, dimensions))
    return error;
  return context.setResult(
      context.addInferred(opcode, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().dimensions = dimensions;
        instruction.mutableAttributes().hasDimensions = true;
      }));
}

llvm::Error lowerTranspose(OpContext &context) {
  return lowerWithDimensions(context, Opcode::Transpose, "permutation");
}
llvm::Error lowerReverse(OpContext &context) {
  return lowerWithDimensions(context, Opcode::Reverse, "dimensions");
}

llvm::Error lowerConcatenate(OpContext &context) {
  auto dimension = context.integer("dimension");
  if (!dimension)
    return dimension.takeError();
  auto result =
      context.addInferred(Opcode::Concatenate, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().dimensions = {*dimension};
        instruction.mutableAttributes().hasDimensions = true;
      });
  if (!result)
    return result.takeError();
  context.results = {*result};
  return llvm::Error::success();
}

llvm::Error lowerSlice(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  DimVector starts, limits, strides;
  if (llvm::Error error = context.integers("start_indices", starts))
    return error;
  if (llvm::Error error = context.integers("limit_indices", limits))
    return error;
  if (llvm::Error error = context.integers("strides", strides, /*optional=*/true))
    return error;
  if (strides.empty())
    strides.assign(starts.size(), 1);
  if (starts.size() != limits.size() || starts.size() != strides.size())
    return context.error("start_indices, limit_indices and strides differ in length");
  return context.setResult(
      context.addInferred(Opcode::Slice, context.operands, [&](Instruction &instruction) {
        for (size_t i = 0; i < starts.size(); ++i)
          instruction.mutableAttributes().slice.push_back({starts[i], limits[i], strides[i]});
      }));
}

llvm::Error lowerDynamicSlice(OpContext &context) {
  DimVector sizes;
  if (llvm::Error error = context.integers("slice_sizes", sizes))
    return error;
  auto result =
      context.addInferred(Opcode::DynamicSlice, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().dynamicSliceSizes = sizes;
      });
  if (!result)
    return result.takeError();
  context.results = {*result};
  return llvm::Error::success();
}

llvm::Error lowerDynamicUpdateSlice(OpContext &context) {
  return context.setResult(context.addInferred(Opcode::DynamicUpdateSlice, context.operands));
}

llvm::Error lowerPad(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  DimVector low, high, interior;
  if (llvm::Error error = context.integers("edge_padding_low", low))
    return error;
  if (llvm::Error error = context.integers("edge_padding_high", high))
    return error;
  if (llvm::Error error = context.integers("interior_padding", interior))
    return error;
  if (low.size() != high.size() || low.size() != interior.size())
    return context.error("the padding lists differ in length");
  return context.setResult(
      context.addInferred(Opcode::Pad, context.operands, [&](Instruction &instruction) {
        for (size_t i = 0; i < low.size(); ++i)
          instruction.mutableAttributes().padding.push_back({low[i], high[i], interior[i]});
      }));
}

/// The integers of field `key` of the struct attribute `numbers` (empty when absent).
llvm::Error structField(const OpContext &context, const Attribute &numbers, llvm::StringRef key,
                        DimVector &out) {
  out.clear();
  const Attribute *value = numbers.field(key);
  if (!value)
    return llvm::Error::success();
  if (!integersOf(*value, out))
    return hlo::errorAt(value->location, "expected integers for '" + key + "'");
  (void)context;
  return llvm::Error::success();
}

int64_t structInteger(const Attribute &numbers, llvm::StringRef key, int64_t fallback) {
  const Attribute *value = numbers.field(key);
  return value && value->kind == Attribute::Kind::Integer ? value->integer : fallback;
}

llvm::Error lowerGather(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  const Attribute *numbers = context.attribute("dimension_numbers");
  if (!numbers || numbers->kind != Attribute::Kind::Struct)
    return context.error("expected dimension_numbers = #stablehlo.gather<...>");
  hlo::GatherDimensionNumbers gather;
  for (auto [key, field] :
       {std::pair<llvm::StringRef, DimVector *>{"offset_dims", &gather.offsetDims},
        {"collapsed_slice_dims", &gather.collapsedSliceDims},
        {"operand_batching_dims", &gather.operandBatchingDims},
        {"start_indices_batching_dims", &gather.startIndicesBatchingDims},
        {"start_index_map", &gather.startIndexMap}})
    if (llvm::Error error = structField(context, *numbers, key, *field))
      return error;
  gather.indexVectorDim = structInteger(*numbers, "index_vector_dim", 0);
  DimVector sizes;
  if (llvm::Error error = context.integers("slice_sizes", sizes))
    return error;
  auto result =
      context.addInferred(Opcode::Gather, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().gatherDimensions = gather;
        instruction.mutableAttributes().gatherSliceSizes = sizes;
        instruction.mutableAttributes().indicesAreSorted = context.flag("indices_are_sorted");
      });
  if (!result)
    return result.takeError();
  context.results = {*result};
  return llvm::Error::success();
}

llvm::Error lowerGetTupleElement(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto index = context.integer("index");
  if (!index)
    return index.takeError();
  const Shape &shape = context.operands[0]->shape();
  if (!shape.isTuple() || *index < 0 || static_cast<size_t>(*index) >= shape.tupleSize())
    return context.error("index out of range of the tuple");
  context.results = {context.getTupleElement(context.operands[0], *index)};
  return llvm::Error::success();
}

llvm::Error lowerTuple(OpContext &context) {
  context.results = {context.tuple(context.operands)};
  return llvm::Error::success();
}

/// optimization_barrier and the interpreter's probe hand their operands on.
llvm::Error lowerPassThrough(OpContext &context) {
  context.results = context.operands;
  return llvm::Error::success();
}

llvm::Error lowerAfterAll(OpContext &context) {
  context.results = {context.add(Opcode::AfterAll, Shape::token(), context.operands)};
  return llvm::Error::success();
}

llvm::Error lowerGetDimensionSize(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  auto dimension = context.integer("dimension");
  if (!dimension)
    return dimension.takeError();
  const Shape &shape = context.operands[0]->shape();
  if (*dimension < 0 || *dimension >= shape.rank())
    return context.error("dimension out of range");
  if (shape.isDynamicDim(*dimension))
    return context.unsupported("the size of a dynamic dimension");
  context.results = {
      context.scalar(PrimitiveType::S32, static_cast<double>(shape.dim(*dimension)))};
  return llvm::Error::success();
}

/// The static equivalent of a dynamic op whose shape operand is known.
llvm::Error lowerDynamicBroadcastInDim(OpContext &context) {
  auto shape = dynamicResult(context, 1);
  if (!shape)
    return shape.takeError();
  DimVector dimensions;
  if (llvm::Error error = context.integers("broadcast_dimensions", dimensions))
    return error;
  return context.setResult(broadcastInDim(context, context.operands[0], *shape, dimensions));
}

llvm::Error lowerDynamicReshape(OpContext &context) {
  auto shape = dynamicResult(context, 1);
  if (!shape)
    return shape.takeError();
  context.results = {context.add(Opcode::Reshape, *shape, {context.operands[0]})};
  return llvm::Error::success();
}

} // namespace

namespace {

/// dynamic_pad with constant paddings is pad.
llvm::Error lowerDynamicPad(OpContext &context) {
  if (llvm::Error error = context.expectCounts(5, 1))
    return error;
  DimVector low, high, interior;
  if (!constantIntegers(context.operands[2], low) || !constantIntegers(context.operands[3], high) ||
      !constantIntegers(context.operands[4], interior))
    return context.unsupported("paddings that are not constants");
  return context.setResult(context.addInferred(
      Opcode::Pad, {context.operands[0], context.operands[1]}, [&](Instruction &instruction) {
        for (size_t i = 0; i < low.size() && i < high.size() && i < interior.size(); ++i)
          instruction.mutableAttributes().padding.push_back({low[i], high[i], interior[i]});
      }));
}

/// dynamic_gather with constant slice sizes is gather.
llvm::Error lowerDynamicGather(OpContext &context) {
  if (llvm::Error error = context.expectCounts(3, 1))
    return error;
  DimVector sizes;
  if (!constantIntegers(context.operands[2], sizes))
    return context.unsupported("slice sizes that are not constants");
  Operation rewritten = context.op;
  rewritten.name = "stablehlo.gather";
  rewritten.attributes.push_back(
      {"slice_sizes", Attribute::integerList(Attribute::Kind::DenseArray, sizes)});
  OpContext inner(context.converter, rewritten, context.scope,
                  {context.operands[0], context.operands[1]});
  if (llvm::Error error = lowerGather(inner))
    return error;
  context.results = inner.results;
  return llvm::Error::success();
}

} // namespace

void registerDataMovementLowerings(llvm::StringMap<OpLowering> &table) {
  table["stablehlo.constant"] = lowerConstant;
  table["stablehlo.iota"] = lowerIota;
  table["stablehlo.broadcast_in_dim"] = lowerBroadcastInDim;
  table["stablehlo.broadcast"] = lowerBroadcast;
  table["stablehlo.reshape"] = lowerReshape;
  table["stablehlo.transpose"] = lowerTranspose;
  table["stablehlo.reverse"] = lowerReverse;
  table["stablehlo.concatenate"] = lowerConcatenate;
  table["stablehlo.slice"] = lowerSlice;
  table["stablehlo.dynamic_slice"] = lowerDynamicSlice;
  table["stablehlo.dynamic_update_slice"] = lowerDynamicUpdateSlice;
  table["stablehlo.pad"] = lowerPad;
  table["stablehlo.gather"] = lowerGather;
  table["stablehlo.get_tuple_element"] = lowerGetTupleElement;
  table["stablehlo.tuple"] = lowerTuple;
  table["stablehlo.optimization_barrier"] = lowerPassThrough;
  table["interpreter.probe"] = lowerPassThrough;
  table["stablehlo.after_all"] = lowerAfterAll;
  table["stablehlo.create_token"] = lowerAfterAll;
  table["stablehlo.get_dimension_size"] = lowerGetDimensionSize;
  table["stablehlo.dynamic_broadcast_in_dim"] = lowerDynamicBroadcastInDim;
  table["stablehlo.dynamic_reshape"] = lowerDynamicReshape;
  table["stablehlo.dynamic_iota"] = lowerIota;
  table["stablehlo.dynamic_pad"] = lowerDynamicPad;
  table["stablehlo.dynamic_gather"] = lowerDynamicGather;
}

} // namespace mote::stablehlo
