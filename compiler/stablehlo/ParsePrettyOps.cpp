//===- ParsePrettyOps.cpp - MLIR text: the pretty forms of operations -----===//
///
/// \file
/// The custom assembly formats of the func, builtin, stablehlo, chlo and
/// check ops. Most share one of two shapes, `op %a, %b attrs : types` and
/// `op %a, key = value, ... attrs : types`; the rest (constant, slice,
/// convolution, reduce, while, func.func, ...) have a function each. Pretty
/// keywords become the attribute names of the generic form.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/PrettyOpParser.h"

#include "llvm/ADT/StringSwitch.h"

namespace mote::stablehlo::detail {

namespace {

/// The generic attribute a pretty keyword of `op` stands for.
llvm::StringRef genericAttributeName(llvm::StringRef op, llvm::StringRef keyword) {
  llvm::StringRef base = op.rsplit('.').second;
  if (keyword == "dims") {
    if (base == "transpose")
      return "permutation";
    if (base == "reverse")
      return "dimensions";
    return "broadcast_dimensions";
  }
  if (keyword == "dim") {
    if (base == "iota" || base == "dynamic_iota")
      return "iota_dimension";
    return "dimension";
  }
  return llvm::StringSwitch<llvm::StringRef>(keyword)
      .Case("sizes", "slice_sizes")
      .Case("low", "edge_padding_low")
      .Case("high", "edge_padding_high")
      .Case("interior", "interior_padding")
      .Case("type", "fft_type")
      .Case("length", "fft_length")
      .Case("algorithm", base == "rng_bit_generator" ? "rng_algorithm" : "algorithm")
      .Case("distribution", "rng_distribution")
      .Case("precision", "precision_config")
      .Default(keyword);
}

/// Ops whose pretty form ends in one type that every operand and the result
/// share when no function type is written.
bool isTerminator(llvm::StringRef name) {
  return name == "func.return" || name == "stablehlo.return";
}

} // namespace

bool PrettyOpParser::parseAttributeDictionaryIfAny() {
  if (p.tok().isKeyword("attributes"))
    p.consume();
  if (p.tok().is(MlirTokenKind::LBrace))
    return p.parseAttributeDictionary(op.attributes, depth + 1);
  return true;
}

void PrettyOpParser::addAttribute(std::string name, Attribute value) {
  op.attributes.push_back({std::move(name), std::move(value)});
}

Attribute PrettyOpParser::enumAttribute(std::string kind, std::string value, llvm::SMLoc location) {
  Attribute attribute;
  attribute.kind = Attribute::Kind::Enum;
  attribute.name = std::move(kind);
  attribute.text = std::move(value);
  attribute.location = location;
  return attribute;
}

/// After the operands and attributes: `: types`, then result types from
/// the operand types where the form leaves them implicit.
bool PrettyOpParser::parseTypesAndResolve(bool typesRequired) {
  if (!p.tok().is(MlirTokenKind::Colon)) {
    if (typesRequired && !op.operands.empty())
      return p.failHere("expected ':' and the operation's types");
    return true;
  }
  p.consume();
  bool functional = p.tok().is(MlirTokenKind::LParen);
  if (!p.parseTrailingTypes(op))
    return false;
  if (functional || !op.resultTypes.empty())
    return true;
  llvm::StringRef base = op.name;
  std::vector<Type> listed = std::move(op.operandTypes);
  op.operandTypes.clear();
  if (isTerminator(base)) {
    op.operandTypes = std::move(listed);
    return true;
  }
  if (base == "stablehlo.optimization_barrier") {
    op.operandTypes = listed;
    op.resultTypes = std::move(listed);
    return true;
  }
  if (base == "stablehlo.tuple" && listed.size() == 1) {
    op.operandTypes = listed.front().elements;
    op.resultTypes = std::move(listed);
    return true;
  }
  if (base == "stablehlo.select" && listed.size() == 2) {
    op.operandTypes = {listed[0], listed[1], listed[1]};
    op.resultTypes = {listed[1]};
    return true;
  }
  if (base.starts_with("check.")) {
    op.operandTypes = std::move(listed);
    return true;
  }
  if (listed.size() != 1)
    return p.fail(op.location, "expected one type or a function type for '" + op.name + "'");
  op.operandTypes.assign(op.operands.size(), listed.front());
  if (base == "stablehlo.after_all" || base == "stablehlo.create_token")
    op.operandTypes.assign(op.operands.size(), listed.front());
  op.resultTypes = {listed.front()};
  return true;
}

/// `%a, %b, key = value, WORD, ...`: values, keyword attributes, and bare
/// words (compare's direction and type), up to the attributes or types.
bool PrettyOpParser::parseOperandsAndKeywords() {
  bool first = true;
  while (true) {
    if (!first && !p.consumeIf(MlirTokenKind::Comma))
      return true;
    first = false;
    const MlirToken token = p.tok();
    if (token.is(MlirTokenKind::ValueId)) {
      op.operands.emplace_back();
      if (!p.parseValueUse(op.operands.back()))
        return false;
      continue;
    }
    if (token.is(MlirTokenKind::Identifier) && p.lexer().peek().is(MlirTokenKind::Equal)) {
      p.consume();
      p.consume(); // '='
      if (!parseKeywordValue(token.text, token.location()))
        return false;
      continue;
    }
    if (token.is(MlirTokenKind::Identifier) && op.name == "stablehlo.compare") {
      bool direction = !op.attribute("comparison_direction");
      addAttribute(direction ? "comparison_direction" : "compare_type",
                   enumAttribute(direction ? "comparison_direction" : "comparison_type",
                                 token.text.str(), token.location()));
      p.consume();
      continue;
    }
    if (first || op.operands.empty())
      return true; // no operands (iota) or something else follows
    return p.failHere("expected a value or 'name = value'");
  }
}

bool PrettyOpParser::parseKeywordValue(llvm::StringRef keyword, llvm::SMLoc location) {
  if (keyword == "format") { // reduce_precision's e5m10
    const MlirToken &token = p.tok();
    unsigned exponent = 0, mantissa = 0;
    llvm::StringRef text = token.text;
    if (!token.is(MlirTokenKind::Identifier) || !text.consume_front("e"))
      return p.failHere("expected a format like 'e5m10'");
    auto [e, m] = text.split('m');
    if (e.getAsInteger(10, exponent) || m.getAsInteger(10, mantissa))
      return p.failHere("expected a format like 'e5m10'");
    Attribute exponentBits, mantissaBits;
    exponentBits.kind = mantissaBits.kind = Attribute::Kind::Integer;
    exponentBits.integer = exponent;
    mantissaBits.integer = mantissa;
    addAttribute("exponent_bits", exponentBits);
    addAttribute("mantissa_bits", mantissaBits);
    p.consume();
    return true;
  }
  Attribute value;
  const MlirToken &token = p.tok();
  if (token.is(MlirTokenKind::Integer) || token.is(MlirTokenKind::Minus) ||
      token.is(MlirTokenKind::Float)) {
    // A plain number: the `: type` after it belongs to the op, not to it.
    bool negative = p.consumeIf(MlirTokenKind::Minus);
    if (p.tok().is(MlirTokenKind::Float)) {
      value.kind = Attribute::Kind::Float;
      if (!parseFloatLiteral(p.tok().text, value.number))
        return p.failHere("invalid number");
      value.number = negative ? -value.number : value.number;
    } else {
      uint64_t magnitude;
      if (!p.tok().is(MlirTokenKind::Integer) || p.tok().text.getAsInteger(0, magnitude))
        return p.failHere("expected a number for '" + keyword + "'");
      value.kind = Attribute::Kind::Integer;
      value.integer =
          negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
      value.number = static_cast<double>(value.integer);
    }
    p.consume();
  } else if (token.is(MlirTokenKind::String)) {
    value.kind = Attribute::Kind::String;
    value.text = unescapeMlirString(token.text);
    p.consume();
  } else if (token.is(MlirTokenKind::Less)) {
    // `algorithm = <...>`: carries nothing single-device results depend on.
    p.consume();
    llvm::StringRef body;
    if (!p.skipBalanced({MlirTokenKind::Greater}, body))
      return false;
    p.consume();
    value.kind = Attribute::Kind::Opaque;
    value.text = body.str();
  } else if (!p.parseAttribute(value, depth + 1)) {
    return false;
  }
  value.location = location;
  if (keyword == "batching_dims" || keyword == "contracting_dims") {
    // `[0, 1] x [0, 1]`: the lhs and rhs dimensions of dot_general.
    Attribute rhs;
    if (!p.expectKeyword("x", "'x' between the lhs and rhs dimensions") ||
        !p.parseAttribute(rhs, depth + 1))
      return false;
    Attribute *numbers = nullptr;
    for (NamedAttribute &named : op.attributes)
      if (named.name == "dot_dimension_numbers")
        numbers = &named.value;
    if (!numbers) {
      Attribute created;
      created.kind = Attribute::Kind::Struct;
      created.name = "stablehlo.dot";
      created.fields = std::make_shared<AttributeList>();
      created.location = location;
      addAttribute("dot_dimension_numbers", std::move(created));
      numbers = &op.attributes.back().value;
    }
    llvm::StringRef suffix =
        keyword == "batching_dims" ? "batching_dimensions" : "contracting_dimensions";
    numbers->fields->push_back({("lhs_" + suffix).str(), std::move(value)});
    numbers->fields->push_back({("rhs_" + suffix).str(), std::move(rhs)});
    return true;
  }
  addAttribute(genericAttributeName(op.name, keyword).str(), std::move(value));
  return true;
}

bool PrettyOpParser::parseCommon() {
  return parseOperandsAndKeywords() && parseAttributeDictionaryIfAny() && parseTypesAndResolve();
}

bool PrettyOpParser::parseConstant() {
  if (!parseAttributeDictionaryIfAny())
    return false;
  Attribute value;
  if (!p.parseAttribute(value, depth + 1))
    return false;
  if (!value.type)
    return p.fail(value.location, "expected the constant's type");
  op.resultTypes = {*value.type};
  addAttribute("value", std::move(value));
  return true;
}

/// `%x [0:4, 1:3:2]`
bool PrettyOpParser::parseSlice() {
  op.operands.emplace_back();
  if (!p.parseValueUse(op.operands.back()) ||
      !p.expect(MlirTokenKind::LSquare, "'[' and the slice's ranges"))
    return false;
  Attribute starts, limits, strides;
  for (Attribute *a : {&starts, &limits, &strides})
    a->kind = Attribute::Kind::DenseArray;
  if (!p.tok().is(MlirTokenKind::RSquare)) {
    do {
      int64_t start, limit, stride = 1;
      if (!p.parseSignedInteger(start, "the slice start") ||
          !p.expect(MlirTokenKind::Colon, "':' after the slice start") ||
          !p.parseSignedInteger(limit, "the slice limit"))
        return false;
      if (p.consumeIf(MlirTokenKind::Colon) && !p.parseSignedInteger(stride, "the stride"))
        return false;
      for (auto [attribute, value] :
           {std::pair{&starts, start}, {&limits, limit}, {&strides, stride}}) {
        Attribute element;
        element.kind = Attribute::Kind::Integer;
        element.integer = value;
        attribute->elements.push_back(element);
      }
    } while (p.consumeIf(MlirTokenKind::Comma));
  }
  if (!p.expect(MlirTokenKind::RSquare, "']' after the slice's ranges"))
    return false;
  addAttribute("start_indices", starts);
  addAttribute("limit_indices", limits);
  addAttribute("strides", strides);
  return parseAttributeDictionaryIfAny() && parseTypesAndResolve();
}

/// `%t[1]`
bool PrettyOpParser::parseGetTupleElement() {
  op.operands.emplace_back();
  Attribute index;
  index.kind = Attribute::Kind::Integer;
  if (!p.parseValueUse(op.operands.back()) ||
      !p.expect(MlirTokenKind::LSquare, "'[' and the element index") ||
      !p.parseSignedInteger(index.integer, "the element index") ||
      !p.expect(MlirTokenKind::RSquare, "']' after the index"))
    return false;
  addAttribute("index", index);
  return parseAttributeDictionaryIfAny() && parseTypesAndResolve();
}

/// `@target(%a, %b) {attrs} : (...) -> ...` (custom_call, func.call).
bool PrettyOpParser::parseSymbolCall(llvm::StringRef symbolAttribute) {
  if (!p.tok().is(MlirTokenKind::SymbolRef))
    return p.failHere("expected '@name'");
  Attribute symbol;
  if (!p.parseAttribute(symbol, depth + 1))
    return false;
  if (symbolAttribute == "call_target_name")
    symbol.kind = Attribute::Kind::String;
  addAttribute(symbolAttribute.str(), std::move(symbol));
  if (!p.expect(MlirTokenKind::LParen, "'(' and the operands") ||
      !p.parseValueUseList(op.operands) ||
      !p.expect(MlirTokenKind::RParen, "')' after the operands"))
    return false;
  if (!p.parseOptionalProperties(op.attributes, depth + 1) || !parseAttributeDictionaryIfAny())
    return false;
  if (!p.expect(MlirTokenKind::Colon, "':' and the function type"))
    return false;
  return p.parseFunctionType(op.operandTypes, op.resultTypes);
}

/// `"name" %a, %b {composite_attributes = ..., decomposition = @f} : (...) -> ...`
bool PrettyOpParser::parseComposite() {
  Attribute name;
  if (!p.tok().is(MlirTokenKind::String) || !p.parseAttribute(name, depth + 1))
    return p.failHere("expected the composite's name");
  addAttribute("name", std::move(name));
  return parseCommon();
}

/// `(%lhs, %rhs) dim_numbers = ..., window = {...} {attrs} : (...) -> ...`
bool PrettyOpParser::parseConvolution() {
  if (!p.expect(MlirTokenKind::LParen, "'(' and the operands") ||
      !p.parseValueUseList(op.operands) ||
      !p.expect(MlirTokenKind::RParen, "')' after the operands"))
    return false;
  if (!p.expectKeyword("dim_numbers", "'dim_numbers'") ||
      !p.expect(MlirTokenKind::Equal, "'=' after 'dim_numbers'"))
    return false;
  Attribute numbers;
  numbers.kind = Attribute::Kind::ConvDims;
  numbers.location = p.tok().location();
  llvm::StringRef text;
  if (!p.skipBalanced({MlirTokenKind::Comma, MlirTokenKind::LBrace, MlirTokenKind::Colon}, text))
    return false;
  numbers.text = text.str();
  addAttribute("dimension_numbers", std::move(numbers));
  if (p.consumeIf(MlirTokenKind::Comma)) {
    if (!p.expectKeyword("window", "'window'") ||
        !p.expect(MlirTokenKind::Equal, "'=' after 'window'") ||
        !p.expect(MlirTokenKind::LBrace, "'{' to start the window"))
      return false;
    if (!p.tok().is(MlirTokenKind::RBrace)) {
      do {
        if (!p.tok().is(MlirTokenKind::Identifier))
          return p.failHere("expected a window field");
        std::string field = llvm::StringSwitch<std::string>(p.tok().text)
                                .Case("stride", "window_strides")
                                .Case("pad", "padding")
                                .Case("lhs_dilate", "lhs_dilation")
                                .Case("rhs_dilate", "rhs_dilation")
                                .Case("reverse", "window_reversal")
                                .Default(p.tok().text.str());
        p.consume();
        Attribute value;
        if (!p.expect(MlirTokenKind::Equal, "'=' after the window field") ||
            !p.parseAttribute(value, depth + 1))
          return false;
        addAttribute(field, std::move(value));
      } while (p.consumeIf(MlirTokenKind::Comma));
    }
    if (!p.expect(MlirTokenKind::RBrace, "'}' to end the window"))
      return false;
  }
  return parseAttributeDictionaryIfAny() && parseTypesAndResolve();
}

/// `check.expect_eq_const %x, dense<...> : T` and its almost-equal twin.
bool PrettyOpParser::parseExpectConst() {
  op.operands.emplace_back();
  if (!p.parseValueUse(op.operands.back()) ||
      !p.expect(MlirTokenKind::Comma, "',' and the expected value"))
    return false;
  Attribute value;
  if (!p.parseAttribute(value, depth + 1))
    return false;
  if (!value.type)
    return p.fail(value.location, "expected the expected value's type");
  op.operandTypes = {*value.type};
  addAttribute("value", std::move(value));
  while (p.consumeIf(MlirTokenKind::Comma)) {
    if (!p.tok().is(MlirTokenKind::Identifier))
      return p.failHere("expected 'name = value'");
    std::string key = p.tok().text.str();
    p.consume();
    Attribute extra;
    if (!p.expect(MlirTokenKind::Equal, "'='") || !p.parseAttribute(extra, depth + 1))
      return false;
    addAttribute(key, std::move(extra));
  }
  return parseAttributeDictionaryIfAny();
}

/// `chlo.top_k(%x, k = 3) : T -> (U, V)`
bool PrettyOpParser::parseTopK() {
  if (!p.expect(MlirTokenKind::LParen, "'('") || !parseOperandsAndKeywords() ||
      !p.expect(MlirTokenKind::RParen, "')'"))
    return false;
  return parseAttributeDictionaryIfAny() && parseTypesAndResolve();
}

std::optional<bool> MlirParser::parsePrettyOperation(Operation &op, int depth) {
  PrettyOpParser parser{*this, op, depth};
  llvm::StringRef name = op.name;
  if (name == "builtin.module")
    return parser.parseModule();
  if (name == "func.func")
    return parser.parseFunction();
  if (name == "func.call")
    return parser.parseSymbolCall("callee");
  if (name == "stablehlo.custom_call")
    return parser.parseSymbolCall("call_target_name");
  if (name == "stablehlo.constant")
    return parser.parseConstant();
  if (name == "stablehlo.slice")
    return parser.parseSlice();
  if (name == "stablehlo.get_tuple_element")
    return parser.parseGetTupleElement();
  if (name == "stablehlo.convolution")
    return parser.parseConvolution();
  if (name == "stablehlo.reduce")
    return parser.parseReduce();
  if (name == "stablehlo.while")
    return parser.parseWhile();
  if (name == "stablehlo.composite")
    return parser.parseComposite();
  if (name == "check.expect_eq_const" || name == "check.expect_almost_eq_const")
    return parser.parseExpectConst();
  if (name == "chlo.top_k")
    return parser.parseTopK();
  if (name == "chlo.scan")
    return parser.parseScan();
  if (name.starts_with("stablehlo.") || name.starts_with("chlo.") || name.starts_with("check.") ||
      name.starts_with("interpreter.") || name == "func.return")
    return parser.parseCommon();
  return std::nullopt;
}

} // namespace mote::stablehlo::detail
