//===- OpContext.cpp - Building HLO for one StableHLO operation -----------===//

#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"
#include "hlo/ShapeInference.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

const Operation kNoOperation;

OpLowering findLowering(llvm::StringRef name) {
  static const llvm::StringMap<OpLowering> table = [] {
    llvm::StringMap<OpLowering> built;
    registerElementwiseLowerings(built);
    registerDataMovementLowerings(built);
    registerComputeLowerings(built);
    registerControlFlowLowerings(built);
    registerChloLowerings(built);
    registerQuantizedLowerings(built);
    registerCheckLowerings(built);
    return built;
  }();
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

Instruction *OpContext::add(Opcode opcode, Shape shape, llvm::ArrayRef<Instruction *> operands) {
  auto instruction = std::make_unique<Instruction>(
      opcode, converter.freshName(hlo::opcodeName(opcode)), std::move(shape));
  for (Instruction *operand : operands)
    instruction->addOperand(operand);
  instruction->setLocation(op.location);
  return computation().addInstruction(std::move(instruction));
}

llvm::Expected<Instruction *>
OpContext::addInferred(Opcode opcode, llvm::ArrayRef<Instruction *> operands,
                       const std::function<void(Instruction &)> &configure, Shape shape) {
  auto instruction = std::make_unique<Instruction>(
      opcode, converter.freshName(hlo::opcodeName(opcode)), std::move(shape));
  for (Instruction *operand : operands)
    instruction->addOperand(operand);
  instruction->setLocation(op.location);
  if (configure)
    configure(*instruction);
  auto inferred = hlo::inferShape(*instruction);
  if (!inferred)
    return inferred.takeError();
  instruction->setShape(std::move(*inferred));
  return computation().addInstruction(std::move(instruction));
}

Instruction *OpContext::constant(hlo::Literal literal) {
  Shape shape = literal.shape();
  Instruction *instruction = add(Opcode::Constant, shape, {});
  instruction->mutableAttributes().literal = std::move(literal);
  return instruction;
}

Instruction *OpContext::scalar(PrimitiveType type, double value) {
  hlo::Literal literal(Shape::scalar(type));
  if (hlo::isComplex(type)) {
    if (type == PrimitiveType::C64)
      literal.set(0, std::complex<float>(static_cast<float>(value), 0.0f));
    else
      literal.set(0, std::complex<double>(value, 0.0));
  } else if (hlo::isInteger(type) || type == PrimitiveType::Pred) {
    literal.setFromInt64(0, static_cast<int64_t>(value));
  } else {
    literal.setFromDouble(0, value);
  }
  return constant(std::move(literal));
}

Instruction *OpContext::broadcastScalar(Instruction *value, const Shape &like) {
  if (like.rank() == 0)
    return value;
  Instruction *broadcast =
      add(Opcode::Broadcast, Shape::array(value->shape().elementType(), like.dims()), {value});
  broadcast->mutableAttributes().hasDimensions = true;
  return broadcast;
}

Instruction *OpContext::splat(PrimitiveType type, double value, const Shape &like) {
  return broadcastScalar(scalar(type, value), like);
}

Instruction *OpContext::unary(Opcode opcode, Instruction *x) {
  Shape shape = x->shape();
  shape.setLayout(std::nullopt);
  if (opcode == Opcode::IsFinite)
    shape.setElementType(PrimitiveType::Pred);
  if (opcode == Opcode::Real || opcode == Opcode::Imag || opcode == Opcode::Abs)
    if (hlo::isComplex(shape.elementType()))
      shape.setElementType(hlo::complexComponentType(shape.elementType()));
  return add(opcode, shape, {x});
}

Instruction *OpContext::binary(Opcode opcode, Instruction *a, Instruction *b) {
  Shape shape = a->shape();
  shape.setLayout(std::nullopt);
  if (opcode == Opcode::Complex)
    shape.setElementType(a->shape().elementType() == PrimitiveType::F64 ? PrimitiveType::C128
                                                                        : PrimitiveType::C64);
  return add(opcode, shape, {a, b});
}

Instruction *OpContext::compare(Instruction *a, Instruction *b,
                                hlo::ComparisonDirection direction) {
  Shape shape = a->shape();
  shape.setLayout(std::nullopt);
  shape.setElementType(PrimitiveType::Pred);
  Instruction *instruction = add(Opcode::Compare, shape, {a, b});
  instruction->mutableAttributes().comparisonDirection = direction;
  return instruction;
}

Instruction *OpContext::select(Instruction *predicate, Instruction *onTrue, Instruction *onFalse) {
  Shape shape = onTrue->shape();
  shape.setLayout(std::nullopt);
  if (predicate->shape().rank() == 0 && shape.rank() > 0)
    predicate = broadcastScalar(predicate, shape);
  return add(Opcode::Select, shape, {predicate, onTrue, onFalse});
}

Instruction *OpContext::convert(Instruction *x, PrimitiveType type) {
  if (x->shape().elementType() == type)
    return x;
  Shape shape = x->shape();
  shape.setLayout(std::nullopt);
  shape.setElementType(type);
  return add(Opcode::Convert, shape, {x});
}

Instruction *OpContext::getTupleElement(Instruction *tuple, int64_t index) {
  Instruction *element = add(Opcode::GetTupleElement,
                             tuple->shape().tupleElement(static_cast<size_t>(index)), {tuple});
  element->mutableAttributes().tupleIndex = index;
  return element;
}

Instruction *OpContext::tuple(llvm::ArrayRef<Instruction *> elements) {
  std::vector<Shape> shapes;
  for (Instruction *element : elements)
    shapes.push_back(element->shape());
  return add(Opcode::Tuple, Shape::tuple(std::move(shapes)), elements);
}

// Reading the op ---------------------------------------------------------------------

llvm::Error OpContext::integers(llvm::StringRef key, llvm::SmallVectorImpl<int64_t> &out,
                                bool optional) const {
  out.clear();
  const Attribute *value = attribute(key);
  if (!value) {
    if (optional)
      return llvm::Error::success();
    return error("expected attribute '" + key + "'");
  }
  if (!integersOf(*value, out))
    return hlo::errorAt(value->location.isValid() ? value->location : op.location,
                        "expected integers for '" + key + "'");
  return llvm::Error::success();
}

llvm::Expected<int64_t> OpContext::integer(llvm::StringRef key) const {
  const Attribute *value = attribute(key);
  if (!value)
    return error("expected attribute '" + key + "'");
  if (value->kind != Attribute::Kind::Integer)
    return hlo::errorAt(value->location, "expected an integer for '" + key + "'");
  return value->integer;
}

std::optional<int64_t> OpContext::optionalInteger(llvm::StringRef key) const {
  const Attribute *value = attribute(key);
  if (!value || value->kind != Attribute::Kind::Integer)
    return std::nullopt;
  return value->integer;
}

bool OpContext::flag(llvm::StringRef key) const {
  const Attribute *value = attribute(key);
  return value && (value->kind == Attribute::Kind::Unit ||
                   (value->kind == Attribute::Kind::Bool && value->boolean));
}

std::string OpContext::enumValue(llvm::StringRef key) const {
  const Attribute *value = attribute(key);
  if (!value)
    return {};
  if (value->kind == Attribute::Kind::Enum || value->kind == Attribute::Kind::Opaque)
    return value->text;
  if (value->kind == Attribute::Kind::String)
    return value->text;
  return {};
}

const Type &OpContext::resultType(size_t i) const {
  static const Type kMissing;
  return i < op.resultTypes.size() ? op.resultTypes[i] : kMissing;
}

Shape OpContext::resultShape(size_t i) const { return shapeOf(resultType(i)); }

const Type &OpContext::operandType(size_t i) const {
  static const Type kMissing;
  return i < op.operandTypes.size() ? op.operandTypes[i] : kMissing;
}

llvm::Error OpContext::setResult(llvm::Expected<Instruction *> result) {
  if (!result)
    return result.takeError();
  results = {*result};
  return llvm::Error::success();
}

llvm::Error OpContext::error(const llvm::Twine &message) const {
  return hlo::errorAt(op.location, "'" + op.name + "': " + message);
}

llvm::Error OpContext::unsupported(const llvm::Twine &message) const {
  return llvm::make_error<UnsupportedError>(op.location, "'" + op.name + "': " + message);
}

llvm::Error OpContext::expectCounts(size_t operandCount, size_t resultCount) const {
  if (operands.size() != operandCount)
    return error("expected " + llvm::Twine(operandCount) + " operand(s), got " +
                 llvm::Twine(operands.size()));
  if (op.resultTypes.size() != resultCount)
    return error("expected " + llvm::Twine(resultCount) + " result type(s), got " +
                 llvm::Twine(op.resultTypes.size()));
  for (const Type &type : op.resultTypes)
    if (!shapeOf(type).isValid())
      return error("unsupported result type");
  return llvm::Error::success();
}

hlo::Computation *Converter::binaryComputation(Opcode opcode, PrimitiveType type) {
  auto key = std::make_pair(std::string(hlo::opcodeName(opcode)),
                            std::string(hlo::primitiveTypeName(type)));
  if (auto it = binaryComputations_.find(key); it != binaryComputations_.end())
    return it->second;
  auto computation = std::make_unique<hlo::Computation>(
      freshName((hlo::opcodeName(opcode) + "." + hlo::primitiveTypeName(type)).str()));
  Shape scalar = Shape::scalar(type);
  Instruction *parameters[2];
  for (int i = 0; i < 2; ++i) {
    auto parameter =
        std::make_unique<Instruction>(Opcode::Parameter, freshName(i == 0 ? "lhs" : "rhs"), scalar);
    parameter->mutableAttributes().parameterNumber = i;
    parameters[i] = computation->addInstruction(std::move(parameter));
  }
  auto root = std::make_unique<Instruction>(
      opcode, freshName(hlo::opcodeName(opcode)),
      opcode == Opcode::Compare ? Shape::scalar(PrimitiveType::Pred) : scalar);
  root->addOperand(parameters[0]);
  root->addOperand(parameters[1]);
  computation->setRoot(computation->addInstruction(std::move(root)));
  hlo::Computation *added = module_->addComputation(std::move(computation));
  binaryComputations_[key] = added;
  return added;
}

} // namespace mote::stablehlo
