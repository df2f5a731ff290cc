//===- BindParameters.cpp - Weights as constants, chosen results ----------===//

#include "passes/BindParameters.h"

#include "passes/ComputationEdit.h"

#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace mote::passes {

using hlo::AliasEntry;
using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

namespace {

llvm::Error interfaceError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string describe(const Instruction &parameter) {
  return "parameter " + std::to_string(parameter.attributes().parameterNumber) + " (%" +
         parameter.name().str() + ", " + parameter.shape().toString(false) + ")";
}

/// input_output_alias with each parameter number mapped through `parameter`
/// and each top-level output position through `output` (-1: the entry goes).
llvm::Error remapAliases(hlo::Module &module, llvm::function_ref<int64_t(int64_t)> parameter,
                         llvm::function_ref<int64_t(int64_t)> output) {
  auto entries = hlo::inputOutputAlias(module);
  if (!entries)
    return entries.takeError();
  std::vector<AliasEntry> kept;
  for (AliasEntry entry : *entries) {
    int64_t number = parameter(entry.parameter);
    int64_t position = entry.output.empty() ? output(0) : output(entry.output.front());
    if (number < 0 || position < 0)
      continue;
    entry.parameter = number;
    if (!entry.output.empty())
      entry.output.front() = position;
    kept.push_back(std::move(entry));
  }
  hlo::setInputOutputAlias(module, kept);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> BindParameters::run(hlo::Module &module) {
  if (bindings_.empty())
    return false;
  Computation &entry = *module.entry();
  const int64_t count = int64_t(entry.parameterCount());
  for (int64_t number = 0; number < count; ++number)
    if (!entry.parameter(number))
      return interfaceError("the entry's parameters are not numbered 0..N-1: parameter " +
                            llvm::Twine(number) + " is missing");
  llvm::DenseMap<int64_t, hlo::Literal *> values;
  for (BoundParameter &binding : bindings_) {
    if (binding.number < 0 || binding.number >= count)
      return interfaceError("there is no parameter " + llvm::Twine(binding.number) +
                            " to bind (the entry has " + llvm::Twine(count) + ")");
    const Instruction &parameter = *entry.parameter(binding.number);
    if (!values.try_emplace(binding.number, &binding.value).second)
      return interfaceError(describe(parameter) + " is bound twice");
    const hlo::Shape &want = parameter.shape();
    const hlo::Shape &have = binding.value.shape();
    if (!want.isArray())
      return interfaceError(describe(parameter) +
                            " is not an array: only array parameters can be bound");
    if (!have.isArray() || have.elementType() != want.elementType() || have.dims() != want.dims())
      return interfaceError(describe(parameter) + " cannot be bound to " + have.toString(false) +
                            " (type and dimensions must match exactly)");
  }

  // Each bound parameter becomes a constant of the same name and shape.
  std::vector<int64_t> renumbered(size_t(count), -1);
  int64_t next = 0;
  llvm::SmallPtrSet<const Instruction *, 16> removed;
  for (int64_t number = 0; number < count; ++number) {
    Instruction *parameter = entry.parameter(number);
    auto value = values.find(number);
    if (value == values.end()) {
      renumbered[number] = next;
      parameter->mutableAttributes().parameterNumber = next++;
      continue;
    }
    auto constant =
        makeInstruction(Opcode::Constant, parameter->name().str(), parameter->shape(), {});
    constant->setLocation(parameter->location());
    value->second->setLayout(parameter->shape().layout());
    if (changes_)
      changes_->bound.push_back(
          {number, parameter->name().str(), uint64_t(value->second->bytes().size())});
    constant->mutableAttributes().literal = std::move(*value->second);
    Instruction *added = entry.addInstruction(std::move(constant));
    replaceAllUses(entry, parameter, added);
    removed.insert(parameter);
  }
  entry.removeInstructionsIf([&](const Instruction &i) { return removed.contains(&i); });
  restoreDefinitionOrder(entry);

  if (std::optional<hlo::ProgramShape> layout = module.entryComputationLayout();
      layout && int64_t(layout->parameters.size()) == count) {
    hlo::ProgramShape kept;
    kept.result = layout->result;
    for (int64_t number = 0; number < count; ++number) {
      if (renumbered[number] < 0)
        continue;
      kept.parameters.push_back(layout->parameters[number]);
      if (size_t(number) < layout->parameterNames.size())
        kept.parameterNames.push_back(layout->parameterNames[number]);
    }
    module.setEntryComputationLayout(std::move(kept));
  }
  if (llvm::Error error = remapAliases(
          module,
          [&](int64_t number) {
            return number >= 0 && number < count ? renumbered[number] : int64_t(-1);
          },
          [](int64_t position) { return position; }))
    return std::move(error);
  return true;
}

llvm::Expected<bool> SelectOutputs::run(hlo::Module &module) {
  Computation &entry = *module.entry();
  Instruction *root = entry.root();
  const hlo::Shape &shape = root->shape();
  const int64_t count = shape.isTuple() ? int64_t(shape.tupleSize()) : 1;

  std::vector<int64_t> keep;
  if (keep_) {
    llvm::DenseSet<int64_t> seen;
    for (int64_t index : *keep_) {
      if (index < 0 || index >= count)
        return interfaceError("there is no output " + llvm::Twine(index) + " (the result has " +
                              llvm::Twine(count) + (shape.isTuple() ? " elements)" : " array)"));
      if (!seen.insert(index).second)
        return interfaceError("output " + llvm::Twine(index) + " is chosen twice");
      keep.push_back(index);
    }
  } else {
    // Only a tuple instruction shows what each element is.
    if (!changes_ || changes_->bound.empty() || root->opcode() != Opcode::Tuple)
      return false;
    llvm::StringMap<int64_t> bound;
    for (const InterfaceChanges::Bound &b : changes_->bound)
      bound[b.name] = b.number;
    std::vector<InterfaceChanges::DroppedResult> dropped;
    for (int64_t index = 0; index < count; ++index) {
      const Instruction &element = *root->operand(index);
      auto it = bound.find(element.name());
      if (element.opcode() == Opcode::Constant && it != bound.end())
        dropped.push_back({index, "returns bound parameter " + std::to_string(it->second) + " (%" +
                                      element.name().str() + ") unchanged"});
      else
        keep.push_back(index);
    }
    if (keep.empty() || dropped.empty())
      return false;
    if (changes_)
      changes_->droppedResults = std::move(dropped);
  }
  bool identity = keep.size() == size_t(count);
  for (size_t i = 0; identity && i < keep.size(); ++i)
    identity = keep[i] == int64_t(i);
  // A lone array result is output 0 and stays as it is.
  if (identity || !shape.isTuple())
    return false;

  // The kept elements as a new tuple: taken from the root tuple's operands
  // when there is one, read out of the result with get-tuple-element otherwise.
  NameTable names(module);
  std::vector<Instruction *> elements;
  std::vector<hlo::Shape> shapes;
  for (int64_t index : keep) {
    Instruction *element = nullptr;
    if (root->opcode() == Opcode::Tuple) {
      element = root->operand(index);
    } else {
      auto read = makeInstruction(Opcode::GetTupleElement, names.unique("output"),
                                  shape.tupleElement(index), {root});
      read->mutableAttributes().tupleIndex = index;
      element = entry.addInstruction(std::move(read));
    }
    elements.push_back(element);
    shapes.push_back(element->shape());
  }
  Instruction *tuple = entry.addInstruction(
      makeInstruction(Opcode::Tuple, names.unique("outputs"), hlo::Shape::tuple(shapes), elements));
  entry.setRoot(tuple);

  if (std::optional<hlo::ProgramShape> layout = module.entryComputationLayout();
      layout && layout->result.isTuple() && int64_t(layout->result.tupleSize()) == count) {
    std::vector<hlo::Shape> kept;
    for (int64_t index : keep)
      kept.push_back(layout->result.tupleElement(index));
    layout->result = hlo::Shape::tuple(std::move(kept));
    module.setEntryComputationLayout(std::move(layout));
  }
  std::vector<int64_t> position(size_t(count), -1);
  for (size_t i = 0; i < keep.size(); ++i)
    position[keep[i]] = int64_t(i);
  if (llvm::Error error = remapAliases(
          module, [](int64_t number) { return number; },
          [&](int64_t index) {
            return index >= 0 && index < count ? position[index] : int64_t(-1);
          }))
    return std::move(error);
  return true;
}

void buildInterfacePipeline(Pipeline &pipeline, InterfaceOptions options,
                            InterfaceChanges *changes) {
  bool binds = !options.bindings.empty();
  if (binds)
    pipeline.add(std::make_unique<BindParameters>(std::move(options.bindings), changes));
  // After binding, which tells which results return a bound parameter.
  if (binds || options.outputs)
    pipeline.add(std::make_unique<SelectOutputs>(std::move(options.outputs), changes));
}

} // namespace mote::passes
