//===- ChloRaggedDot.cpp - chlo.ragged_dot as a masked dot ----------------===//
//
// chlo.ragged_dot multiplies consecutive rows of lhs by different matrices:
// group_sizes splits lhs's ragged dimension into runs, and run g is
// multiplied by slice g of rhs's group dimension (rows after the last run
// are zero). Only this form, the ragged dimension not contracted and not a
// batch dimension ("mode 1"), is lowered; the others are refused.
//
// It becomes one dot_general in which rhs's group dimension stays free, so
// every row meets every group: [batch..., lhs free..., rhs free...] with g
// among the rhs free dimensions. A mask keeps, for each row, only the group
// whose run holds it (start_g <= row < end_g, end_g the running sum of the
// sizes), and a sum over g drops the group dimension. Masking the products
// rather than the operands keeps infinities in another group's matrix from
// turning into NaN (0 * inf). The cost is g times that of the plain dot.
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
  if (llvm::is_contained(dot.lhsContractingDimensions, ragged[0]))
    return context.unsupported("ragged_dot with a ragged contracting dimension");
  if (llvm::is_contained(dot.lhsBatchDimensions, ragged[0]))
    return context.unsupported("ragged_dot with a ragged batch dimension");
  if (group.size() != 1)
    return context.error("ragged_dot with a ragged non-contracting dimension needs one "
                         "rhs_group_dimensions entry");

  Instruction *lhs = context.operands[0], *rhs = context.operands[1];
  Instruction *sizes = context.operands[2];
  const int64_t lhsRank = lhs->shape().rank(), rhsRank = rhs->shape().rank();
  if (ragged[0] < 0 || ragged[0] >= lhsRank || group[0] < 0 || group[0] >= rhsRank)
    return context.error("ragged_dot dimension out of range");
  if (!hlo::isInteger(sizes->shape().elementType()))
    return context.error("ragged_dot's group_sizes must be integers");
  const int64_t batchCount = int64_t(dot.lhsBatchDimensions.size());
  const int64_t groups = rhs->shape().dim(group[0]);
  const Shape &sizesShape = sizes->shape();
  if (sizesShape.rank() == 0 || sizesShape.dim(sizesShape.rank() - 1) != groups ||
      (sizesShape.rank() != 1 && sizesShape.rank() != batchCount + 1))
    return context.error("ragged_dot's group_sizes must be [groups] or [batch..., groups]");

  // One dot with the group dimension free on the rhs side.
  PrimitiveType resultType = context.resultType(0).element;
  auto product = context.addInferred(
      Opcode::Dot, {lhs, rhs},
      [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = dot; },
      Shape::scalar(resultType));
  if (!product)
    return product.takeError();
  const Shape &products = (*product)->shape();
  DimVector lhsFree = freeDimensions(lhsRank, dot.lhsBatchDimensions, dot.lhsContractingDimensions);
  DimVector rhsFree = freeDimensions(rhsRank, dot.rhsBatchDimensions, dot.rhsContractingDimensions);
  const int64_t rowDimension = batchCount + (llvm::find(lhsFree, ragged[0]) - lhsFree.begin());
  const int64_t groupDimension =
      batchCount + int64_t(lhsFree.size()) + (llvm::find(rhsFree, group[0]) - rhsFree.begin());

  // Row r of group g is kept where start_g <= r < end_g.
  Instruction *wideSizes = context.convert(sizes, PrimitiveType::S64);
  auto ends = runEnds(context, wideSizes);
  if (!ends)
    return ends.takeError();
  Instruction *starts = context.binary(Opcode::Subtract, *ends, wideSizes);
  DimVector sizesTo;
  for (int64_t i = 0; i + 1 < sizesShape.rank(); ++i)
    sizesTo.push_back(i);
  sizesTo.push_back(groupDimension);
  Shape positions = Shape::array(PrimitiveType::S64, products.dims());
  auto startsAt = broadcastInDim(context, starts, positions, sizesTo);
  auto endsAt = broadcastInDim(context, *ends, positions, sizesTo);
  if (!startsAt)
    return startsAt.takeError();
  if (!endsAt)
    return endsAt.takeError();
  Instruction *row = context.add(Opcode::Iota, positions, {});
  row->mutableAttributes().iotaDimension = rowDimension;
  Instruction *inRun =
      context.binary(Opcode::And, context.compare(row, *startsAt, ComparisonDirection::GE),
                     context.compare(row, *endsAt, ComparisonDirection::LT));
  PrimitiveType productType = products.elementType();
  Instruction *masked = context.select(inRun, *product, context.splat(productType, 0, products));

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

} // namespace

void registerChloRaggedDotLowering(llvm::StringMap<OpLowering> &table) {
  table["chlo.ragged_dot"] = lowerRaggedDot;
}

} // namespace mote::stablehlo
