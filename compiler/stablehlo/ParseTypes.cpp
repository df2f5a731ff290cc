//===- ParseTypes.cpp - MLIR text: builtin, stablehlo and quant types -----===//

#include "stablehlo/MlirParser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace mote::stablehlo::detail {

using hlo::PrimitiveType;

/// The element type a builtin scalar type name stands for. Signless integers
/// are signed, as StableHLO reads them; `index` is 64 bits.
static std::optional<PrimitiveType> scalarTypeNamed(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PrimitiveType>>(name)
      .Case("i1", PrimitiveType::Pred)
      .Cases("i2", "si2", PrimitiveType::S2)
      .Cases("i4", "si4", PrimitiveType::S4)
      .Cases("i8", "si8", PrimitiveType::S8)
      .Cases("i16", "si16", PrimitiveType::S16)
      .Cases("i32", "si32", PrimitiveType::S32)
      .Cases("i64", "si64", "index", PrimitiveType::S64)
      .Case("ui2", PrimitiveType::U2)
      .Case("ui4", PrimitiveType::U4)
      .Case("ui8", PrimitiveType::U8)
      .Case("ui16", PrimitiveType::U16)
      .Case("ui32", PrimitiveType::U32)
      .Case("ui64", PrimitiveType::U64)
      .Case("f16", PrimitiveType::F16)
      .Case("bf16", PrimitiveType::BF16)
      .Case("f32", PrimitiveType::F32)
      .Case("f64", PrimitiveType::F64)
      .Case("f4E2M1FN", PrimitiveType::F4E2M1FN)
      .Case("f6E2M3FN", PrimitiveType::F6E2M3FN)
      .Case("f6E3M2FN", PrimitiveType::F6E3M2FN)
      .Case("f8E5M2", PrimitiveType::F8E5M2)
      .Case("f8E4M3", PrimitiveType::F8E4M3)
      .Case("f8E4M3FN", PrimitiveType::F8E4M3FN)
      .Case("f8E4M3B11FNUZ", PrimitiveType::F8E4M3B11FNUZ)
      .Case("f8E5M2FNUZ", PrimitiveType::F8E5M2FNUZ)
      .Case("f8E4M3FNUZ", PrimitiveType::F8E4M3FNUZ)
      .Case("f8E3M4", PrimitiveType::F8E3M4)
      .Case("f8E8M0FNU", PrimitiveType::F8E8M0FNU)
      .Default(std::nullopt);
}

bool MlirParser::atType() const {
  const MlirToken &token = tok();
  if (token.is(MlirTokenKind::BangId) || token.is(MlirTokenKind::LParen))
    return true;
  if (!token.is(MlirTokenKind::Identifier))
    return false;
  return token.text == "tensor" || token.text == "tuple" || token.text == "complex" ||
         token.text == "none" || scalarTypeNamed(token.text).has_value();
}

bool MlirParser::parseTypeList(std::vector<Type> &types, int depth) {
  do {
    types.emplace_back();
    if (!parseType(types.back(), depth))
      return false;
  } while (consumeIf(MlirTokenKind::Comma));
  return true;
}

/// `!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25}>` after `!quant.uniform`.
static bool parseQuantizedBody(MlirParser &parser, QuantizedType &quantized) {
  if (!parser.expect(MlirTokenKind::Less, "'<' after '!quant.uniform'"))
    return false;
  std::optional<PrimitiveType> storage;
  if (parser.tok().is(MlirTokenKind::Identifier))
    storage = scalarTypeNamed(parser.tok().text);
  if (!storage || !hlo::isInteger(*storage))
    return parser.failHere("expected an integer storage type");
  quantized.storage = *storage;
  int bits = hlo::bitWidth(*storage);
  if (hlo::isSignedInteger(*storage)) {
    // i64 storage's bounds are int64's own (1 << 63 does not fit).
    quantized.storageMin = bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    quantized.storageMax = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
  } else {
    quantized.storageMin = 0;
    quantized.storageMax = bits >= 63 ? INT64_MAX : (int64_t(1) << bits) - 1;
  }
  parser.consume();
  if (parser.consumeIf(MlirTokenKind::Less)) {
    if (!parser.parseSignedInteger(quantized.storageMin, "the storage minimum") ||
        !parser.expect(MlirTokenKind::Colon, "':' between the storage bounds") ||
        !parser.parseSignedInteger(quantized.storageMax, "the storage maximum") ||
        !parser.expect(MlirTokenKind::Greater, "'>' after the storage bounds"))
      return false;
  }
  if (!parser.expect(MlirTokenKind::Colon, "':' after the storage type"))
    return false;
  std::optional<PrimitiveType> expressed;
  if (parser.tok().is(MlirTokenKind::Identifier))
    expressed = scalarTypeNamed(parser.tok().text);
  if (!expressed || !hlo::isFloatingPoint(*expressed))
    return parser.failHere("expected a floating-point expressed type");
  quantized.expressed = *expressed;
  parser.consume();
  if (parser.consumeIf(MlirTokenKind::Colon)) {
    int64_t axis;
    if (!parser.parseSignedInteger(axis, "the quantized dimension"))
      return false;
    quantized.axis = axis;
  }
  if (!parser.expect(MlirTokenKind::Comma, "',' before the scale"))
    return false;
  bool perAxis = parser.consumeIf(MlirTokenKind::LBrace);
  do {
    bool negative = parser.consumeIf(MlirTokenKind::Minus);
    if (!parser.tok().is(MlirTokenKind::Float) && !parser.tok().is(MlirTokenKind::Integer))
      return parser.failHere("expected a scale");
    double scale;
    if (!parseFloatLiteral(parser.tok().text, scale))
      return parser.failHere("expected a scale");
    parser.consume();
    quantized.scales.push_back(negative ? -scale : scale);
    int64_t zeroPoint = 0;
    if (parser.consumeIf(MlirTokenKind::Colon) &&
        !parser.parseSignedInteger(zeroPoint, "the zero point"))
      return false;
    quantized.zeroPoints.push_back(zeroPoint);
  } while (perAxis && parser.consumeIf(MlirTokenKind::Comma));
  if (perAxis && !parser.expect(MlirTokenKind::RBrace, "'}' after the scales"))
    return false;
  if (perAxis != quantized.axis.has_value())
    return parser.failHere("per-axis scales need a quantized dimension and the other way round");
  return parser.expect(MlirTokenKind::Greater, "'>' to end the quantized type");
}

bool MlirParser::parseElementType(Type &type, int depth) {
  if (tok().is(MlirTokenKind::Identifier)) {
    if (tok().text == "complex") {
      consume();
      Type part;
      if (!expect(MlirTokenKind::Less, "'<' after 'complex'") || !parseElementType(part, depth) ||
          !expect(MlirTokenKind::Greater, "'>' after the complex part type"))
        return false;
      if (part.element == PrimitiveType::F32)
        type.element = PrimitiveType::C64;
      else if (part.element == PrimitiveType::F64)
        type.element = PrimitiveType::C128;
      else
        return failUnsupported(tok().location(),
                               "only complex<f32> and complex<f64> are supported");
      type.kind = Type::Kind::Scalar;
      return true;
    }
    if (std::optional<PrimitiveType> scalar = scalarTypeNamed(tok().text)) {
      type.kind = Type::Kind::Scalar;
      type.element = *scalar;
      consume();
      return true;
    }
    // f8E5M3FNU, tf32, ...: element types MLIR has and Mote does not.
    if (tok().text.size() > 2 && tok().text[0] == 'f' && llvm::isDigit(tok().text[1]))
      return failUnsupported(tok().location(),
                             "element type '" + tok().text + "' is not supported");
    return failHere("unknown element type '" + tok().text + "'");
  }
  if (tok().is(MlirTokenKind::BangId)) {
    Type aliased;
    if (!parseType(aliased, depth + 1))
      return false;
    if (aliased.kind != Type::Kind::Scalar)
      return failHere("expected an element type");
    type = std::move(aliased);
    return true;
  }
  return failHere("expected an element type");
}

bool MlirParser::parseType(Type &type, int depth) {
  if (depth > kMaxNesting)
    return failHere("types nested too deeply");
  const MlirToken token = tok();
  if (token.is(MlirTokenKind::LParen)) {
    type.kind = Type::Kind::Function;
    return parseFunctionType(type.elements, type.results, depth + 1);
  }
  if (token.is(MlirTokenKind::BangId)) {
    llvm::StringRef name = token.text.drop_front();
    consume();
    if (name == "stablehlo.token") {
      type.kind = Type::Kind::Token;
      return true;
    }
    if (name == "quant.uniform") {
      auto quantized = std::make_shared<QuantizedType>();
      if (!parseQuantizedBody(*this, *quantized))
        return false;
      type.kind = Type::Kind::Scalar;
      type.element = quantized->storage;
      type.quantized = std::move(quantized);
      return true;
    }
    if (const Type *aliased = typeAlias(name)) {
      type = *aliased;
      return true;
    }
    if (name.contains('.') && tok().is(MlirTokenKind::Less)) {
      llvm::StringRef body;
      consume();
      if (!skipBalanced({MlirTokenKind::Greater}, body))
        return false;
      consume();
    }
    type.kind = Type::Kind::Other;
    type.spelling = token.text.str();
    return true;
  }
  if (!token.is(MlirTokenKind::Identifier))
    return failHere("expected a type");
  if (token.text == "tensor") {
    consume();
    type.kind = Type::Kind::Tensor;
    if (!tok().is(MlirTokenKind::Less))
      return failHere("expected '<' after 'tensor'");
    consume();
    if (tok().is(MlirTokenKind::Star))
      return failUnsupported(tok().location(), "unranked tensors are not supported");
    int64_t size;
    bool dynamic;
    while (lexer().lexDimension(size, dynamic)) {
      type.dims.push_back(dynamic ? Type::kDynamic : size);
      if (type.dims.size() > 64)
        return failHere("too many dimensions");
    }
    Type element;
    if (!parseElementType(element, depth + 1))
      return false;
    type.element = element.element;
    type.quantized = std::move(element.quantized);
    if (consumeIf(MlirTokenKind::Comma)) {
      // `#stablehlo.bounds<4, ?>` bounds dynamic dimensions; other encodings
      // (sparsity, layouts) do not change single-device values.
      if (tok().isKeyword("#stablehlo.bounds") || tok().text == "#stablehlo.bounds") {
        consume();
        if (!expect(MlirTokenKind::Less, "'<' after '#stablehlo.bounds'"))
          return false;
        do {
          if (consumeIf(MlirTokenKind::Question)) {
            type.bounds.push_back(Type::kDynamic);
            continue;
          }
          int64_t bound;
          if (!parseSignedInteger(bound, "a bound"))
            return false;
          type.bounds.push_back(bound);
        } while (consumeIf(MlirTokenKind::Comma));
        if (!expect(MlirTokenKind::Greater, "'>' after the bounds"))
          return false;
      } else {
        Attribute encoding;
        if (!parseAttribute(encoding, depth + 1))
          return false;
      }
    }
    return expect(MlirTokenKind::Greater, "'>' to end the tensor type");
  }
  if (token.text == "tuple") {
    consume();
    type.kind = Type::Kind::Tuple;
    if (!expect(MlirTokenKind::Less, "'<' after 'tuple'"))
      return false;
    if (!tok().is(MlirTokenKind::Greater)) {
      do {
        type.elements.emplace_back();
        if (!parseType(type.elements.back(), depth + 1))
          return false;
      } while (consumeIf(MlirTokenKind::Comma));
    }
    return expect(MlirTokenKind::Greater, "'>' to end the tuple type");
  }
  if (token.text == "none") {
    consume();
    type.kind = Type::Kind::Other;
    type.spelling = "none";
    return true;
  }
  return parseElementType(type, depth + 1);
}

} // namespace mote::stablehlo::detail
