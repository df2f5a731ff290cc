//===- ParseDense.cpp - MLIR text: dense literals and resource blobs ------===//

#include "stablehlo/MlirParser.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::stablehlo::detail {

/// The bytes of `"0x0A1B..."`, or false with `error` set.
static bool decodeHexString(llvm::StringRef quoted, std::string &bytes) {
  llvm::StringRef hex = quoted;
  if (hex.size() >= 2 && hex.front() == '"')
    hex = hex.drop_front().drop_back();
  if (!hex.consume_front("0x") && !hex.consume_front("0X"))
    return false;
  if (hex.size() % 2 != 0)
    return false;
  bytes.resize(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    char high = hex[2 * i], low = hex[2 * i + 1];
    if (!llvm::isHexDigit(high) || !llvm::isHexDigit(low))
      return false;
    bytes[i] = static_cast<char>(llvm::hexDigitValue(high) * 16 + llvm::hexDigitValue(low));
  }
  return true;
}

/// One scalar of a dense literal: 3, -2.5, 0x7FC00000, true, (1.0, -2.0).
static bool parseDenseScalar(MlirParser &parser, DenseBody::Scalar &scalar) {
  using Kind = DenseBody::Scalar::Kind;
  scalar.location = parser.tok().location();
  if (parser.tok().isKeyword("true") || parser.tok().isKeyword("false")) {
    scalar.kind = Kind::Bool;
    scalar.value = parser.tok().text == "true";
    scalar.magnitude = scalar.value != 0;
    parser.consume();
    return true;
  }
  if (parser.tok().is(MlirTokenKind::LParen)) {
    parser.consume();
    DenseBody::Scalar real, imag;
    if (!parseDenseScalar(parser, real) ||
        !parser.expect(MlirTokenKind::Comma, "',' between the real and imaginary parts") ||
        !parseDenseScalar(parser, imag) ||
        !parser.expect(MlirTokenKind::RParen, "')' after the imaginary part"))
      return false;
    auto value = [](const DenseBody::Scalar &part) {
      return part.kind == Kind::Integer ? (part.negative ? -static_cast<double>(part.magnitude)
                                                         : static_cast<double>(part.magnitude))
                                        : part.value;
    };
    if (real.kind == Kind::Complex || imag.kind == Kind::Complex || real.kind == Kind::Bool ||
        imag.kind == Kind::Bool)
      return parser.fail(scalar.location, "expected a complex number as (real, imaginary)");
    scalar.kind = Kind::Complex;
    scalar.value = value(real);
    scalar.imag = value(imag);
    if (real.kind == Kind::HexBits)
      scalar.realBits = real.magnitude;
    if (imag.kind == Kind::HexBits)
      scalar.imagBits = imag.magnitude;
    return true;
  }
  scalar.negative = parser.consumeIf(MlirTokenKind::Minus);
  const MlirToken &token = parser.tok();
  if (token.is(MlirTokenKind::Float)) {
    scalar.kind = Kind::Float;
    if (!parseFloatLiteral(token.text, scalar.value))
      return parser.failHere("invalid number");
    if (scalar.negative)
      scalar.value = -scalar.value;
    parser.consume();
    return true;
  }
  if (token.is(MlirTokenKind::Integer)) {
    bool hex = token.text.starts_with("0x") || token.text.starts_with("0X");
    if (token.text.getAsInteger(0, scalar.magnitude))
      return parser.failHere("integer literal out of range");
    scalar.kind = hex ? Kind::HexBits : Kind::Integer;
    if (hex && scalar.negative)
      return parser.failHere("a bit pattern cannot be negative");
    scalar.value = scalar.negative ? -static_cast<double>(scalar.magnitude)
                                   : static_cast<double>(scalar.magnitude);
    parser.consume();
    return true;
  }
  return parser.failHere("expected an element value");
}

/// `[...]` at `level` of the nesting; lengths must agree at every level.
static bool parseDenseList(MlirParser &parser, DenseBody &body, size_t level, int depth) {
  if (depth > kMaxNesting)
    return parser.failHere("dense literal nested too deeply");
  llvm::SMLoc start = parser.tok().location();
  parser.consume(); // '['
  int64_t count = 0;
  if (!parser.tok().is(MlirTokenKind::RSquare)) {
    do {
      if (parser.tok().is(MlirTokenKind::LSquare)) {
        if (!parseDenseList(parser, body, level + 1, depth + 1))
          return false;
      } else {
        if (body.nesting.size() > level + 1)
          return parser.failHere("expected '[': the literal is nested deeper elsewhere");
        body.scalars.emplace_back();
        if (!parseDenseScalar(parser, body.scalars.back()))
          return false;
      }
      ++count;
    } while (parser.consumeIf(MlirTokenKind::Comma));
  }
  if (!parser.expect(MlirTokenKind::RSquare, "']' to end the list"))
    return false;
  if (body.nesting.size() <= level)
    body.nesting.resize(level + 1, -1);
  if (body.nesting[level] == -1)
    body.nesting[level] = count;
  else if (body.nesting[level] != count)
    return parser.fail(start, "this list has " + llvm::Twine(count) + " elements, its siblings " +
                                  llvm::Twine(body.nesting[level]));
  return true;
}

bool MlirParser::parseDenseBody(DenseBody &body) {
  if (!expect(MlirTokenKind::Less, "'<' after 'dense'"))
    return false;
  if (consumeIf(MlirTokenKind::Greater)) {
    body.empty = true;
    return true;
  }
  if (tok().is(MlirTokenKind::String)) {
    std::string bytes;
    if (!decodeHexString(tok().text, bytes))
      return failHere("expected a hex string \"0x...\" with an even number of digits");
    body.hexBytes = std::move(bytes);
    consume();
  } else if (tok().is(MlirTokenKind::LSquare)) {
    if (!parseDenseList(*this, body, 0, 0))
      return false;
    for (int64_t &length : body.nesting)
      if (length < 0)
        length = 0;
  } else {
    body.scalars.emplace_back();
    if (!parseDenseScalar(*this, body.scalars.back()))
      return false;
  }
  return expect(MlirTokenKind::Greater, "'>' to end the dense literal");
}

/// `{-# dialect_resources: { builtin: { name: "0x04000000..." } } #-}`. Each
/// blob starts with its alignment as a 32-bit little-endian word.
bool MlirParser::parseResourceSection(ModuleSyntax &module) {
  consume(); // {-#
  while (!tok().is(MlirTokenKind::FileMetadataEnd)) {
    if (!tok().is(MlirTokenKind::Identifier))
      return failHere("expected a resource section name");
    bool dialectResources = tok().text == "dialect_resources";
    consume();
    if (!expect(MlirTokenKind::Colon, "':' after the section name") ||
        !expect(MlirTokenKind::LBrace, "'{' to start the section"))
      return false;
    while (!tok().is(MlirTokenKind::RBrace)) {
      if (!tok().is(MlirTokenKind::Identifier))
        return failHere("expected a dialect name");
      consume();
      if (!expect(MlirTokenKind::Colon, "':' after the dialect name") ||
          !expect(MlirTokenKind::LBrace, "'{' to start the dialect's resources"))
        return false;
      while (!tok().is(MlirTokenKind::RBrace)) {
        if (!tok().is(MlirTokenKind::Identifier) && !tok().is(MlirTokenKind::String))
          return failHere("expected a resource name");
        std::string name =
            tok().is(MlirTokenKind::String) ? unescapeMlirString(tok().text) : tok().text.str();
        consume();
        if (!expect(MlirTokenKind::Colon, "':' after the resource name"))
          return false;
        if (tok().is(MlirTokenKind::String)) {
          std::string bytes;
          if (dialectResources) {
            if (!decodeHexString(tok().text, bytes) || bytes.size() < 4)
              return failHere("expected a hex blob \"0x...\" starting with its alignment");
            module.resources.emplace_back(std::move(name), bytes.substr(4));
          }
          consume();
        } else {
          Attribute ignored;
          if (!parseAttribute(ignored))
            return false;
        }
        if (!consumeIf(MlirTokenKind::Comma))
          break;
      }
      if (!expect(MlirTokenKind::RBrace, "'}' to end the dialect's resources"))
        return false;
      if (!consumeIf(MlirTokenKind::Comma))
        break;
    }
    if (!expect(MlirTokenKind::RBrace, "'}' to end the section"))
      return false;
    if (!consumeIf(MlirTokenKind::Comma))
      break;
  }
  return expect(MlirTokenKind::FileMetadataEnd, "'#-}' to end the resource section");
}

} // namespace mote::stablehlo::detail
