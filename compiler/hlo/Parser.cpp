//===- Parser.cpp - HLO text parser: modules, computations, instructions --===//

#include "hlo/Parser.h"

#include "hlo/Diagnostics.h"
#include "hlo/ParserImpl.h"
#include "hlo/ShapeInference.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mote::hlo {
namespace detail {

// Errors -----------------------------------------------------------------------

bool HloParser::fail(llvm::SMLoc location, const llvm::Twine &message) {
  if (!error_)
    error_.emplace(location, message.str());
  return false;
}

bool HloParser::failHere(const llvm::Twine &message) {
  if (tok().is(TokenKind::Error))
    return fail(tok().location(), lexer_.errorMessage());
  return fail(tok().location(), message);
}

bool HloParser::expect(TokenKind kind, const llvm::Twine &message) {
  if (!tok().is(kind))
    return failHere(message);
  consume();
  return true;
}

llvm::Error HloParser::takeError() {
  if (!error_)
    return llvm::Error::success();
  auto [location, message] = std::move(*error_);
  error_.reset();
  return errorAt(location, message);
}

// Module -----------------------------------------------------------------------

static bool isStackFrameTableName(const Token &token) {
  return token.isIdentifier("FileNames") || token.isIdentifier("FunctionNames") ||
         token.isIdentifier("FileLocations") || token.isIdentifier("StackFrames");
}

std::unique_ptr<Module> HloParser::parseModule(llvm::StringRef defaultName) {
  module_ = std::make_unique<Module>(defaultName.str());
  if (tok().isIdentifier("HloModule") && !parseHeader())
    return nullptr;
  while (!tok().is(TokenKind::Eof)) {
    bool ok;
    if (isStackFrameTableName(tok()) && !lexer_.peek().is(TokenKind::LBrace) &&
        !lexer_.peek().is(TokenKind::LParen))
      ok = skipStackFrameTable();
    else
      ok = parseComputation();
    if (!ok)
      return nullptr;
  }
  if (module_->computations().empty()) {
    fail(tok().location(), "expected a computation");
    return nullptr;
  }
  // Without an ENTRY computation the last one is the entry, as in XLA.
  if (!module_->entry())
    module_->setEntry(module_->computations().back().get());
  if (!resolveCallees() || !inferMissingShapes())
    return nullptr;
  return std::move(module_);
}

bool HloParser::parseHeader() {
  consume(); // HloModule
  if (!tok().is(TokenKind::Identifier) && !tok().is(TokenKind::PercentName))
    return failHere("expected a module name after 'HloModule'");
  module_->setName(tok().text.ltrim('%').str());
  consume();
  consumeIf(TokenKind::Colon); // old dumps write `HloModule name:`
  bool sawLayout = false;
  while (consumeIf(TokenKind::Comma)) {
    if (!tok().is(TokenKind::Identifier))
      return failHere("expected a module attribute name after ','");
    Token key = tok();
    consume();
    if (!expect(TokenKind::Equal, "expected '=' after '" + key.text + "'"))
      return false;
    if (key.text == "entry_computation_layout") {
      if (sawLayout)
        return fail(key.location(), "'entry_computation_layout' is given twice");
      sawLayout = true;
      ProgramShape layout;
      if (!expect(TokenKind::LBrace, "expected '{' to start the entry computation layout") ||
          !parseProgramShape(layout) ||
          !expect(TokenKind::RBrace, "expected '}' after the entry computation layout"))
        return false;
      module_->setEntryComputationLayout(std::move(layout));
      continue;
    }
    RawAttribute attribute{key.text.str(), {}};
    if (!parseRawValue(key.text, attribute.value))
      return false;
    module_->mutableHeaderAttributes().push_back(std::move(attribute));
  }
  return true;
}

/// JAX's stack-frame tables (`FileNames`, `FunctionNames`, `FileLocations`,
/// `StackFrames`): rows of `<id> "text"` or `<id> {...}`. Mote does not use them.
bool HloParser::skipStackFrameTable() {
  consume();
  while (tok().is(TokenKind::Int)) {
    consume();
    if (tok().is(TokenKind::String)) {
      consume();
      continue;
    }
    if (!tok().is(TokenKind::LBrace))
      return failHere("expected a string or '{' in a stack frame table row");
    std::string ignored;
    if (!parseRawValue("stack frame", ignored))
      return false;
  }
  return true;
}

// Computations -----------------------------------------------------------------

bool HloParser::parseComputation() {
  llvm::SMLoc location = tok().location();
  bool isEntry = false;
  if (tok().isIdentifier("ENTRY")) {
    isEntry = true;
    consume();
  }
  std::string name;
  llvm::SMLoc nameLocation = tok().location();
  if (tok().is(TokenKind::PercentName) ||
      (tok().is(TokenKind::Identifier) && !tok().isIdentifier("ENTRY"))) {
    name = tok().text.ltrim('%').str();
    consume();
  } else if (isEntry && (tok().is(TokenKind::LBrace) || tok().is(TokenKind::LParen))) {
    name = "entry";
  } else {
    return failHere("expected a computation name");
  }
  if (computations_.count(name))
    return fail(nameLocation, "computation '" + name + "' is defined twice");

  auto computation = std::make_unique<Computation>(name);
  computation->setLocation(location);
  computation->setHasSignature(tok().is(TokenKind::LParen));
  if (tok().is(TokenKind::LParen)) {
    // The signature repeats what the parameter instructions say; it is read
    // for validity only.
    ProgramShape signature;
    if (!parseProgramShape(signature))
      return false;
  }
  if (!expect(TokenKind::LBrace, "expected '{' to start computation '" + name + "'"))
    return false;

  names_.clear();
  generatedNames_.clear();
  Computation *added = module_->addComputation(std::move(computation));
  computations_[name] = added;
  bool sawRoot = false;
  while (!tok().is(TokenKind::RBrace)) {
    if (tok().is(TokenKind::Eof))
      return failHere("expected '}' at the end of computation '" + name + "'");
    if (!parseInstruction(*added, sawRoot))
      return false;
  }
  consume(); // '}'
  if (added->instructionCount() == 0)
    return fail(nameLocation, "computation '" + name + "' has no instructions");
  if (!added->root())
    added->setRoot(added->instructions().back().get());

  // Trailing computation attributes (e.g. execution_thread="...") do not
  // change single-device semantics.
  while (tok().is(TokenKind::Comma)) {
    consume();
    if (!tok().is(TokenKind::Identifier))
      return failHere("expected a computation attribute name after ','");
    llvm::StringRef key = tok().text;
    consume();
    std::string ignored;
    if (!expect(TokenKind::Equal, "expected '=' after '" + key + "'") ||
        !parseRawValue(key, ignored))
      return false;
  }

  if (isEntry) {
    if (module_->entry())
      return fail(location, "second ENTRY computation '" + name + "' (the first is '" +
                                module_->entry()->name() + "')");
    module_->setEntry(added);
  }
  return true;
}

// Instructions -----------------------------------------------------------------

bool HloParser::parseInstruction(Computation &computation, bool &sawRoot) {
  llvm::SMLoc location = tok().location();
  bool isRoot = false;
  if (tok().isIdentifier("ROOT")) {
    isRoot = true;
    consume();
  }
  if (!tok().is(TokenKind::PercentName) && !tok().is(TokenKind::Identifier))
    return failHere(isRoot ? "expected an instruction name after 'ROOT'"
                           : "expected an instruction name or '}'");
  Token nameToken = tok();
  consume();
  if (!expect(TokenKind::Equal, "expected '=' after instruction name '" + nameToken.text + "'"))
    return false;
  Instruction *instruction = parseInstructionBody(computation, nameToken.text.ltrim('%').str(),
                                                  {location, nameToken.location(), false}, 0);
  if (!instruction)
    return false;
  if (isRoot) {
    if (sawRoot)
      return fail(location,
                  "computation '" + computation.name() + "' has more than one ROOT instruction");
    sawRoot = true;
    computation.setRoot(instruction);
  }
  return true;
}

Instruction *HloParser::parseInstructionBody(Computation &computation, std::string name,
                                             const NameInfo &info, int depth,
                                             std::optional<Shape> shape) {
  llvm::SMLoc location = info.location;
  if (depth > kMaxNesting) {
    failHere("operands are nested too deeply");
    return nullptr;
  }
  if (!shape && atUnknownElementType()) {
    failHere("unknown element type '" + tok().text + "'");
    return nullptr;
  }
  if (!shape && atShape()) {
    shape.emplace();
    if (!parseShape(*shape))
      return nullptr;
  }
  if (!tok().is(TokenKind::Identifier)) {
    failHere(shape ? "expected an opcode after the shape" : "expected a shape or an opcode");
    return nullptr;
  }
  std::optional<Opcode> opcode = parseOpcode(tok().text);
  if (!opcode) {
    failHere("unknown opcode '" + tok().text + "'");
    return nullptr;
  }
  Token opcodeToken = tok();
  consume();
  bool hasShape = shape.has_value();
  auto owned = std::make_unique<Instruction>(*opcode, name, hasShape ? std::move(*shape) : Shape());
  Instruction &instruction = *owned;
  instruction.setLocation(location);
  if (!expect(TokenKind::LParen, "expected '(' after opcode '" + opcodeToken.text + "'"))
    return nullptr;

  if (*opcode == Opcode::Parameter) {
    int64_t number;
    if (!parseInt64(number, "parameter number"))
      return nullptr;
    // Parameter lists are indexed by number: bound it so text cannot make them huge.
    if (number < 0 || number >= (int64_t(1) << 16)) {
      fail(opcodeToken.location(), "parameter number " + llvm::Twine(number) + " is out of range");
      return nullptr;
    }
    instruction.mutableAttributes().parameterNumber = number;
    if (!expect(TokenKind::RParen, "expected ')' after the parameter number"))
      return nullptr;
  } else if (*opcode == Opcode::Constant) {
    if (!hasShape) {
      fail(opcodeToken.location(), "a constant needs an explicit shape");
      return nullptr;
    }
    if (!parseConstantValue(instruction) ||
        !expect(TokenKind::RParen, "expected ')' after the constant's value"))
      return nullptr;
  } else if (!parseOperands(computation, instruction, depth)) {
    return nullptr;
  }

  InstructionInProgress progress{&instruction, {}, {}};
  while (tok().is(TokenKind::Comma)) {
    if (depth > 0) {
      // Inside an operand list a ',' may instead separate operands: only
      // `, name=` continues the nested instruction.
      Lexer::State state = lexer_.save();
      consume();
      bool isAttribute = tok().is(TokenKind::Identifier) && lexer_.peek().is(TokenKind::Equal);
      lexer_.restore(state);
      if (!isAttribute)
        break;
    }
    consume();
    if (!parseInstructionAttribute(progress))
      return nullptr;
  }
  // Default dimension numbers mean nothing (batch and feature both 0).
  if (*opcode == Opcode::Convolution && !progress.typedKeys.contains("dim_labels")) {
    fail(location, "convolution needs a dim_labels attribute, e.g. dim_labels=b01f_01io->b01f");
    return nullptr;
  }
  if (!finishCallees(progress))
    return nullptr;

  Instruction *added = computation.addInstruction(std::move(owned));
  if (!defineName(added, info.nameLocation, info.generated))
    return nullptr;
  if (!hasShape)
    shapeless_.push_back(added);
  return added;
}

bool HloParser::parseOperands(Computation &computation, Instruction &instruction, int depth) {
  if (consumeIf(TokenKind::RParen))
    return true;
  while (true) {
    Instruction *operand = parseOperand(computation, depth);
    if (!operand)
      return false;
    instruction.addOperand(operand);
    if (consumeIf(TokenKind::Comma))
      continue;
    if (consumeIf(TokenKind::RParen))
      return true;
    return failHere("expected ',' or ')' after an operand");
  }
}

Instruction *HloParser::parseOperand(Computation &computation, int depth) {
  llvm::SMLoc location = tok().location();
  std::optional<Shape> declared;
  if (atUnknownElementType()) {
    failHere("unknown element type '" + tok().text + "'");
    return nullptr;
  }
  if (atShape()) {
    declared.emplace();
    if (!parseShape(*declared))
      return nullptr;
  }
  if (tok().is(TokenKind::Identifier) && lexer_.peek().is(TokenKind::LParen)) {
    // A nested instruction, e.g. `add(s32[] parameter(0), s32[] constant(1))`.
    return parseInstructionBody(computation, freshName(tok().text), {location, location, true},
                                depth + 1, std::move(declared));
  }
  if (!tok().is(TokenKind::PercentName) && !tok().is(TokenKind::Identifier)) {
    failHere(declared ? "expected an operand name after its shape" : "expected an operand");
    return nullptr;
  }
  Token nameToken = tok();
  llvm::StringRef name = nameToken.text.ltrim('%');
  auto found = names_.find(name);
  if (found == names_.end()) {
    fail(nameToken.location(), "use of undefined instruction '%" + name + "'");
    return nullptr;
  }
  consume();
  Instruction *operand = found->second;
  if (declared && operand->shape().isValid() && !declared->compatible(operand->shape())) {
    fail(location, "operand '%" + name + "' is declared as " + declared->toString(false) +
                       " but has shape " + operand->shape().toString(false));
    return nullptr;
  }
  return operand;
}

bool HloParser::parseConstantValue(Instruction &instruction) {
  InstructionAttributes &attributes = instruction.mutableAttributes();
  if (tok().is(TokenKind::LBrace) && lexer_.peek().is(TokenKind::Dots)) {
    // `constant({...})`: the dump left the value out.
    consume();
    consume();
    attributes.literalElided = true;
    return expect(TokenKind::RBrace, "expected '}' after '{...'");
  }
  Literal literal;
  if (!parseLiteral(instruction.shape(), literal))
    return false;
  attributes.literal = std::move(literal);
  return true;
}

// Names and called computations -------------------------------------------------

bool HloParser::defineName(Instruction *instruction, llvm::SMLoc location, bool generated) {
  auto [it, inserted] = names_.try_emplace(instruction->name(), instruction);
  if (!inserted) {
    Instruction *existing = it->second;
    if (generated || !generatedNames_.contains(existing->name()))
      return fail(location, "instruction '%" + instruction->name() + "' is defined twice");
    // The earlier instruction was a nested operand whose name was made up:
    // give it another one, the text's name wins.
    generatedNames_.erase(existing->name());
    it->second = instruction;
    existing->setName(freshName(opcodeName(existing->opcode())));
    names_[existing->name()] = existing;
    generatedNames_.insert(existing->name());
  }
  if (generated)
    generatedNames_.insert(instruction->name());
  return true;
}

std::string HloParser::freshName(llvm::StringRef base) {
  for (unsigned suffix = 1;; ++suffix) {
    std::string candidate = (base + "." + llvm::Twine(suffix)).str();
    if (!names_.count(candidate))
      return candidate;
  }
}

bool HloParser::finishCallees(InstructionInProgress &progress) {
  CalleeAttributes &callees = progress.callees;
  std::vector<CalleeReference> ordered;
  auto add = [&](std::optional<CalleeReference> &reference) {
    if (reference)
      ordered.push_back(std::move(*reference));
  };
  switch (progress.instruction->opcode()) {
  case Opcode::While:
    add(callees.condition);
    add(callees.body);
    break;
  case Opcode::SelectAndScatter:
    add(callees.select);
    add(callees.scatter);
    break;
  case Opcode::Conditional:
    if (callees.branches) {
      if (callees.trueComputation || callees.falseComputation)
        return fail(progress.instruction->location(),
                    "conditional has both branch_computations and true/false_computation");
      ordered = std::move(*callees.branches);
    } else {
      add(callees.trueComputation);
      add(callees.falseComputation);
    }
    break;
  default:
    add(callees.calls);
    add(callees.toApply);
    if (callees.called)
      for (CalleeReference &reference : *callees.called)
        ordered.push_back(std::move(reference));
    break;
  }
  for (CalleeReference &reference : ordered) {
    progress.instruction->addCalledComputation(nullptr);
    fixups_.push_back({progress.instruction, progress.instruction->calledComputations().size() - 1,
                       std::move(reference)});
  }
  return true;
}

bool HloParser::resolveCallees() {
  for (CalleeFixup &fixup : fixups_) {
    auto found = computations_.find(fixup.reference.name);
    if (found == computations_.end())
      return fail(fixup.reference.location,
                  "use of undefined computation '" + fixup.reference.name + "'");
    fixup.instruction->setCalledComputation(fixup.index, found->second);
  }
  return true;
}

/// Instructions written without a shape get one from shape inference once
/// their operands and called computations have shapes; callees may come later
/// in the text, so this runs after the whole module is read.
bool HloParser::inferMissingShapes() {
  llvm::DenseMap<const Computation *, int> pendingIn;
  for (Instruction *instruction : shapeless_)
    ++pendingIn[instruction->parent()];
  std::vector<Instruction *> pending = shapeless_;
  while (!pending.empty()) {
    std::vector<Instruction *> blocked;
    for (Instruction *instruction : pending) {
      bool ready = true;
      for (Instruction *operand : instruction->operands())
        ready &= operand->shape().isValid();
      for (Computation *callee : instruction->calledComputations())
        ready &= pendingIn.lookup(callee) == 0;
      if (!ready) {
        blocked.push_back(instruction);
        continue;
      }
      llvm::Expected<Shape> shape = inferShape(*instruction);
      if (!shape) {
        llvm::handleAllErrors(
            shape.takeError(),
            [&](const LocatedError &error) {
              fail(error.location().isValid() ? error.location() : instruction->location(),
                   error.message());
            },
            [&](const llvm::ErrorInfoBase &error) {
              fail(instruction->location(), error.message());
            });
        return false;
      }
      instruction->setShape(std::move(*shape));
      --pendingIn[instruction->parent()];
    }
    if (blocked.size() == pending.size())
      return fail(blocked.front()->location(),
                  "cannot infer the shape of '%" + blocked.front()->name() +
                      "': it depends on a computation that uses it; write its shape");
    pending = std::move(blocked);
  }
  return true;
}

} // namespace detail

// Public entry points -------------------------------------------------------------

llvm::Expected<std::unique_ptr<Module>> parseModule(std::shared_ptr<llvm::SourceMgr> sourceManager,
                                                    unsigned bufferId) {
  const llvm::MemoryBuffer *buffer = sourceManager->getMemoryBuffer(bufferId);
  detail::HloParser parser(buffer->getBuffer());
  std::unique_ptr<Module> module = parser.parseModule("module");
  if (!module)
    return parser.takeError();
  module->setSourceManager(std::move(sourceManager));
  return module;
}

llvm::Expected<std::unique_ptr<Module>> parseModuleText(llvm::StringRef text,
                                                        llvm::StringRef bufferName) {
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  auto module = parseModule(sourceManager, bufferId);
  if (module)
    return module;
  // The buffer dies with this function: put its position into the message.
  std::string message = errorToString(module.takeError(), sourceManager.get());
  return errorAt(llvm::SMLoc(), message);
}

llvm::Expected<Shape> parseShape(llvm::StringRef text) {
  detail::HloParser parser(text);
  Shape shape;
  if (parser.parseStandaloneShape(shape))
    return shape;
  std::string message;
  llvm::handleAllErrors(parser.takeError(), [&](const LocatedError &error) {
    size_t column = error.location().getPointer() - text.data() + 1;
    message = "column " + std::to_string(column) + ": " + error.message();
  });
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace mote::hlo
