//===- MlirParser.cpp - MLIR text: files, operations, regions -------------===//

#include "stablehlo/MlirParser.h"

#include "hlo/Diagnostics.h"
#include "stablehlo/StableHlo.h"

namespace mote::stablehlo {

bool Type::hasDynamicDims() const {
  for (int64_t dim : dims)
    if (dim == kDynamic)
      return true;
  return false;
}

int64_t Type::elementCount() const {
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= dim < 0 ? 0 : dim;
  return count;
}

const Attribute *Attribute::field(llvm::StringRef key) const {
  if (!fields)
    return nullptr;
  for (const NamedAttribute &named : *fields)
    if (named.name == key)
      return &named.value;
  return nullptr;
}

Attribute Attribute::integerList(Kind kind, llvm::ArrayRef<int64_t> values) {
  Attribute list;
  list.kind = kind;
  for (int64_t value : values) {
    Attribute element;
    element.kind = Kind::Integer;
    element.integer = value;
    list.elements.push_back(element);
  }
  return list;
}

bool Attribute::integers(llvm::SmallVectorImpl<int64_t> &out) const {
  out.clear();
  switch (kind) {
  case Kind::DenseArray:
  case Kind::Array:
    for (const Attribute &element : elements) {
      if (element.kind != Kind::Integer && element.kind != Kind::Bool)
        return false;
      out.push_back(element.kind == Kind::Bool ? element.boolean : element.integer);
    }
    return true;
  case Kind::Dense:
    if (!dense || dense->hexBytes)
      return false;
    for (const DenseBody::Scalar &scalar : dense->scalars) {
      if (scalar.kind != DenseBody::Scalar::Kind::Integer)
        return false;
      out.push_back(scalar.negative ? -static_cast<int64_t>(scalar.magnitude)
                                    : static_cast<int64_t>(scalar.magnitude));
    }
    // A splat stands for every element of its type.
    if (dense->nesting.empty() && type && out.size() == 1)
      out.assign(std::max<int64_t>(type->elementCount(), 1), out.front());
    return true;
  default:
    return false;
  }
}

const Attribute *Operation::attribute(llvm::StringRef key) const {
  for (const NamedAttribute &named : attributes)
    if (named.name == key)
      return &named.value;
  return nullptr;
}

unsigned Operation::resultCount() const {
  unsigned count = 0;
  for (const auto &group : results)
    count += group.second;
  return count;
}

llvm::Expected<ModuleSyntax> parseMlir(llvm::StringRef text) {
  detail::MlirParser parser(text);
  ModuleSyntax module;
  if (!parser.parseFile(module))
    return parser.takeError();
  return module;
}

namespace detail {

// Tokens and errors ------------------------------------------------------------

bool MlirParser::fail(llvm::SMLoc location, const llvm::Twine &message) {
  if (!error_)
    error_.emplace(location, message.str());
  return false;
}

bool MlirParser::failUnsupported(llvm::SMLoc location, const llvm::Twine &message) {
  if (!error_)
    errorIsUnsupported_ = true;
  return fail(location, message);
}

bool MlirParser::failHere(const llvm::Twine &message) {
  if (tok().is(MlirTokenKind::Error))
    return fail(tok().location(), lexer_.errorMessage());
  return fail(tok().location(), message);
}

bool MlirParser::expect(MlirTokenKind kind, const llvm::Twine &what) {
  if (!tok().is(kind))
    return failHere("expected " + what);
  consume();
  return true;
}

bool MlirParser::expectKeyword(llvm::StringRef keyword, const llvm::Twine &what) {
  if (!tok().isKeyword(keyword))
    return failHere("expected " + what);
  consume();
  return true;
}

llvm::Error MlirParser::takeError() {
  if (!error_)
    return llvm::Error::success();
  auto [location, message] = std::move(*error_);
  error_.reset();
  if (errorIsUnsupported_)
    return llvm::make_error<UnsupportedError>(location, message);
  return hlo::errorAt(location, message);
}

static bool isOpener(MlirTokenKind kind) {
  return kind == MlirTokenKind::LParen || kind == MlirTokenKind::LSquare ||
         kind == MlirTokenKind::LBrace || kind == MlirTokenKind::Less;
}

static bool isCloser(MlirTokenKind kind) {
  return kind == MlirTokenKind::RParen || kind == MlirTokenKind::RSquare ||
         kind == MlirTokenKind::RBrace || kind == MlirTokenKind::Greater;
}

bool MlirParser::skipBalanced(std::initializer_list<MlirTokenKind> stops,
                              llvm::StringRef &skipped) {
  const char *start = tok().text.data();
  const char *end = start;
  int depth = 0;
  while (true) {
    MlirTokenKind kind = tok().kind;
    if (kind == MlirTokenKind::Eof || kind == MlirTokenKind::Error)
      return failHere("unbalanced brackets");
    if (depth == 0 && std::find(stops.begin(), stops.end(), kind) != stops.end())
      break;
    if (isOpener(kind)) {
      if (++depth > kMaxNesting)
        return failHere("nesting too deep");
    } else if (isCloser(kind)) {
      if (depth == 0)
        return failHere("unbalanced brackets");
      --depth;
    }
    end = tok().text.data() + tok().text.size();
    consume();
  }
  skipped = llvm::StringRef(start, end - start);
  return true;
}

bool MlirParser::parseParenthesizedList(const llvm::Twine &what,
                                        llvm::function_ref<bool()> element) {
  if (!expect(MlirTokenKind::LParen, "'(' and " + what))
    return false;
  if (!tok().is(MlirTokenKind::RParen)) {
    do {
      if (!element())
        return false;
    } while (consumeIf(MlirTokenKind::Comma));
  }
  return expect(MlirTokenKind::RParen, "')' after " + what);
}

bool MlirParser::parseArgumentName(BlockArgument &argument, const llvm::Twine &expected) {
  argument.location = tok().location();
  if (!tok().is(MlirTokenKind::ValueId))
    return failHere("expected " + expected);
  argument.name = tok().text.drop_front().str();
  consume();
  return true;
}

// Files --------------------------------------------------------------------------

bool MlirParser::parseFile(ModuleSyntax &module) {
  while (!tok().is(MlirTokenKind::Eof))
    if (!parseTopLevel(module))
      return false;
  return true;
}

bool MlirParser::parseTopLevel(ModuleSyntax &module) {
  if (tok().is(MlirTokenKind::FileMetadataBegin))
    return parseResourceSection(module);
  if (tok().is(MlirTokenKind::HashId) && lexer_.peek().is(MlirTokenKind::Equal)) {
    std::string name = tok().text.drop_front().str();
    consume();
    consume(); // '='
    if (tok().isKeyword("loc")) {
      consume();
      std::string text;
      if (!parseLocationBody(text))
        return false;
      module.locationAliases.emplace_back(std::move(name), std::move(text));
      return true;
    }
    Attribute value;
    if (!parseAttribute(value))
      return false;
    attributeAliases_[name] = std::move(value);
    return true;
  }
  if (tok().is(MlirTokenKind::BangId) && lexer_.peek().is(MlirTokenKind::Equal)) {
    std::string name = tok().text.drop_front().str();
    consume();
    consume(); // '='
    Type type;
    if (!parseType(type))
      return false;
    typeAliases_[name] = std::move(type);
    return true;
  }
  Operation op;
  if (!parseOperation(op, 0))
    return false;
  module.operations.push_back(std::move(op));
  return true;
}

// Operations ---------------------------------------------------------------------

bool MlirParser::parseValueUse(ValueUse &use) {
  if (!tok().is(MlirTokenKind::ValueId))
    return failHere("expected a value ('%name')");
  use.location = tok().location();
  use.name = tok().text.drop_front().str();
  use.index = 0;
  consume();
  if (tok().is(MlirTokenKind::Hash)) {
    consume();
    int64_t index;
    if (!tok().is(MlirTokenKind::Integer) || tok().text.getAsInteger(10, index) || index < 0 ||
        index > 1 << 20)
      return failHere("expected a result number after '#'");
    use.index = static_cast<unsigned>(index);
    consume();
  }
  return true;
}

bool MlirParser::parseValueUseList(std::vector<ValueUse> &uses) {
  if (!tok().is(MlirTokenKind::ValueId))
    return true;
  do {
    ValueUse use;
    if (!parseValueUse(use))
      return false;
    uses.push_back(std::move(use));
  } while (consumeIf(MlirTokenKind::Comma));
  return true;
}

/// Short names the func dialect's ops go by inside a module.
static std::string canonicalOpName(llvm::StringRef name) {
  if (name == "return")
    return "func.return";
  if (name == "call")
    return "func.call";
  if (name == "module")
    return "builtin.module";
  return name.str();
}

bool MlirParser::parseOperation(Operation &op, int depth) {
  if (depth > kMaxNesting)
    return failHere("operations nested too deeply");
  op.location = tok().location();
  if (tok().is(MlirTokenKind::ValueId)) {
    do {
      if (!tok().is(MlirTokenKind::ValueId))
        return failHere("expected a result name");
      std::string name = tok().text.drop_front().str();
      consume();
      unsigned count = 1;
      if (consumeIf(MlirTokenKind::Colon)) {
        int64_t value;
        if (!tok().is(MlirTokenKind::Integer) || tok().text.getAsInteger(10, value) || value < 1 ||
            value > 1 << 20)
          return failHere("expected a result count after ':'");
        count = static_cast<unsigned>(value);
        consume();
      }
      op.results.emplace_back(std::move(name), count);
    } while (consumeIf(MlirTokenKind::Comma));
    if (!expect(MlirTokenKind::Equal, "'=' after the result names"))
      return false;
  }
  if (tok().is(MlirTokenKind::String)) {
    if (!parseGenericOperation(op, depth))
      return false;
    return parseOptionalLocation(op);
  }
  if (!tok().is(MlirTokenKind::Identifier))
    return failHere("expected an operation");
  llvm::SMLoc nameLocation = tok().location();
  op.name = canonicalOpName(tok().text);
  consume();
  std::optional<bool> parsed = parsePrettyOperation(op, depth);
  if (!parsed)
    return failUnsupported(nameLocation,
                           "operation '" + op.name +
                               "' is not supported (in the generic form \"dialect.op\"(...) "
                               "it would parse, and convert if Mote knew it)");
  if (!*parsed)
    return false;
  return parseOptionalLocation(op);
}

bool MlirParser::parseGenericOperation(Operation &op, int depth) {
  op.name = unescapeMlirString(tok().text);
  consume();
  if (!expect(MlirTokenKind::LParen, "'(' after the operation name"))
    return false;
  if (!parseValueUseList(op.operands) || !expect(MlirTokenKind::RParen, "')' after the operands"))
    return false;
  if (tok().is(MlirTokenKind::LSquare)) // successors: not in StableHLO
    return failUnsupported(tok().location(), "block successors are not supported");
  if (tok().is(MlirTokenKind::Less)) {
    consume();
    if (!parseAttributeDictionary(op.attributes, depth + 1) ||
        !expect(MlirTokenKind::Greater, "'>' after the properties"))
      return false;
  }
  if (tok().is(MlirTokenKind::LParen) && lexer_.peek().is(MlirTokenKind::LBrace)) {
    consume();
    do {
      op.regions.emplace_back();
      if (!parseRegion(op.regions.back(), depth + 1))
        return false;
    } while (consumeIf(MlirTokenKind::Comma));
    if (!expect(MlirTokenKind::RParen, "')' after the regions"))
      return false;
  }
  if (tok().is(MlirTokenKind::LBrace) && !parseAttributeDictionary(op.attributes, depth + 1))
    return false;
  if (!expect(MlirTokenKind::Colon, "':' and the operation's type"))
    return false;
  return parseFunctionType(op.operandTypes, op.resultTypes);
}

bool MlirParser::parseRegion(Region &region, int depth, std::vector<BlockArgument> entryArguments) {
  if (depth > kMaxNesting)
    return failHere("regions nested too deeply");
  region.location = tok().location();
  if (!expect(MlirTokenKind::LBrace, "'{' to start a region"))
    return false;
  region.blocks.emplace_back();
  region.blocks.back().arguments = std::move(entryArguments);
  if (!parseBlock(region.blocks.back(), depth, /*isEntry=*/true))
    return false;
  while (tok().is(MlirTokenKind::CaretId)) {
    region.blocks.emplace_back();
    if (!parseBlock(region.blocks.back(), depth, /*isEntry=*/false))
      return false;
  }
  return expect(MlirTokenKind::RBrace, "'}' to end the region");
}

bool MlirParser::parseBlock(Block &block, int depth, bool isEntry) {
  if (tok().is(MlirTokenKind::CaretId)) {
    consume();
    if (tok().is(MlirTokenKind::LParen) && !parseParenthesizedList("the block arguments", [&] {
          BlockArgument argument;
          if (!parseArgumentName(argument, "a block argument ('%name: type')") ||
              !expect(MlirTokenKind::Colon, "':' after the block argument") ||
              !parseType(argument.type))
            return false;
          Operation ignored;
          if (!parseOptionalLocation(ignored))
            return false;
          block.arguments.push_back(std::move(argument));
          return true;
        }))
      return false;
    if (!expect(MlirTokenKind::Colon, "':' after the block label"))
      return false;
  } else if (!isEntry) {
    return failHere("expected a block label");
  }
  while (!tok().is(MlirTokenKind::RBrace) && !tok().is(MlirTokenKind::CaretId)) {
    if (tok().is(MlirTokenKind::Eof))
      return failHere("expected '}' to end the region");
    block.operations.emplace_back();
    if (!parseOperation(block.operations.back(), depth + 1))
      return false;
  }
  return true;
}

bool MlirParser::parseLocationBody(std::string &text) {
  if (!tok().is(MlirTokenKind::LParen))
    return failHere("expected '(' after 'loc'");
  consume();
  llvm::StringRef inner;
  if (!skipBalanced({MlirTokenKind::RParen}, inner))
    return false;
  consume(); // ')'
  text = inner.str();
  return true;
}

bool MlirParser::parseOptionalLocation(Operation &op) {
  if (!tok().isKeyword("loc") || !lexer_.peek().is(MlirTokenKind::LParen))
    return true;
  consume();
  return parseLocationBody(op.sourceLocation);
}

bool MlirParser::parseFunctionType(std::vector<Type> &inputs, std::vector<Type> &results,
                                   int depth) {
  if (!expect(MlirTokenKind::LParen, "'(' to start a function type"))
    return false;
  if (!tok().is(MlirTokenKind::RParen) && !parseTypeList(inputs, depth))
    return false;
  if (!expect(MlirTokenKind::RParen, "')' after the operand types") ||
      !expect(MlirTokenKind::Arrow, "'->' in the function type"))
    return false;
  if (tok().is(MlirTokenKind::LParen)) {
    consume();
    if (!tok().is(MlirTokenKind::RParen) && !parseTypeList(results, depth))
      return false;
    return expect(MlirTokenKind::RParen, "')' after the result types");
  }
  results.emplace_back();
  return parseType(results.back(), depth);
}

bool MlirParser::parseTrailingTypes(Operation &op) {
  if (tok().is(MlirTokenKind::LParen))
    return parseFunctionType(op.operandTypes, op.resultTypes);
  if (!parseTypeList(op.operandTypes))
    return false;
  // `%x : T -> U` (chlo's unary ops)
  if (consumeIf(MlirTokenKind::Arrow)) {
    if (tok().is(MlirTokenKind::LParen)) {
      consume();
      if (!parseTypeList(op.resultTypes))
        return false;
      return expect(MlirTokenKind::RParen, "')' after the result types");
    }
    op.resultTypes.emplace_back();
    return parseType(op.resultTypes.back());
  }
  return true;
}

} // namespace detail
} // namespace mote::stablehlo
