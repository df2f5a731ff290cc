//===- Regions.cpp - MLIR regions to HLO computations ---------------------===//
///
/// \file
/// A region becomes a computation. Scalar regions (reduce, sort, ...) take
/// their block arguments as parameters and may use constants from outside,
/// which are copied in. Tuple regions (while, if, case) take their block
/// arguments in one tuple parameter, and every other outside value they use
/// is appended to that tuple: the caller passes it in (and a while body
/// hands it on unchanged).
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

/// A copy of constant `constant` in `computation`.
static Instruction *copyConstant(Converter &converter, hlo::Computation &computation,
                                 const Instruction &constant) {
  auto copy = std::make_unique<Instruction>(Opcode::Constant, converter.freshName("constant"),
                                            constant.shape());
  copy->mutableAttributes().literal = constant.attributes().literal;
  copy->setLocation(constant.location());
  return computation.addInstruction(std::move(copy));
}

llvm::Expected<ConvertedRegion>
Converter::convertRegion(const Region &region, Scope &outer, RegionParameters parameters,
                         llvm::StringRef name, std::vector<Instruction *> *sharedCaptures) {
  if (region.blocks.size() != 1)
    return llvm::make_error<UnsupportedError>(region.location,
                                              "regions with several blocks are not supported");
  const Block &block = region.blocks.front();
  auto owned = std::make_unique<hlo::Computation>(freshName(name));
  hlo::Computation &computation = *owned;
  computation.setLocation(region.location);
  Scope scope;
  scope.parent = &outer;
  scope.computation = &computation;

  ConvertedRegion converted;
  std::vector<Instruction *> localCaptures;
  std::vector<Instruction *> &captures = sharedCaptures ? *sharedCaptures : localCaptures;
  Instruction *tupleParameter = nullptr;
  size_t argumentCount = block.arguments.size();
  std::vector<Shape> argumentShapes;
  for (const BlockArgument &argument : block.arguments) {
    Shape shape = shapeOf(argument.type);
    if (!shape.isValid())
      return hlo::errorAt(argument.location, "unsupported block argument type");
    argumentShapes.push_back(shape);
  }

  if (parameters == RegionParameters::Scalars) {
    for (size_t i = 0; i < argumentCount; ++i) {
      auto parameter = std::make_unique<Instruction>(
          Opcode::Parameter, freshName(block.arguments[i].name), argumentShapes[i]);
      parameter->mutableAttributes().parameterNumber = static_cast<int64_t>(i);
      parameter->setLocation(block.arguments[i].location);
      scope.values[block.arguments[i].name].push_back(
          computation.addInstruction(std::move(parameter)));
    }
    scope.capture = [&](Instruction *value, const ValueUse &use) -> llvm::Expected<Instruction *> {
      if (value->opcode() == Opcode::Constant)
        return copyConstant(*this, computation, *value);
      return llvm::make_error<UnsupportedError>(
          use.location,
          "'%" + use.name + "' comes from outside this region; only constants can here");
    };
  } else {
    // The tuple's shape is fixed once every capture is known (finishTupleRegion).
    auto parameter = std::make_unique<Instruction>(Opcode::Parameter, freshName("arguments"),
                                                   Shape::tuple(argumentShapes));
    parameter->mutableAttributes().parameterNumber = 0;
    parameter->setLocation(region.location);
    tupleParameter = computation.addInstruction(std::move(parameter));
    OpContext context(*this, kNoOperation, scope, {});
    for (size_t i = 0; i < argumentCount; ++i) {
      Instruction *element =
          context.add(Opcode::GetTupleElement, argumentShapes[i], {tupleParameter});
      element->mutableAttributes().tupleIndex = static_cast<int64_t>(i);
      element->setLocation(block.arguments[i].location);
      scope.values[block.arguments[i].name].push_back(element);
    }
    scope.capture = [&, tupleParameter, argumentCount](
                        Instruction *value, const ValueUse &use) -> llvm::Expected<Instruction *> {
      if (value->opcode() == Opcode::Constant)
        return copyConstant(*this, computation, *value);
      size_t index = std::find(captures.begin(), captures.end(), value) - captures.begin();
      if (index == captures.size())
        captures.push_back(value);
      auto element = std::make_unique<Instruction>(Opcode::GetTupleElement, freshName("captured"),
                                                   value->shape());
      element->addOperand(tupleParameter);
      element->mutableAttributes().tupleIndex = static_cast<int64_t>(argumentCount + index);
      element->setLocation(use.location);
      return computation.addInstruction(std::move(element));
    };
  }

  std::vector<Instruction *> returned;
  if (llvm::Error error = convertBlock(block, scope, returned))
    return std::move(error);
  scope.capture = nullptr;
  if (returned.empty())
    return hlo::errorAt(region.location, "the region returns nothing");
  OpContext context(*this, kNoOperation, scope, {});
  computation.setRoot(returned.size() == 1 ? returned.front() : context.tuple(returned));
  converted.computation = module_->addComputation(std::move(owned));
  converted.returned = std::move(returned);
  converted.tupleParameter = tupleParameter;
  converted.argumentCount = argumentCount;
  return converted;
}

void Converter::finishTupleRegion(ConvertedRegion &region, llvm::ArrayRef<Instruction *> captures,
                                  bool passCapturesOn) {
  Instruction *parameter = region.tupleParameter;
  std::vector<Shape> elements(parameter->shape().tupleElements().begin(),
                              parameter->shape().tupleElements().begin() + region.argumentCount);
  for (Instruction *capture : captures)
    elements.push_back(capture->shape());
  parameter->setShape(Shape::tuple(elements));
  if (!passCapturesOn)
    return;
  Scope scope;
  scope.computation = region.computation;
  OpContext context(*this, kNoOperation, scope, {});
  std::vector<Instruction *> leaves = region.returned;
  for (size_t i = 0; i < captures.size(); ++i)
    leaves.push_back(
        context.getTupleElement(parameter, static_cast<int64_t>(region.argumentCount + i)));
  region.computation->setRoot(context.tuple(leaves));
}

} // namespace mote::stablehlo
