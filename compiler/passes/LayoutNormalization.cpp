//===- LayoutNormalization.cpp - Make every array row-major ---------------===//
//
// HLO semantics are logical, so inside the module a layout only decides how
// fast code is, never what it computes; code generation handles row-major
// arrays only. Two places do depend on layouts: a bitcast reinterprets
// physical bytes, and the entry's parameters and results are the caller's
// bytes in the order entry_computation_layout states.
//
//===----------------------------------------------------------------------===//

#include "passes/ComputationEdit.h"
#include "passes/Passes.h"

namespace mote::passes {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

namespace {

bool hasNonDefaultLeaf(const Shape &shape) {
  if (shape.isTuple())
    return llvm::any_of(shape.tupleElements(), hasNonDefaultLeaf);
  return shape.isArray() && !shape.hasDefaultLayout();
}

/// Drops every layout in `shape`; true if there was one.
bool dropLayouts(Shape &shape) {
  bool dropped = false;
  if (shape.isTuple()) {
    for (Shape &element : shape.mutableTupleElements())
      dropped |= dropLayouts(element);
    return dropped;
  }
  dropped = shape.layout().has_value();
  shape.setLayout(std::nullopt);
  return dropped;
}

Shape withoutLayouts(Shape shape) {
  dropLayouts(shape);
  return shape;
}

llvm::SmallVector<int64_t, 4> inverse(llvm::ArrayRef<int64_t> permutation) {
  llvm::SmallVector<int64_t, 4> result(permutation.size());
  for (auto [i, d] : llvm::enumerate(permutation))
    result[d] = static_cast<int64_t>(i);
  return result;
}

class Rewriter {
public:
  Rewriter(Computation &computation, NameTable &names) : computation_(computation), names_(names) {}

  Instruction *add(Opcode opcode, llvm::StringRef base, Shape shape,
                   llvm::ArrayRef<Instruction *> operands) {
    return computation_.addInstruction(
        makeInstruction(opcode, names_.unique(base), std::move(shape), operands));
  }

  /// `source` transposed so that result dimension i is source dimension permutation[i].
  Instruction *transpose(Instruction *source, llvm::ArrayRef<int64_t> permutation) {
    llvm::SmallVector<int64_t, 4> dims;
    for (int64_t d : permutation)
      dims.push_back(source->shape().dim(d));
    Instruction *result = add(Opcode::Transpose, source->name().str() + ".relayout",
                              Shape::array(source->shape().elementType(), dims), {source});
    result->mutableAttributes().dimensions.assign(permutation.begin(), permutation.end());
    result->mutableAttributes().hasDimensions = true;
    return result;
  }

  Instruction *element(Instruction *tuple, size_t index) {
    Instruction *result = add(Opcode::GetTupleElement, tuple->name().str() + ".element",
                              tuple->shape().tupleElement(index), {tuple});
    result->mutableAttributes().tupleIndex = static_cast<int64_t>(index);
    return result;
  }

  /// From `source`, holding the bytes of `callerShape` in physical order, to
  /// the logical value.
  Instruction *toLogical(Instruction *source, const Shape &callerShape) {
    if (!hasNonDefaultLeaf(callerShape))
      return source;
    if (!callerShape.isTuple())
      return transpose(source, inverse(majorToMinor(callerShape)));
    std::vector<Instruction *> elements;
    for (size_t i = 0; i < callerShape.tupleSize(); ++i)
      elements.push_back(toLogical(element(source, i), callerShape.tupleElement(i)));
    return tuple(source->name().str() + ".logical", elements);
  }

  /// From the logical `source` to the bytes of `callerShape` in physical order.
  Instruction *toPhysical(Instruction *source, const Shape &callerShape) {
    if (!hasNonDefaultLeaf(callerShape))
      return source;
    if (!callerShape.isTuple())
      return transpose(source, majorToMinor(callerShape));
    std::vector<Instruction *> elements;
    for (size_t i = 0; i < callerShape.tupleSize(); ++i)
      elements.push_back(toPhysical(element(source, i), callerShape.tupleElement(i)));
    return tuple(source->name().str() + ".physical", elements);
  }

private:
  Instruction *tuple(llvm::StringRef base, llvm::ArrayRef<Instruction *> elements) {
    std::vector<Shape> shapes;
    for (Instruction *element : elements)
      shapes.push_back(element->shape());
    return add(Opcode::Tuple, base, Shape::tuple(std::move(shapes)), elements);
  }

  Computation &computation_;
  NameTable &names_;
};

/// A bitcast between non-row-major arrays becomes transpose to physical
/// order, a row-major bitcast, and a transpose back to logical order.
bool rewriteBitcast(Computation &computation, Instruction &bitcast, NameTable &names) {
  Instruction *operand = bitcast.operand(0);
  const Shape &from = operand->shape();
  const Shape &to = bitcast.shape();
  if (!from.isArray() || !to.isArray() || (from.hasDefaultLayout() && to.hasDefaultLayout()))
    return false;
  Rewriter rewriter(computation, names);
  bitcast.setOperand(0, rewriter.transpose(operand, majorToMinor(from)));
  Shape logical = withoutLayouts(to);
  llvm::SmallVector<int64_t, 4> back = inverse(majorToMinor(to));
  bitcast.setShape(physicalShape(to));
  // Users move to the transpose back; the transpose itself reads the bitcast.
  Instruction *restored =
      rewriter.add(Opcode::Transpose, bitcast.name().str() + ".logical", logical, {&bitcast});
  restored->mutableAttributes().dimensions.assign(back.begin(), back.end());
  restored->mutableAttributes().hasDimensions = true;
  replaceAllUses(computation, &bitcast, restored);
  restored->setOperand(0, &bitcast);
  return true;
}

} // namespace

Shape physicalShape(const Shape &shape) {
  if (shape.isTuple()) {
    std::vector<Shape> elements;
    for (const Shape &element : shape.tupleElements())
      elements.push_back(physicalShape(element));
    return Shape::tuple(std::move(elements));
  }
  if (!shape.isArray())
    return shape;
  llvm::SmallVector<int64_t, 4> dims;
  for (int64_t d : majorToMinor(shape))
    dims.push_back(shape.dim(d));
  return Shape::array(shape.elementType(), dims);
}

llvm::Expected<bool> LayoutNormalization::run(hlo::Module &module) {
  Computation *entry = module.entry();
  if (!entry || !entry->root())
    return false;
  bool changed = false;

  // The caller's view, read before any layout is dropped. Without an
  // entry_computation_layout the entry's own shapes state it; it is recorded
  // so that the model signature still sees the caller's layouts.
  hlo::ProgramShape callerView;
  if (module.entryComputationLayout()) {
    callerView = *module.entryComputationLayout();
  } else {
    for (const Instruction *parameter : entry->parameters())
      callerView.parameters.push_back(parameter ? parameter->shape() : Shape());
    callerView.result = entry->root()->shape();
    bool needed = hasNonDefaultLeaf(callerView.result) ||
                  llvm::any_of(callerView.parameters, hasNonDefaultLeaf);
    if (needed)
      module.setEntryComputationLayout(callerView);
  }

  NameTable names(module);
  for (const auto &computation : module.computations()) {
    std::vector<Instruction *> bitcasts;
    for (const auto &instruction : computation->instructions())
      if (instruction->opcode() == Opcode::Bitcast)
        bitcasts.push_back(instruction.get());
    bool rewritten = false;
    for (Instruction *bitcast : bitcasts)
      rewritten |= rewriteBitcast(*computation, *bitcast, names);
    for (const auto &instruction : computation->instructions()) {
      changed |= dropLayouts(instruction->mutableShape());
      if (auto &literal = instruction->mutableAttributes().literal)
        literal->setLayout(std::nullopt);
    }
    if (rewritten)
      restoreDefinitionOrder(*computation);
    changed |= rewritten;
  }

  Rewriter rewriter(*entry, names);
  bool boundary = false;
  for (size_t i = 0; i < entry->parameterCount() && i < callerView.parameters.size(); ++i) {
    Instruction *old = entry->parameter(i);
    const Shape &callerShape = callerView.parameters[i];
    if (!old || !hasNonDefaultLeaf(callerShape))
      continue;
    // The new parameter keeps the name: signatures and diagnostics use it.
    std::string name = old->name().str();
    old->setName(names.unique(name + ".logical"));
    Instruction *physical = entry->addInstruction(
        makeInstruction(Opcode::Parameter, name, physicalShape(callerShape), {}));
    physical->mutableAttributes().parameterNumber = static_cast<int64_t>(i);
    physical->setLocation(old->location());
    Instruction *logical = rewriter.toLogical(physical, callerShape);
    replaceAllUses(*entry, old, logical);
    entry->removeInstructionsIf(
        [&](const Instruction &instruction) { return &instruction == old; });
    boundary = true;
  }
  if (hasNonDefaultLeaf(callerView.result)) {
    entry->setRoot(rewriter.toPhysical(entry->root(), callerView.result));
    boundary = true;
  }
  if (boundary)
    restoreDefinitionOrder(*entry);
  return changed || boundary;
}

} // namespace mote::passes
