//===- ParseRegionOps.cpp - MLIR text: the pretty forms with regions ------===//
///
/// \file
/// reduce (`applies` or an explicit reducer), while (cond/do), chlo.scan,
/// func.func and module: the pretty forms that carry regions.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/PrettyOpParser.h"

namespace mote::stablehlo::detail {

/// A region `(%a: T, %b: U) { ... }` given in a pretty form.
bool PrettyOpParser::parseBlockArguments(std::vector<BlockArgument> &arguments) {
  return p.parseParenthesizedList("the arguments", [&] {
    BlockArgument argument;
    if (!p.parseArgumentName(argument, "an argument ('%name: type')") ||
        !p.expect(MlirTokenKind::Colon, "':' after the argument") || !p.parseType(argument.type))
      return false;
    arguments.push_back(std::move(argument));
    return true;
  });
}

/// `(%x init: %i), ... applies stablehlo.add across dimensions = [1] : ...`
/// or `... across dimensions = [1] : ... reducer(%a: T, %c: T) (%b: U, %d: U) {...}`.
bool PrettyOpParser::parseReduce() {
  std::vector<ValueUse> inputs, inits;
  do {
    ValueUse input, init;
    if (!p.expect(MlirTokenKind::LParen, "'(' and '%operand init: %value'") ||
        !p.parseValueUse(input) || !p.expectKeyword("init", "'init:'") ||
        !p.expect(MlirTokenKind::Colon, "':' after 'init'") || !p.parseValueUse(init) ||
        !p.expect(MlirTokenKind::RParen, "')'"))
      return false;
    inputs.push_back(std::move(input));
    inits.push_back(std::move(init));
  } while (p.consumeIf(MlirTokenKind::Comma));
  op.operands = inputs;
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  std::string applied;
  llvm::SMLoc appliedLocation;
  if (p.consumeKeyword("applies")) {
    if (!p.tok().is(MlirTokenKind::Identifier))
      return p.failHere("expected the reduction's operation");
    applied = p.tok().text.str();
    appliedLocation = p.tok().location();
    p.consume();
  }
  if (!p.expectKeyword("across", "'across dimensions = [...]'") ||
      !p.expectKeyword("dimensions", "'dimensions'") ||
      !p.expect(MlirTokenKind::Equal, "'=' after 'dimensions'"))
    return false;
  Attribute dimensions;
  if (!p.parseAttribute(dimensions, depth + 1))
    return false;
  addAttribute("dimensions", std::move(dimensions));
  if (!parseAttributeDictionaryIfAny() ||
      !p.expect(MlirTokenKind::Colon, "':' and the function type") ||
      !p.parseFunctionType(op.operandTypes, op.resultTypes))
    return false;
  op.regions.emplace_back();
  Region &region = op.regions.back();
  if (!applied.empty()) {
    // The region `^bb0(%lhs_i..., %rhs_i...): %r = applied(...); return %r`.
    size_t n = inputs.size();
    if (op.operandTypes.size() != 2 * n)
      return p.fail(appliedLocation, "expected a type for each operand and initial value");
    region.location = appliedLocation;
    region.blocks.emplace_back();
    Block &block = region.blocks.back();
    for (size_t side = 0; side < 2; ++side)
      for (size_t i = 0; i < n; ++i) {
        Type scalar = op.operandTypes[n + i];
        block.arguments.push_back(
            {"reduce.arg" + std::to_string(side * n + i), scalar, appliedLocation});
      }
    if (n != 1)
      return p.fail(appliedLocation, "'applies' takes one operand");
    Operation body;
    body.name = applied;
    body.location = appliedLocation;
    body.results.emplace_back("reduce.result", 1);
    body.operands = {{"reduce.arg0", 0, appliedLocation}, {"reduce.arg1", 0, appliedLocation}};
    body.operandTypes = {block.arguments[0].type, block.arguments[1].type};
    body.resultTypes = {block.arguments[0].type};
    Operation terminator;
    terminator.name = "stablehlo.return";
    terminator.location = appliedLocation;
    terminator.operands = {{"reduce.result", 0, appliedLocation}};
    terminator.operandTypes = {block.arguments[0].type};
    block.operations.push_back(std::move(body));
    block.operations.push_back(std::move(terminator));
    return true;
  }
  if (!p.expectKeyword("reducer", "'applies' or 'reducer'"))
    return false;
  std::vector<BlockArgument> lhs, rhs;
  while (p.tok().is(MlirTokenKind::LParen)) {
    std::vector<BlockArgument> pair;
    if (!parseBlockArguments(pair))
      return false;
    if (pair.size() != 2)
      return p.failHere("expected two reducer arguments per operand");
    lhs.push_back(std::move(pair[0]));
    rhs.push_back(std::move(pair[1]));
  }
  lhs.insert(lhs.end(), std::make_move_iterator(rhs.begin()), std::make_move_iterator(rhs.end()));
  return p.parseRegion(region, depth + 1, std::move(lhs));
}

/// `(%arg = %init, ...) : T, U attributes {...} cond { ... } do { ... }`
bool PrettyOpParser::parseWhile() {
  std::vector<BlockArgument> arguments;
  if (!p.parseParenthesizedList("the loop's values", [&] {
        BlockArgument argument;
        op.operands.emplace_back();
        if (!p.parseArgumentName(argument, "'%name = %initial'") ||
            !p.expect(MlirTokenKind::Equal, "'=' after the loop value") ||
            !p.parseValueUse(op.operands.back()))
          return false;
        arguments.push_back(std::move(argument));
        return true;
      }))
    return false;
  if (!arguments.empty()) {
    if (!p.expect(MlirTokenKind::Colon, "':' and the loop's types") ||
        !p.parseTypeList(op.operandTypes))
      return false;
    if (op.operandTypes.size() != arguments.size())
      return p.failHere("expected one type per loop value");
    for (size_t i = 0; i < arguments.size(); ++i)
      arguments[i].type = op.operandTypes[i];
  }
  op.resultTypes = op.operandTypes;
  if (!parseAttributeDictionaryIfAny() || !p.expectKeyword("cond", "'cond'"))
    return false;
  op.regions.resize(2);
  if (!p.parseRegion(op.regions[0], depth + 1, arguments) || !p.expectKeyword("do", "'do'"))
    return false;
  return p.parseRegion(op.regions[1], depth + 1, arguments);
}

/// `(%x, ...) inits(%c, ...) dimension=0 attributes {...} { ^bb0(...): ... } : (...) -> (...)`
bool PrettyOpParser::parseScan() {
  auto values = [&](const char *what) {
    return p.parseParenthesizedList(what, [&] {
      op.operands.emplace_back();
      return p.parseValueUse(op.operands.back());
    });
  };
  if (!values("the scanned values"))
    return false;
  const int64_t inputCount = int64_t(op.operands.size());
  if (!p.expectKeyword("inits", "'inits(...)'") || !values("the initial carries") ||
      !p.expectKeyword("dimension", "'dimension = N'") ||
      !p.expect(MlirTokenKind::Equal, "'=' after 'dimension'"))
    return false;
  Attribute dimension;
  if (!p.parseAttribute(dimension, depth + 1))
    return false;
  addAttribute("dimension", std::move(dimension));
  // The generic form's split of the operands into inputs and carries.
  const int64_t segments[] = {inputCount, int64_t(op.operands.size()) - inputCount};
  addAttribute("operandSegmentSizes",
               Attribute::integerList(Attribute::Kind::DenseArray, segments));
  if (p.consumeKeyword("attributes") && !p.parseAttributeDictionary(op.attributes, depth + 1))
    return false;
  op.regions.emplace_back();
  if (!p.parseRegion(op.regions.back(), depth + 1))
    return false;
  return p.expect(MlirTokenKind::Colon, "':' and the function type") &&
         p.parseFunctionType(op.operandTypes, op.resultTypes);
}

/// `[public|private] @name(%a: T {attrs}, ...) -> (U {attrs}) attributes {...} { body }`
bool PrettyOpParser::parseFunction() {
  if (p.tok().isKeyword("public") || p.tok().isKeyword("private") || p.tok().isKeyword("nested")) {
    Attribute visibility;
    visibility.kind = Attribute::Kind::String;
    visibility.text = p.tok().text.str();
    addAttribute("sym_visibility", visibility);
    p.consume();
  }
  if (!p.tok().is(MlirTokenKind::SymbolRef))
    return p.failHere("expected the function's name ('@name')");
  Attribute name;
  if (!p.parseAttribute(name, depth + 1))
    return false;
  name.kind = Attribute::Kind::String;
  addAttribute("sym_name", name);
  std::vector<BlockArgument> arguments;
  Attribute functionType;
  functionType.kind = Attribute::Kind::TypeValue;
  functionType.type = std::make_shared<Type>();
  functionType.type->kind = Type::Kind::Function;
  Attribute argAttributes, resultAttributes;
  argAttributes.kind = resultAttributes.kind = Attribute::Kind::Array;
  if (!p.parseParenthesizedList("the arguments", [&] {
        BlockArgument argument;
        // A declaration names only the types.
        if (p.tok().is(MlirTokenKind::ValueId) &&
            (!p.parseArgumentName(argument, "an argument") ||
             !p.expect(MlirTokenKind::Colon, "':' after the argument")))
          return false;
        if (!p.parseType(argument.type))
          return false;
        Attribute attributes;
        attributes.kind = Attribute::Kind::Dictionary;
        attributes.fields = std::make_shared<AttributeList>();
        if (p.tok().is(MlirTokenKind::LBrace) &&
            !p.parseAttributeDictionary(*attributes.fields, depth + 1))
          return false;
        Operation ignored;
        if (!p.parseOptionalLocation(ignored))
          return false;
        argAttributes.elements.push_back(std::move(attributes));
        functionType.type->elements.push_back(argument.type);
        arguments.push_back(std::move(argument));
        return true;
      }))
    return false;
  if (p.consumeIf(MlirTokenKind::Arrow)) {
    bool parenthesized = p.consumeIf(MlirTokenKind::LParen);
    if (!parenthesized || !p.tok().is(MlirTokenKind::RParen)) {
      do {
        Type result;
        if (!p.parseType(result))
          return false;
        Attribute attributes;
        attributes.kind = Attribute::Kind::Dictionary;
        attributes.fields = std::make_shared<AttributeList>();
        if (parenthesized && p.tok().is(MlirTokenKind::LBrace) &&
            !p.parseAttributeDictionary(*attributes.fields, depth + 1))
          return false;
        resultAttributes.elements.push_back(std::move(attributes));
        functionType.type->results.push_back(std::move(result));
      } while (parenthesized && p.consumeIf(MlirTokenKind::Comma));
    }
    if (parenthesized && !p.expect(MlirTokenKind::RParen, "')' after the result types"))
      return false;
  }
  addAttribute("function_type", std::move(functionType));
  addAttribute("arg_attrs", std::move(argAttributes));
  addAttribute("res_attrs", std::move(resultAttributes));
  if (p.consumeKeyword("attributes") && !p.parseAttributeDictionary(op.attributes, depth + 1))
    return false;
  if (!p.tok().is(MlirTokenKind::LBrace))
    return true; // a declaration
  op.regions.emplace_back();
  return p.parseRegion(op.regions.back(), depth + 1, std::move(arguments));
}

/// `module @name attributes {...} { ... }`
bool PrettyOpParser::parseModule() {
  if (p.tok().is(MlirTokenKind::SymbolRef)) {
    Attribute name;
    if (!p.parseAttribute(name, depth + 1))
      return false;
    name.kind = Attribute::Kind::String;
    addAttribute("sym_name", name);
  }
  if (p.consumeKeyword("attributes") && !p.parseAttributeDictionary(op.attributes, depth + 1))
    return false;
  op.regions.emplace_back();
  return p.parseRegion(op.regions.back(), depth + 1);
}

} // namespace mote::stablehlo::detail
