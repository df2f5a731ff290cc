//===- Converter.cpp - StableHLO functions and blocks to HLO computations -===//

#include "stablehlo/Converter.h"

#include "stablehlo/Locations.h"
#include "stablehlo/MlirParser.h"

#include "hlo/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"

namespace mote::stablehlo {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

char UnsupportedError::ID = 0;

hlo::Shape shapeOf(const Type &type) {
  switch (type.kind) {
  case Type::Kind::Tensor:
  case Type::Kind::Scalar: {
    llvm::SmallVector<int64_t, 4> dims;
    for (int64_t dim : type.dims)
      dims.push_back(dim == Type::kDynamic ? Shape::kUnboundedSize : dim);
    Shape shape = Shape::array(type.element, dims);
    for (size_t i = 0; i < type.dims.size(); ++i)
      if (type.dims[i] == Type::kDynamic) {
        shape.setDynamicDim(static_cast<int64_t>(i), true);
        if (i < type.bounds.size() && type.bounds[i] != Type::kDynamic)
          shape.setDim(static_cast<int64_t>(i), type.bounds[i]);
      }
    return shape;
  }
  case Type::Kind::Tuple: {
    std::vector<Shape> elements;
    for (const Type &element : type.elements)
      elements.push_back(shapeOf(element));
    return Shape::tuple(std::move(elements));
  }
  case Type::Kind::Token:
    return Shape::token();
  default:
    return Shape();
  }
}

bool integersOf(const Attribute &attribute, llvm::SmallVectorImpl<int64_t> &out) {
  if (attribute.kind == Attribute::Kind::Array) {
    for (const Attribute &element : attribute.elements) {
      if (element.kind == Attribute::Kind::Integer || element.kind == Attribute::Kind::Bool) {
        out.push_back(element.kind == Attribute::Kind::Bool ? element.boolean : element.integer);
        continue;
      }
      if (!integersOf(element, out))
        return false;
    }
    return true;
  }
  llvm::SmallVector<int64_t, 8> flat;
  if (!attribute.integers(flat))
    return false;
  out.append(flat.begin(), flat.end());
  return true;
}

bool looksLikeMlir(llvm::StringRef text) {
  // Skip blank lines and `//` comments (the RUN lines of test files).
  while (true) {
    text = text.ltrim();
    if (!text.starts_with("//"))
      break;
    size_t end = text.find('\n');
    text = end == llvm::StringRef::npos ? llvm::StringRef() : text.substr(end + 1);
  }
  return text.starts_with("module") || text.starts_with("func.func") ||
         text.starts_with("\"builtin.module\"") || text.starts_with("\"func.func\"") ||
         text.starts_with("#") || text.starts_with("!") || text.starts_with("{-#");
}

std::vector<llvm::StringRef> splitInputFile(llvm::StringRef text) {
  std::vector<llvm::StringRef> pieces;
  const char *start = text.begin();
  size_t position = 0;
  while (position < text.size()) {
    size_t lineEnd = text.find('\n', position);
    if (lineEnd == llvm::StringRef::npos)
      lineEnd = text.size();
    llvm::StringRef line = text.slice(position, lineEnd).rtrim();
    if (line.ltrim() == "// -----") {
      pieces.emplace_back(start, text.data() + position - start);
      start = text.data() + std::min(lineEnd + 1, text.size());
    }
    position = lineEnd + 1;
  }
  pieces.emplace_back(start, text.end() - start);
  return pieces;
}

// The converter ------------------------------------------------------------------

Converter::Converter(const ModuleSyntax &syntax, std::shared_ptr<llvm::SourceMgr> sourceManager,
                     const ConversionOptions &options)
    : syntax_(syntax), sourceManager_(std::move(sourceManager)), options_(options) {}

std::string Converter::freshName(llvm::StringRef base) {
  unsigned &count = nameCounts_[base];
  std::string name = count == 0 ? base.str() : (base + "." + llvm::Twine(count)).str();
  ++count;
  return name;
}

const std::string *Converter::resource(llvm::StringRef name) const {
  auto it = resources_.find(name);
  return it == resources_.end() ? nullptr : it->second;
}

void Converter::addCheck(CheckDescription check, Instruction *verdict) {
  checks_.emplace_back(std::move(check), verdict);
}

llvm::Error Converter::collectFunctions(const std::vector<Operation> &operations, int depth) {
  for (const Operation &op : operations) {
    if (op.name == "builtin.module") {
      if (depth > 4)
        return hlo::errorAt(op.location, "modules nested too deeply");
      if (module_->name() == "main")
        if (const Attribute *name = op.attribute("sym_name"))
          module_->setName(name->text);
      for (const Region &region : op.regions)
        for (const Block &block : region.blocks)
          if (llvm::Error error = collectFunctions(block.operations, depth + 1))
            return error;
      continue;
    }
    if (op.name != "func.func")
      return hlo::errorAt(op.location, "expected a function ('func.func'), not '" + op.name + "'");
    const Attribute *name = op.attribute("sym_name");
    const Attribute *type = op.attribute("function_type");
    if (!name || !type || !type->type || type->type->kind != Type::Kind::Function)
      return hlo::errorAt(op.location, "a function needs 'sym_name' and 'function_type'");
    if (!functions_.try_emplace(name->text, &op).second)
      return hlo::errorAt(op.location, "function '@" + name->text + "' is defined twice");
    functionOrder_.push_back(&op);
  }
  return llvm::Error::success();
}

/// Collects the functions `op` (recursively) refers to by symbol.
static void collectCallees(const Operation &op, llvm::StringSet<> &callees) {
  for (const NamedAttribute &named : op.attributes)
    if (named.value.kind == Attribute::Kind::Symbol)
      callees.insert(named.value.text);
  for (const Region &region : op.regions)
    for (const Block &block : region.blocks)
      for (const Operation &inner : block.operations)
        collectCallees(inner, callees);
}

llvm::Expected<const Operation *> Converter::chooseEntry(llvm::SMLoc fileStart) {
  if (functionOrder_.empty())
    return hlo::errorAt(fileStart, "expected a function ('func.func')");
  if (!options_.entry.empty()) {
    auto it = functions_.find(options_.entry);
    if (it == functions_.end())
      return hlo::errorAt(fileStart, "no function '@" + options_.entry + "' in the file");
    return it->second;
  }
  if (auto it = functions_.find("main"); it != functions_.end())
    return it->second;
  std::vector<const Operation *> publics;
  for (const Operation *function : functionOrder_) {
    const Attribute *visibility = function->attribute("sym_visibility");
    if (!visibility || visibility->text == "public")
      if (!function->regions.empty())
        publics.push_back(function);
  }
  llvm::StringSet<> callees;
  for (const Operation *function : functionOrder_)
    collectCallees(*function, callees);
  for (auto it = publics.rbegin(); it != publics.rend(); ++it)
    if (!callees.contains((*it)->attribute("sym_name")->text))
      return *it;
  return publics.empty() ? functionOrder_.back() : publics.back();
}

static std::string shapesKey(llvm::ArrayRef<Shape> shapes) {
  std::string key;
  for (const Shape &shape : shapes)
    key += shape.toString(false) + ";";
  return key;
}

llvm::Expected<hlo::Computation *> Converter::functionFor(llvm::StringRef name,
                                                          llvm::SMLoc location,
                                                          llvm::ArrayRef<Shape> argumentShapes) {
  auto it = functions_.find(name);
  if (it == functions_.end())
    return hlo::errorAt(location, "no function '@" + name + "'");
  const Operation &function = *it->second;
  if (function.regions.empty())
    return llvm::make_error<UnsupportedError>(location, "function '@" + name +
                                                            "' is only declared (no body)");
  std::string key = name.str() + "(" + shapesKey(argumentShapes) + ")";
  if (auto found = converted_.find(key); found != converted_.end())
    return found->second;
  if (inProgress_.contains(key) || callDepth_ > 64)
    return hlo::errorAt(location, "function '@" + name + "' calls itself (recursion)");
  inProgress_.insert(key);
  ++callDepth_;
  auto computation = buildFunction(function, argumentShapes, /*isEntry=*/false);
  --callDepth_;
  inProgress_.erase(key);
  if (!computation)
    return computation.takeError();
  converted_[key] = *computation;
  return *computation;
}

llvm::Expected<hlo::Computation *> Converter::buildFunction(const Operation &function,
                                                            llvm::ArrayRef<Shape> argumentShapes,
                                                            bool isEntry) {
  const Type &type = *function.attribute("function_type")->type;
  if (function.regions.empty() || function.regions.front().blocks.empty())
    return llvm::make_error<UnsupportedError>(function.location,
                                              "function '@" + function.attribute("sym_name")->text +
                                                  "' is only declared (no body)");
  const Block &body = function.regions.front().blocks.front();
  if (function.regions.front().blocks.size() != 1)
    return llvm::make_error<UnsupportedError>(function.location,
                                              "functions with several blocks are not supported");
  if (body.arguments.size() != type.elements.size())
    return hlo::errorAt(function.location,
                        "the function has " + llvm::Twine(body.arguments.size()) +
                            " arguments but its type " + llvm::Twine(type.elements.size()));
  std::string name = function.attribute("sym_name")->text;
  auto computation = std::make_unique<hlo::Computation>(freshName(name));
  computation->setLocation(function.location);
  Scope scope;
  scope.computation = computation.get();
  if (isEntry)
    entryScope_ = &scope;
  for (size_t i = 0; i < body.arguments.size(); ++i) {
    Shape shape = i < argumentShapes.size() ? argumentShapes[i] : shapeOf(body.arguments[i].type);
    if (!shape.isValid())
      return hlo::errorAt(body.arguments[i].location, "unsupported argument type");
    auto parameter =
        std::make_unique<Instruction>(Opcode::Parameter, freshName(body.arguments[i].name), shape);
    parameter->mutableAttributes().parameterNumber = static_cast<int64_t>(i);
    parameter->setLocation(body.arguments[i].location);
    scope.values[body.arguments[i].name].push_back(
        computation->addInstruction(std::move(parameter)));
  }
  std::vector<Instruction *> returned;
  if (llvm::Error error = convertBlock(body, scope, returned)) {
    if (isEntry)
      entryScope_ = nullptr;
    return std::move(error);
  }
  if (isEntry)
    entryScope_ = nullptr;
  OpContext context(*this, function, scope, {});
  Instruction *root;
  if (isEntry && !checks_.empty()) {
    std::vector<Instruction *> leaves = returned;
    for (auto &[check, verdict] : checks_)
      leaves.push_back(verdict);
    root = context.tuple(leaves);
  } else if (returned.size() == 1) {
    root = returned.front();
  } else {
    root = context.tuple(returned);
  }
  computation->setRoot(root);
  return module_->addComputation(std::move(computation));
}

llvm::Error Converter::convertBlock(const Block &block, Scope &scope,
                                    std::vector<Instruction *> &terminatorValues) {
  for (size_t i = 0; i < block.operations.size(); ++i) {
    const Operation &op = block.operations[i];
    if (op.name == "func.return" || op.name == "stablehlo.return") {
      if (i + 1 != block.operations.size())
        return hlo::errorAt(block.operations[i + 1].location, "operation after the terminator");
      for (const ValueUse &use : op.operands) {
        auto value = lookup(use, scope);
        if (!value)
          return value.takeError();
        terminatorValues.push_back(*value);
      }
      return llvm::Error::success();
    }
    if (llvm::Error error = convertOperation(op, scope))
      return error;
  }
  if (block.operations.empty())
    return llvm::Error::success();
  return hlo::errorAt(block.operations.back().location,
                      "expected a terminator ('return') at the end of the block");
}

llvm::Expected<Instruction *> Converter::lookup(const ValueUse &use, Scope &scope) {
  auto it = scope.values.find(use.name);
  if (it != scope.values.end()) {
    if (use.index >= it->second.size() || !it->second[use.index])
      return hlo::errorAt(use.location,
                          "'%" + use.name + "' has no result #" + llvm::Twine(use.index));
    return it->second[use.index];
  }
  if (!scope.parent)
    return hlo::errorAt(use.location, "use of undefined value '%" + use.name + "'");
  auto outer = lookup(use, *scope.parent);
  if (!outer)
    return outer.takeError();
  if (!scope.capture)
    return hlo::errorAt(use.location, "'%" + use.name + "' is not visible here");
  auto captured = scope.capture(*outer, use);
  if (!captured)
    return captured.takeError();
  auto &group = scope.values[use.name];
  if (group.size() <= use.index)
    group.resize(use.index + 1, nullptr);
  group[use.index] = *captured;
  return *captured;
}

static bool isMultiDeviceOp(llvm::StringRef name) {
  static const char *const kNames[] = {"stablehlo.all_gather",
                                       "stablehlo.all_reduce",
                                       "stablehlo.all_to_all",
                                       "stablehlo.collective_permute",
                                       "stablehlo.collective_broadcast",
                                       "stablehlo.reduce_scatter",
                                       "stablehlo.send",
                                       "stablehlo.recv",
                                       "stablehlo.infeed",
                                       "stablehlo.outfeed",
                                       "stablehlo.async_start",
                                       "stablehlo.async_update",
                                       "stablehlo.async_done",
                                       "stablehlo.collective_reduce",
                                       "interpreter.run_parallel"};
  for (const char *known : kNames)
    if (name == known)
      return true;
  return false;
}

llvm::Error Converter::convertOperation(const Operation &op, Scope &scope) {
  if (isMultiDeviceOp(op.name))
    return llvm::make_error<UnsupportedError>(
        op.location, "'" + op.name + "' is not supported on a single device");
  OpLowering lowering = findLowering(op.name);
  if (!lowering)
    return llvm::make_error<UnsupportedError>(op.location,
                                              "operation '" + op.name + "' is not supported");
  std::vector<Instruction *> operands;
  for (const ValueUse &use : op.operands) {
    auto value = lookup(use, scope);
    if (!value)
      return value.takeError();
    operands.push_back(*value);
  }
  OpContext context(*this, op, scope, std::move(operands));
  if (llvm::Error error = lowering(context))
    return withSourceLocation(std::move(error), op.sourceLocation, syntax_.locationAliases);
  if (context.results.size() != op.resultCount())
    return hlo::errorAt(op.location,
                        "'" + op.name + "' produces " + llvm::Twine(context.results.size()) +
                            " values but the text names " + llvm::Twine(op.resultCount()));
  size_t next = 0;
  for (const auto &[name, count] : op.results) {
    auto &group = scope.values[name];
    group.assign(context.results.begin() + next, context.results.begin() + next + count);
    next += count;
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<hlo::Module>> Converter::buildInputsModule() {
  ConversionOptions options;
  options.entry = "inputs";
  Converter inputs(syntax_, sourceManager_, options);
  auto converted = inputs.run();
  if (!converted)
    return converted.takeError();
  return std::move(converted->module);
}

llvm::Expected<ConvertedModule> Converter::run() {
  module_ = std::make_unique<hlo::Module>("main");
  module_->setSourceManager(sourceManager_);
  for (const auto &[name, bytes] : syntax_.resources)
    resources_[name] = &bytes;
  if (llvm::Error error = collectFunctions(syntax_.operations, 0))
    return std::move(error);
  llvm::SMLoc fileStart =
      syntax_.operations.empty() ? llvm::SMLoc() : syntax_.operations.front().location;
  auto entry = chooseEntry(fileStart);
  if (!entry)
    return entry.takeError();
  if (options_.liftInputs) {
    auto inputs = functions_.find("inputs");
    if (inputs != functions_.end() &&
        inputs->second->attribute("function_type")->type->elements.empty())
      inputsFunction_ = inputs->second;
  }
  const Operation &function = **entry;
  std::string entryName = function.attribute("sym_name")->text;
  if (module_->name() == "main" && entryName != "main")
    module_->setName(entryName);
  std::vector<Shape> declared;
  for (const Type &type : function.attribute("function_type")->type->elements)
    declared.push_back(shapeOf(type));
  ConvertedModule result;
  auto computation = buildFunction(function, declared, /*isEntry=*/true);
  if (!computation)
    return computation.takeError();
  module_->setEntry(*computation);
  for (auto &[check, verdict] : checks_)
    result.checks.push_back(check);
  if (inputsFunction_) {
    auto inputs = buildInputsModule();
    if (!inputs)
      return inputs.takeError();
    result.inputs = std::move(*inputs);
  }
  result.module = std::move(module_);
  return result;
}

llvm::Expected<ConvertedModule> convertStableHloText(std::shared_ptr<llvm::SourceMgr> sourceManager,
                                                     llvm::StringRef text,
                                                     const ConversionOptions &options) {
  auto syntax = parseMlir(text);
  if (!syntax)
    return syntax.takeError();
  Converter converter(*syntax, sourceManager, options);
  auto converted = converter.run();
  return converted;
}

llvm::Expected<ConvertedModule> convertStableHlo(std::shared_ptr<llvm::SourceMgr> sourceManager,
                                                 unsigned bufferId,
                                                 const ConversionOptions &options) {
  llvm::StringRef text = sourceManager->getMemoryBuffer(bufferId)->getBuffer();
  return convertStableHloText(std::move(sourceManager), text, options);
}

} // namespace mote::stablehlo
