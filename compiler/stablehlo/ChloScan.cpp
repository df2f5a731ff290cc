//===- ChloScan.cpp - chlo.scan as a while loop ---------------------------===//
//
// chlo.scan(inputs) inits(carries) dimension = d walks the inputs along d
// (from the end with is_reverse): its region takes the inputs' slices at
// one position (d removed) and the carries, and returns that position's
// outputs and the next carries. The results are the outputs stacked along
// d, then the last carries.
//
// It is rewritten into the syntax of a stablehlo.while whose loop values
// are a counter, the inputs, the carries and the output buffers, and that
// while is lowered as any other (captures included). The body slices the
// inputs at the position (dynamic_slice, then a reshape that names the
// slice as the scan region's own argument), runs the region's operations
// as written, and writes its outputs back (reshape, dynamic_update_slice).
// The constants the loop needs are made once outside it.
//
//===----------------------------------------------------------------------===//

#include "stablehlo/Chlo.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::PrimitiveType;

namespace {

Type indexType() {
  Type type;
  type.kind = Type::Kind::Tensor;
  type.element = PrimitiveType::S64;
  return type;
}

/// `type` with dimension `d` of size 1: one position of a scanned tensor.
Type slicedType(Type type, int64_t d) {
  type.dims[d] = 1;
  return type;
}

/// Builds the operations of the rewritten loop.
class LoopBuilder {
public:
  LoopBuilder(llvm::SMLoc location) : location_(location) {}

  ValueUse use(const std::string &name, unsigned index = 0) const {
    return {name, index, location_};
  }

  /// `name = op(operands) : result` appended to `block`.
  Operation &add(Block &block, llvm::StringRef opName, const std::string &name,
                 std::vector<ValueUse> operands, Type result) {
    Operation op;
    op.name = opName.str();
    op.location = location_;
    if (!name.empty())
      op.results.emplace_back(name, 1);
    op.operands = std::move(operands);
    op.resultTypes = {std::move(result)};
    block.operations.push_back(std::move(op));
    return block.operations.back();
  }

  void addReturn(Block &block, std::vector<ValueUse> operands) {
    Operation op;
    op.name = "stablehlo.return";
    op.location = location_;
    op.operands = std::move(operands);
    block.operations.push_back(std::move(op));
  }

private:
  llvm::SMLoc location_;
};

llvm::Error lowerScan(OpContext &context) {
  const Operation &scan = context.op;
  llvm::SmallVector<int64_t, 2> segments;
  if (llvm::Error error = context.integers("operandSegmentSizes", segments))
    return error;
  if (segments.size() != 2 || segments[0] < 0 || segments[1] < 0 ||
      size_t(segments[0] + segments[1]) != context.operands.size())
    return context.error("operandSegmentSizes must split the operands into inputs and inits");
  const size_t inputCount = size_t(segments[0]), carryCount = size_t(segments[1]);
  if (scan.resultTypes.size() < carryCount)
    return context.error("chlo.scan has fewer results than carries");
  const size_t outputCount = scan.resultTypes.size() - carryCount;
  if (scan.operandTypes.size() != context.operands.size())
    return context.error("expected a type for each operand");
  auto dimension = context.integer("dimension");
  if (!dimension)
    return dimension.takeError();
  const int64_t d = *dimension;
  const bool reverse = context.flag("is_reverse");
  if (scan.regions.size() != 1 || scan.regions[0].blocks.size() != 1)
    return context.error("chlo.scan needs one region of one block");
  const Block &region = scan.regions[0].blocks[0];
  if (region.arguments.size() != inputCount + carryCount)
    return context.error("the region takes " + llvm::Twine(region.arguments.size()) +
                         " arguments for " + llvm::Twine(inputCount) + " inputs and " +
                         llvm::Twine(carryCount) + " carries");
  if (region.operations.empty() ||
      region.operations.back().operands.size() != outputCount + carryCount)
    return context.error("the region must return " + llvm::Twine(outputCount) + " outputs and " +
                         llvm::Twine(carryCount) + " carries");
  // Every input and output has the scanned dimension, of one length.
  std::vector<const Type *> scanned;
  for (size_t i = 0; i < inputCount; ++i)
    scanned.push_back(&scan.operandTypes[i]);
  for (size_t i = 0; i < outputCount; ++i)
    scanned.push_back(&scan.resultTypes[i]);
  if (scanned.empty())
    return context.error("chlo.scan needs an input or an output");
  const Type &first = *scanned.front();
  for (const Type *type : scanned) {
    if (!type->isTensor() || type->hasDynamicDims() || type->isQuantized())
      return context.unsupported("chlo.scan of other than static tensors");
    if (d < 0 || d >= int64_t(type->dims.size()) || type->dims[d] != first.dims[d])
      return context.error("dimension " + llvm::Twine(d) +
                           " must be one length in every input and output");
  }
  const int64_t length = first.dims[d];

  // Values made once outside the loop, under names no MLIR value can have.
  const std::string base = context.converter.freshName("chlo.scan#");
  auto name = [&](llvm::StringRef part, size_t index = 0) {
    return base + "." + part.str() + std::to_string(index);
  };
  auto define = [&](const std::string &valueName, Instruction *value) {
    context.scope.values[valueName] = {value};
  };
  define(name("zero"), context.scalar(PrimitiveType::S64, 0));
  define(name("one"), context.scalar(PrimitiveType::S64, 1));
  define(name("length"), context.scalar(PrimitiveType::S64, double(length)));
  define(name("last"), context.scalar(PrimitiveType::S64, double(length - 1)));
  std::vector<Instruction *> loopValues = {context.scalar(PrimitiveType::S64, 0)};
  for (size_t i = 0; i < inputCount + carryCount; ++i)
    loopValues.push_back(context.operands[i]);
  for (size_t i = 0; i < outputCount; ++i) {
    hlo::Shape shape = shapeOf(scan.resultTypes[i]);
    loopValues.push_back(context.splat(shape.elementType(), 0, shape));
  }

  // The loop values: counter, inputs, carries (named as the region names
  // them), output buffers.
  Operation loop;
  loop.name = "stablehlo.while";
  loop.location = scan.location;
  std::vector<BlockArgument> arguments = {{name("i"), indexType(), scan.location}};
  for (size_t i = 0; i < inputCount; ++i)
    arguments.push_back({name("input", i), scan.operandTypes[i], scan.location});
  for (size_t i = 0; i < carryCount; ++i)
    arguments.push_back(
        {region.arguments[inputCount + i].name, scan.operandTypes[inputCount + i], scan.location});
  for (size_t i = 0; i < outputCount; ++i)
    arguments.push_back({name("output", i), scan.resultTypes[i], scan.location});
  for (const BlockArgument &argument : arguments) {
    loop.operandTypes.push_back(argument.type);
    loop.resultTypes.push_back(argument.type);
  }
  LoopBuilder builder(scan.location);

  // cond: i < length.
  loop.regions.resize(2);
  Block &condition = loop.regions[0].blocks.emplace_back();
  condition.arguments = arguments;
  Type predicate = indexType();
  predicate.element = PrimitiveType::Pred;
  Operation &less = builder.add(condition, "stablehlo.compare", name("more"),
                                {builder.use(name("i")), builder.use(name("length"))}, predicate);
  Attribute direction;
  direction.kind = Attribute::Kind::Enum;
  direction.name = "comparison_direction";
  direction.text = "LT";
  less.attributes.push_back({"comparison_direction", direction});
  builder.addReturn(condition, {builder.use(name("more"))});

  // do: the position, the slices, the region, the outputs written back.
  Block &body = loop.regions[1].blocks.emplace_back();
  body.arguments = arguments;
  std::string position = name("i");
  if (reverse) {
    position = name("position");
    builder.add(body, "stablehlo.subtract", position,
                {builder.use(name("last")), builder.use(name("i"))}, indexType());
  }
  auto indices = [&](size_t rank) {
    std::vector<ValueUse> uses;
    for (size_t r = 0; r < rank; ++r)
      uses.push_back(builder.use(int64_t(r) == d ? position : name("zero")));
    return uses;
  };
  for (size_t i = 0; i < inputCount; ++i) {
    const Type &type = scan.operandTypes[i];
    std::vector<ValueUse> operands = {builder.use(name("input", i))};
    for (ValueUse &index : indices(type.dims.size()))
      operands.push_back(std::move(index));
    Type slice = slicedType(type, d);
    Operation &dynamicSlice =
        builder.add(body, "stablehlo.dynamic_slice", name("slice", i), operands, slice);
    dynamicSlice.attributes.push_back(
        {"slice_sizes", Attribute::integerList(Attribute::Kind::DenseArray, slice.dims)});
    builder.add(body, "stablehlo.reshape", region.arguments[i].name,
                {builder.use(name("slice", i))}, region.arguments[i].type);
  }
  body.operations.insert(body.operations.end(), region.operations.begin(),
                         region.operations.end() - 1);
  const std::vector<ValueUse> &returned = region.operations.back().operands;
  std::vector<ValueUse> next = {builder.use(name("next"))};
  builder.add(body, "stablehlo.add", name("next"),
              {builder.use(name("i")), builder.use(name("one"))}, indexType());
  for (size_t i = 0; i < inputCount; ++i)
    next.push_back(builder.use(name("input", i)));
  for (size_t i = 0; i < carryCount; ++i)
    next.push_back(returned[outputCount + i]);
  for (size_t i = 0; i < outputCount; ++i) {
    const Type &type = scan.resultTypes[i];
    builder.add(body, "stablehlo.reshape", name("piece", i), {returned[i]}, slicedType(type, d));
    std::vector<ValueUse> operands = {builder.use(name("output", i)),
                                      builder.use(name("piece", i))};
    for (ValueUse &index : indices(type.dims.size()))
      operands.push_back(std::move(index));
    builder.add(body, "stablehlo.dynamic_update_slice", name("written", i), operands, type);
    next.push_back(builder.use(name("written", i)));
  }
  builder.addReturn(body, std::move(next));

  OpContext inner(context.converter, loop, context.scope, loopValues);
  if (llvm::Error error = findLowering("stablehlo.while")(inner))
    return error;
  // Results: the outputs, then the carries.
  context.results.clear();
  for (size_t i = 0; i < outputCount; ++i)
    context.results.push_back(inner.results[1 + inputCount + carryCount + i]);
  for (size_t i = 0; i < carryCount; ++i)
    context.results.push_back(inner.results[1 + inputCount + i]);
  return llvm::Error::success();
}

} // namespace

void registerChloScanLowering(llvm::StringMap<OpLowering> &table) {
  table["chlo.scan"] = lowerScan;
}

} // namespace mote::stablehlo
