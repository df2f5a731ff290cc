//===- ChloRaggedDot.cpp - chlo.ragged_dot as a masked dot ----------------===//
//
// chlo.ragged_dot: group_sizes splits lhs's ragged dimension into runs
// (end_g the running sum of the sizes; indices after the last run belong
// to no group).
//  - A ragged non-contracting dimension ("mode 1"): run g of the rows is
//    multiplied by slice g of rhs's group dimension, rows in no run are
//    zero. It becomes one dot_general in which rhs's group dimension stays
//    free, so every row meets every group; a mask keeps each row's own
//    group and a sum over g drops the group dimension. Masking the
//    products rather than the operands keeps infinities in another group's
//    matrix from turning into NaN (0 * inf).
//  - A ragged contracting dimension ("mode 2", the gradient of mode 1 with
//    respect to rhs): result g contracts over run g only, giving
//    [groups, batch..., lhs free..., rhs free...]. Both operands are
//    spread over a leading group dimension and masked to the run, then
//    multiplied in one dot batched over the groups.
// Either costs g times the plain dot. A ragged batch dimension ("mode 3")
// is refused.
//
//===----------------------------------------------------------------------===//

#include "stablehlo/Chlo.h"

#include "hlo/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"

namespace mote::stablehlo {

using hlo::ComparisonDirection;
using hlo::DimVector;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// Dimensions of a `rank`-dimensional operand in neither list, ascending.
DimVector freeDimensions(int64_t rank, llvm::ArrayRef<int64_t> batch,
                         llvm::ArrayRef<int64_t> contracting) {
  DimVector free;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(batch, i) && !llvm::is_contained(contracting, i))
      free.push_back(i);
  return free;
}

/// The running sums of `sizes` (s64) along its last dimension: end of each run.
llvm::Expected<Instruction *> runEnds(OpContext &context, Instruction *sizes) {
  const Shape &shape = sizes->shape();
  const int64_t rank = shape.rank();
  DimVector squareDims(shape.dims().begin(), shape.dims().end());
  squareDims.push_back(shape.dim(rank - 1));
  Shape square = Shape::array(PrimitiveType::S64, squareDims);
  // square[..., g, h] = sizes[..., h] where h <= g, else 0; summed over h.
  DimVector spread;
  for (int64_t i = 0; i + 1 < rank; ++i)
    spread.push_back(i);
  spread.push_back(rank);
  auto spreadSizes = broadcastInDim(context, sizes, square, spread);
  if (!spreadSizes)
    return spreadSizes.takeError();
  Instruction *g = context.add(Opcode::Iota, square, {});
  g->mutableAttributes().iotaDimension = rank - 1;
  Instruction *h = context.add(Opcode::Iota, square, {});
  h->mutableAttributes().iotaDimension = rank;
  Instruction *kept = context.select(context.compare(h, g, ComparisonDirection::LE), *spreadSizes,
                                     context.splat(PrimitiveType::S64, 0, square));
  Instruction *ends = context.add(Opcode::Reduce, Shape::array(PrimitiveType::S64, shape.dims()),
                                  {kept, context.scalar(PrimitiveType::S64, 0)});
  ends->addCalledComputation(context.converter.binaryComputation(Opcode::Add, PrimitiveType::S64));
  ends->mutableAttributes().dimensions = {rank};
  ends->mutableAttributes().hasDimensions = true;
  return ends;
}

/// Whether each index of `dims` along `position` lies in the run of the
/// group indexed along another dimension: start_g <= i < end_g, with
/// group_sizes' dimensions (batch..., g) going to `sizesTo` in `dims`.
llvm::Expected<Instruction *> inRun(OpContext &context, Instruction *sizes, Instruction *ends,
                                    llvm::ArrayRef<int64_t> dims, int64_t position,
                                    llvm::ArrayRef<int64_t> sizesTo) {
  Instruction *starts = context.binary(Opcode::Subtract, ends, sizes);
  Shape positions = Shape::array(PrimitiveType::S64, dims);
  auto startsAt = broadcastInDim(context, starts, positions, sizesTo);
  if (!startsAt)
    return startsAt.takeError();
  auto endsAt = broadcastInDim(context, ends, positions, sizesTo);
  if (!endsAt)
    return endsAt.takeError();
  Instruction *index = context.add(Opcode::Iota, positions, {});
  index->mutableAttributes().iotaDimension = position;
  return context.binary(Opcode::And, context.compare(index, *startsAt, ComparisonDirection::GE),
                        context.compare(index, *endsAt, ComparisonDirection::LT));
}

/// Ragged rows: one dot with rhs's group dimension free, each row's products
/// kept for its own group only, summed over groups.
llvm::Error lowerRaggedRows(OpContext &context, const hlo::DotDimensionNumbers &dot, int64_t ragged,
                            int64_t group, Instruction *sizes, Instruction *ends) {
  Instruction *lhs = context.operands[0], *rhs = context.operands[1];
  const int64_t batchCount = int64_t(dot.lhsBatchDimensions.size());
  PrimitiveType resultType = context.resultType(0).element;
  auto product = context.addInferred(
      Opcode::Dot, {lhs, rhs},
      [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = dot; },
      Shape::scalar(resultType));
  if (!product)
    return product.takeError();
  const Shape &products = (*product)->shape();
  DimVector lhsFree =
      freeDimensions(lhs->shape().rank(), dot.lhsBatchDimensions, dot.lhsContractingDimensions);
  DimVector rhsFree =
      freeDimensions(rhs->shape().rank(), dot.rhsBatchDimensions, dot.rhsContractingDimensions);
  const int64_t rowDimension = batchCount + (llvm::find(lhsFree, ragged) - lhsFree.begin());
  const int64_t groupDimension =
      batchCount + int64_t(lhsFree.size()) + (llvm::find(rhsFree, group) - rhsFree.begin());
  DimVector sizesTo;
  for (int64_t i = 0; i + 1 < sizes->shape().rank(); ++i)
    sizesTo.push_back(i);
  sizesTo.push_back(groupDimension);
  auto kept = inRun(context, sizes, ends, products.dims(), rowDimension, sizesTo);
  if (!kept)
    return kept.takeError();
  PrimitiveType productType = products.elementType();
  Instruction *masked = context.select(*kept, *product, context.splat(productType, 0, products));

  DimVector resultDims;
  for (int64_t i = 0; i < products.rank(); ++i)
    if (i != groupDimension)
      resultDims.push_back(products.dim(i));
  Instruction *sum = context.add(Opcode::Reduce, Shape::array(productType, resultDims),
                                 {masked, context.scalar(productType, 0)});
  sum->addCalledComputation(context.converter.binaryComputation(Opcode::Add, productType));
  sum->mutableAttributes().dimensions = {groupDimension};
  sum->mutableAttributes().hasDimensions = true;
  context.results = {productType == resultType ? sum : context.convert(sum, resultType)};
  return llvm::Error::success();
}

/// A ragged contracting dimension: both operands are spread over a leading
/// group dimension and masked to their group's run of that dimension (both,
/// so no infinity outside the run meets a zero), then one dot batched over
/// the groups gives [groups, batch..., lhs free..., rhs free...].
llvm::Error lowerRaggedContraction(OpContext &context, const hlo::DotDimensionNumbers &dot,
                                   int64_t ragged, Instruction *sizes, Instruction *ends) {
  const Shape &sizesShape = sizes->shape();
  const int64_t groups = sizesShape.dim(sizesShape.rank() - 1);
  const size_t pair =
      llvm::find(dot.lhsContractingDimensions, ragged) - dot.lhsContractingDimensions.begin();
  if (pair >= dot.rhsContractingDimensions.size())
    return context.error("ragged_dot's contracting dimensions do not pair up");
  auto spread = [&](Instruction *operand, int64_t position,
                    llvm::ArrayRef<int64_t> batch) -> llvm::Expected<Instruction *> {
    const Shape &shape = operand->shape();
    DimVector dims = {groups}, to;
    for (int64_t i = 0; i < shape.rank(); ++i) {
      dims.push_back(shape.dim(i));
      to.push_back(i + 1);
    }
    auto copies = broadcastInDim(context, operand, Shape::array(shape.elementType(), dims), to);
    if (!copies)
      return copies.takeError();
    DimVector sizesTo;
    for (int64_t i = 0; i + 1 < sizesShape.rank(); ++i)
      sizesTo.push_back(batch[i] + 1);
    sizesTo.push_back(0);
    auto kept = inRun(context, sizes, ends, dims, position + 1, sizesTo);
    if (!kept)
      return kept.takeError();
    return context.select(*kept, *copies,
                          context.splat(shape.elementType(), 0, (*copies)->shape()));
  };
  auto lhs = spread(context.operands[0], ragged, dot.lhsBatchDimensions);
  if (!lhs)
    return lhs.takeError();
  auto rhs =
      spread(context.operands[1], dot.rhsContractingDimensions[pair], dot.rhsBatchDimensions);
  if (!rhs)
    return rhs.takeError();
  hlo::DotDimensionNumbers grouped;
  grouped.lhsBatchDimensions = {0};
  grouped.rhsBatchDimensions = {0};
  for (auto [from, to] : {std::pair{&dot.lhsBatchDimensions, &grouped.lhsBatchDimensions},
                          {&dot.rhsBatchDimensions, &grouped.rhsBatchDimensions},
                          {&dot.lhsContractingDimensions, &grouped.lhsContractingDimensions},
                          {&dot.rhsContractingDimensions, &grouped.rhsContractingDimensions}})
    for (int64_t d : *from)
      to->push_back(d + 1);
  PrimitiveType resultType = context.resultType(0).element;
  auto product = context.addInferred(
      Opcode::Dot, {*lhs, *rhs},
      [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = grouped; },
      Shape::scalar(resultType));
  if (!product)
    return product.takeError();
  PrimitiveType productType = (*product)->shape().elementType();
  context.results = {productType == resultType ? *product : context.convert(*product, resultType)};
  return llvm::Error::success();
}

llvm::Error lowerRaggedDot(OpContext &context) {
  if (llvm::Error error = context.expectCounts(3, 1))
    return error;
  const Attribute *numbers = context.attribute("ragged_dot_dimension_numbers");
  if (!numbers || numbers->kind != Attribute::Kind::Struct)
    return context.error("expected ragged_dot_dimension_numbers");
  hlo::DotDimensionNumbers dot;
  // CHLO writes the dot's fields beside the ragged ones; MHLO nests them.
  const Attribute *nested = numbers->field("dot_dimension_numbers");
  if (llvm::Error error = readDotDimensions(nested ? *nested : *numbers, dot))
    return error;
  DimVector ragged, group;
  for (auto [key, field] :
       {std::pair<llvm::StringRef, DimVector *>{"lhs_ragged_dimensions", &ragged},
        {"rhs_group_dimensions", &group}})
    if (const Attribute *value = numbers->field(key))
      if (!integersOf(*value, *field))
        return hlo::errorAt(value->location, "expected integers for '" + key + "'");
  if (ragged.size() != 1)
    return context.error("ragged_dot needs exactly one lhs_ragged_dimensions entry");
  if (llvm::is_contained(dot.lhsBatchDimensions, ragged[0]))
    return context.unsupported("ragged_dot with a ragged batch dimension");
  const bool contracting = llvm::is_contained(dot.lhsContractingDimensions, ragged[0]);
  if (group.size() != (contracting ? 0 : 1))
    return context.error(contracting ? "ragged_dot with a ragged contracting dimension takes no "
                                       "rhs_group_dimensions"
                                     : "ragged_dot with a ragged non-contracting dimension needs "
                                       "one rhs_group_dimensions entry");

  Instruction *sizes = context.operands[2];
  const int64_t lhsRank = context.operands[0]->shape().rank();
  const int64_t rhsRank = context.operands[1]->shape().rank();
  if (ragged[0] < 0 || ragged[0] >= lhsRank ||
      (!contracting && (group[0] < 0 || group[0] >= rhsRank)))
    return context.error("ragged_dot dimension out of range");
  if (!hlo::isInteger(sizes->shape().elementType()))
    return context.error("ragged_dot's group_sizes must be integers");
  const int64_t batchCount = int64_t(dot.lhsBatchDimensions.size());
  const Shape &sizesShape = sizes->shape();
  if (sizesShape.rank() == 0 || (!contracting && sizesShape.dim(sizesShape.rank() - 1) !=
                                                     context.operands[1]->shape().dim(group[0])))
    return context.error("ragged_dot's group_sizes must end with the number of groups");
  // JAX also allows sizes per index of the lhs dimensions outer to the
  // ragged one ([batch..., outer..., groups]); those are not lowered.
  if (sizesShape.rank() != 1 && sizesShape.rank() != batchCount + 1)
    return context.unsupported("ragged_dot group_sizes other than [groups] or [batch..., groups]");

  Instruction *wideSizes = context.convert(sizes, PrimitiveType::S64);
  auto ends = runEnds(context, wideSizes);
  if (!ends)
    return ends.takeError();
  if (contracting)
    return lowerRaggedContraction(context, dot, ragged[0], wideSizes, *ends);
  return lowerRaggedRows(context, dot, ragged[0], group[0], wideSizes, *ends);
}

} // namespace

void registerChloRaggedDotLowering(llvm::StringMap<OpLowering> &table) {
  table["chlo.ragged_dot"] = lowerRaggedDot;
}

} // namespace mote::stablehlo
