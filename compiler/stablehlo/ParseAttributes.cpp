//===- ParseAttributes.cpp - MLIR text: attributes ------------------------===//

#include "stablehlo/MlirParser.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::stablehlo::detail {

bool MlirParser::parseSignedInteger(int64_t &value, const llvm::Twine &what) {
  bool negative = consumeIf(MlirTokenKind::Minus);
  uint64_t magnitude;
  if (!tok().is(MlirTokenKind::Integer) || tok().text.getAsInteger(0, magnitude) ||
      magnitude > (negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX)))
    return failHere("expected an integer for " + what);
  consume();
  value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool MlirParser::parseIntegerList(llvm::SmallVectorImpl<int64_t> &values, const llvm::Twine &what) {
  if (!expect(MlirTokenKind::LSquare, "'[' to start " + what))
    return false;
  if (!tok().is(MlirTokenKind::RSquare)) {
    do {
      int64_t value;
      if (!parseSignedInteger(value, what))
        return false;
      values.push_back(value);
    } while (consumeIf(MlirTokenKind::Comma));
  }
  return expect(MlirTokenKind::RSquare, "']' to end " + what);
}

bool MlirParser::parseAttributeDictionary(AttributeList &attributes, int depth) {
  if (!expect(MlirTokenKind::LBrace, "'{' to start an attribute dictionary"))
    return false;
  if (!tok().is(MlirTokenKind::RBrace)) {
    do {
      NamedAttribute named;
      if (tok().is(MlirTokenKind::String))
        named.name = unescapeMlirString(tok().text);
      else if (tok().is(MlirTokenKind::Identifier))
        named.name = tok().text.str();
      else
        return failHere("expected an attribute name");
      named.value.location = tok().location();
      consume();
      if (consumeIf(MlirTokenKind::Equal)) {
        if (!parseAttribute(named.value, depth + 1))
          return false;
      } else {
        named.value.kind = Attribute::Kind::Unit;
      }
      attributes.push_back(std::move(named));
    } while (consumeIf(MlirTokenKind::Comma));
  }
  return expect(MlirTokenKind::RBrace, "'}' to end the attribute dictionary");
}

bool MlirParser::parseOptionalProperties(AttributeList &attributes, int depth) {
  if (tok().is(MlirTokenKind::Less) && lexer().peek().is(MlirTokenKind::LBrace)) {
    consume();
    if (!parseAttributeDictionary(attributes, depth) ||
        !expect(MlirTokenKind::Greater, "'>' after the properties"))
      return false;
  }
  if (tok().is(MlirTokenKind::LBrace))
    return parseAttributeDictionary(attributes, depth);
  return true;
}

/// `: type` after a number, string or dense literal.
static bool parseOptionalTypeSuffix(MlirParser &parser, Attribute &attribute) {
  if (!parser.tok().is(MlirTokenKind::Colon))
    return true;
  parser.consume();
  attribute.type = std::make_shared<Type>();
  return parser.parseType(*attribute.type);
}

/// `<k = v, ...>` of a dialect attribute, or its `<[...]x[...]->[...]>`
/// convolution spelling, after the mnemonic.
static bool parseDialectAttributeBody(MlirParser &parser, Attribute &attribute, int depth) {
  parser.consume(); // '<'
  // #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>: kept as text.
  if (parser.tok().is(MlirTokenKind::LSquare)) {
    llvm::StringRef text;
    if (!parser.skipBalanced({MlirTokenKind::Greater}, text))
      return false;
    attribute.kind = Attribute::Kind::ConvDims;
    attribute.text = text.str();
    return parser.expect(MlirTokenKind::Greater, "'>'");
  }
  parser.consumeKeyword("raw"); // #stablehlo.conv<raw input_batch_dimension = 0, ...>
  attribute.kind = Attribute::Kind::Struct;
  attribute.fields = std::make_shared<AttributeList>();
  if (!parser.tok().is(MlirTokenKind::Greater)) {
    do {
      NamedAttribute named;
      if (!parser.tok().is(MlirTokenKind::Identifier))
        return parser.failHere("expected a field name in '" + attribute.name + "'");
      named.name = parser.tok().text.str();
      named.value.location = parser.tok().location();
      parser.consume();
      if (!parser.expect(MlirTokenKind::Equal, "'=' after '" + named.name + "'") ||
          !parser.parseAttribute(named.value, depth + 1))
        return false;
      attribute.fields->push_back(std::move(named));
    } while (parser.consumeIf(MlirTokenKind::Comma));
  }
  return parser.expect(MlirTokenKind::Greater, "'>' to end '" + attribute.name + "'");
}

bool MlirParser::parseAttribute(Attribute &attribute, int depth) {
  if (depth > kMaxNesting)
    return failHere("attributes nested too deeply");
  attribute.location = tok().location();
  const MlirToken token = tok();
  switch (token.kind) {
  case MlirTokenKind::Minus:
  case MlirTokenKind::Integer:
  case MlirTokenKind::Float: {
    bool negative = consumeIf(MlirTokenKind::Minus);
    if (tok().is(MlirTokenKind::Integer)) {
      uint64_t magnitude;
      if (tok().text.getAsInteger(0, magnitude))
        return failHere("integer out of range");
      attribute.kind = Attribute::Kind::Integer;
      attribute.integer =
          negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
      attribute.number =
          negative ? -static_cast<double>(magnitude) : static_cast<double>(magnitude);
    } else if (tok().is(MlirTokenKind::Float)) {
      double value;
      if (!parseFloatLiteral(tok().text, value))
        return failHere("invalid number");
      attribute.kind = Attribute::Kind::Float;
      attribute.number = negative ? -value : value;
    } else {
      return failHere("expected a number after '-'");
    }
    consume();
    if (!parseOptionalTypeSuffix(*this, attribute))
      return false;
    // `1 : f32` is a float written as an integer; `0x7FC00000 : f32` its bits.
    if (attribute.kind == Attribute::Kind::Integer && attribute.type &&
        attribute.type->kind == Type::Kind::Scalar &&
        hlo::isFloatingPoint(attribute.type->element)) {
      attribute.kind = Attribute::Kind::Float;
      if (token.text.starts_with("0x")) {
        uint64_t bits = static_cast<uint64_t>(attribute.integer);
        if (attribute.type->element == hlo::PrimitiveType::F32) {
          float f;
          uint32_t b = static_cast<uint32_t>(bits);
          std::memcpy(&f, &b, 4);
          attribute.number = f;
        } else {
          std::memcpy(&attribute.number, &bits, 8);
        }
      }
    }
    return true;
  }
  case MlirTokenKind::String:
    attribute.kind = Attribute::Kind::String;
    attribute.text = unescapeMlirString(token.text);
    consume();
    return parseOptionalTypeSuffix(*this, attribute);
  case MlirTokenKind::SymbolRef:
    attribute.kind = Attribute::Kind::Symbol;
    attribute.text = token.text[1] == '"' ? unescapeMlirString(token.text.drop_front())
                                          : token.text.drop_front().str();
    consume();
    return true;
  case MlirTokenKind::LSquare:
    consume();
    attribute.kind = Attribute::Kind::Array;
    if (!tok().is(MlirTokenKind::RSquare)) {
      do {
        attribute.elements.emplace_back();
        if (!parseAttribute(attribute.elements.back(), depth + 1))
          return false;
      } while (consumeIf(MlirTokenKind::Comma));
    }
    return expect(MlirTokenKind::RSquare, "']' to end the array");
  case MlirTokenKind::LBrace:
    attribute.kind = Attribute::Kind::Dictionary;
    attribute.fields = std::make_shared<AttributeList>();
    return parseAttributeDictionary(*attribute.fields, depth + 1);
  case MlirTokenKind::HashId: {
    llvm::StringRef name = token.text.drop_front();
    consume();
    attribute.name = name.str();
    if (name == "stablehlo" || name == "chlo" || name == "mhlo") {
      // #stablehlo<comparison_direction LT>
      if (!expect(MlirTokenKind::Less, "'<' after '#" + name + "'") ||
          !tok().is(MlirTokenKind::Identifier))
        return failHere("expected an enum kind");
      attribute.kind = Attribute::Kind::Enum;
      attribute.name = tok().text.str();
      consume();
      if (!tok().is(MlirTokenKind::Identifier))
        return failHere("expected an enum value");
      attribute.text = tok().text.str();
      consume();
      return expect(MlirTokenKind::Greater, "'>' after the enum value");
    }
    if (tok().is(MlirTokenKind::Less)) {
      if (name.starts_with("stablehlo.") || name.starts_with("chlo.") || name.starts_with("mhlo."))
        return parseDialectAttributeBody(*this, attribute, depth);
      // Other dialects' attributes (sharding, sdy, ...) carry nothing Mote needs.
      consume();
      llvm::StringRef body;
      if (!skipBalanced({MlirTokenKind::Greater}, body))
        return false;
      consume();
      attribute.kind = Attribute::Kind::Opaque;
      attribute.text = ("#" + name + "<" + body + ">").str();
      return true;
    }
    if (const Attribute *aliased = attributeAlias(name)) {
      attribute = *aliased;
      return true;
    }
    attribute.kind = Attribute::Kind::Opaque;
    attribute.text = token.text.str();
    return true;
  }
  case MlirTokenKind::Identifier:
    break;
  default:
    if (atType())
      break;
    return failHere("expected an attribute value");
  }
  if (token.isKeyword("true") || token.isKeyword("false")) {
    attribute.kind = Attribute::Kind::Bool;
    attribute.boolean = token.text == "true";
    consume();
    return parseOptionalTypeSuffix(*this, attribute);
  }
  if (token.isKeyword("unit")) {
    attribute.kind = Attribute::Kind::Unit;
    consume();
    return true;
  }
  if (token.isKeyword("dense") || token.isKeyword("dense_resource")) {
    consume();
    attribute.kind = Attribute::Kind::Dense;
    attribute.dense = std::make_shared<DenseBody>();
    if (token.text == "dense_resource") {
      if (!expect(MlirTokenKind::Less, "'<' after 'dense_resource'"))
        return false;
      if (!tok().is(MlirTokenKind::Identifier))
        return failHere("expected a resource name");
      attribute.dense->resourceName = tok().text.str();
      consume();
      if (!expect(MlirTokenKind::Greater, "'>' after the resource name"))
        return false;
    } else if (!parseDenseBody(*attribute.dense)) {
      return false;
    }
    if (!tok().is(MlirTokenKind::Colon))
      return failHere("expected ': type' after the dense literal");
    return parseOptionalTypeSuffix(*this, attribute);
  }
  if (token.isKeyword("array")) {
    consume();
    attribute.kind = Attribute::Kind::DenseArray;
    if (!expect(MlirTokenKind::Less, "'<' after 'array'"))
      return false;
    attribute.type = std::make_shared<Type>();
    if (!parseType(*attribute.type, depth + 1))
      return false;
    if (consumeIf(MlirTokenKind::Colon)) {
      do {
        attribute.elements.emplace_back();
        Attribute &element = attribute.elements.back();
        element.location = tok().location();
        if (tok().isKeyword("true") || tok().isKeyword("false")) {
          element.kind = Attribute::Kind::Bool;
          element.boolean = tok().text == "true";
          element.integer = element.boolean;
          consume();
          continue;
        }
        bool negative = consumeIf(MlirTokenKind::Minus);
        if (tok().is(MlirTokenKind::Float)) {
          element.kind = Attribute::Kind::Float;
          if (!parseFloatLiteral(tok().text, element.number))
            return failHere("invalid number");
          if (negative)
            element.number = -element.number;
          consume();
          continue;
        }
        uint64_t magnitude;
        if (!tok().is(MlirTokenKind::Integer) || tok().text.getAsInteger(0, magnitude))
          return failHere("expected an array element");
        element.kind = Attribute::Kind::Integer;
        element.integer =
            negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
        consume();
      } while (consumeIf(MlirTokenKind::Comma));
    }
    return expect(MlirTokenKind::Greater, "'>' to end the array");
  }
  if (token.isKeyword("loc") || token.isKeyword("affine_map") || token.isKeyword("opaque") ||
      token.isKeyword("sparse") || token.isKeyword("distinct")) {
    consume();
    llvm::StringRef body;
    MlirTokenKind open = tok().kind;
    if (open != MlirTokenKind::LParen && open != MlirTokenKind::Less)
      return failHere("expected '(' or '<'");
    consume();
    if (!skipBalanced(
            {open == MlirTokenKind::LParen ? MlirTokenKind::RParen : MlirTokenKind::Greater}, body))
      return false;
    consume();
    attribute.kind = Attribute::Kind::Opaque;
    attribute.text = (token.text + "(" + body + ")").str();
    return true;
  }
  if (atType()) {
    attribute.kind = Attribute::Kind::TypeValue;
    attribute.type = std::make_shared<Type>();
    return parseType(*attribute.type, depth + 1);
  }
  // A bare word: an enum value in a pretty form (DEFAULT, FLOAT) or a keyword.
  attribute.kind = Attribute::Kind::Opaque;
  attribute.text = token.text.str();
  consume();
  return true;
}

} // namespace mote::stablehlo::detail
