//===- ParseLiteral.cpp - HLO text parser: shapes, numbers, literals ------===//

#include "hlo/Float8.h"
#include "hlo/ParserImpl.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace mote::hlo::detail {

// Shapes ---------------------------------------------------------------------------

/// Arrays with more elements than this are surely a mistake; the bound keeps
/// element counts (and byte sizes) far from int64 overflow in later stages.
constexpr int64_t kMaxElements = int64_t(1) << 48;

bool HloParser::atShape() const {
  const Token &token = tok();
  if (token.is(TokenKind::LParen))
    return true;
  if (!token.is(TokenKind::Identifier))
    return false;
  const char *after = token.end();
  if (after == lexer_.buffer().end() || *after != '[')
    return false;
  std::optional<PrimitiveType> type = parsePrimitiveType(token.text);
  return type && *type != PrimitiveType::Tuple;
}

bool HloParser::atUnknownElementType() const {
  const Token &token = tok();
  const char *after = token.end();
  return token.is(TokenKind::Identifier) && after != lexer_.buffer().end() && *after == '[' &&
         !atShape();
}

bool HloParser::parseShape(Shape &shape, int depth) {
  if (depth > kMaxNesting)
    return failHere("tuple shapes are nested too deeply");
  if (consumeIf(TokenKind::LParen)) {
    std::vector<Shape> elements;
    if (!consumeIf(TokenKind::RParen)) {
      while (true) {
        elements.emplace_back();
        if (!parseShape(elements.back(), depth + 1))
          return false;
        if (consumeIf(TokenKind::Comma))
          continue;
        if (!expect(TokenKind::RParen, "expected ',' or ')' in the tuple shape"))
          return false;
        break;
      }
    }
    shape = Shape::tuple(std::move(elements));
    return true;
  }
  if (!tok().is(TokenKind::Identifier))
    return failHere("expected a shape");
  std::optional<PrimitiveType> type = parsePrimitiveType(tok().text);
  if (!type || *type == PrimitiveType::Tuple)
    return failHere("expected a shape, found '" + tok().text + "' (not an element type)");
  Token typeToken = tok();
  consume();
  if (!expect(TokenKind::LSquare, "expected '[' after element type '" + typeToken.text + "'"))
    return false;

  llvm::SmallVector<int64_t, 4> dims;
  llvm::SmallVector<bool, 4> dynamic;
  int64_t elements = 1;
  if (!tok().is(TokenKind::RSquare)) {
    while (true) {
      bool isDynamic = consumeIf(TokenKind::LessEqual);
      if (!isDynamic && tok().is(TokenKind::Punct) && tok().text == "?") {
        consume();
        dims.push_back(Shape::kUnboundedSize);
        dynamic.push_back(true);
        if (consumeIf(TokenKind::Comma))
          continue;
        if (!tok().is(TokenKind::RSquare))
          return failHere("expected ']' after dimensions");
        break;
      }
      llvm::SMLoc location = tok().location();
      int64_t size;
      if (!parseInt64(size, "a dimension size"))
        return false;
      if (size < 0)
        return fail(location, "dimension size must not be negative");
      if (dims.size() >= size_t(kMaxNesting))
        return fail(location, "shape has too many dimensions");
      if (size != 0 && elements > kMaxElements / size)
        return fail(location, "shape has too many elements");
      elements = size == 0 ? 0 : elements * size;
      dims.push_back(size);
      dynamic.push_back(isDynamic);
      if (consumeIf(TokenKind::Comma))
        continue;
      if (!tok().is(TokenKind::RSquare))
        return failHere("expected ']' after dimensions");
      break;
    }
  }
  const char *afterDims = tok().end();
  consume(); // ']'

  if (*type == PrimitiveType::Token) {
    if (!dims.empty())
      return fail(typeToken.location(), "a token shape has no dimensions");
    shape = Shape::token();
    return true;
  }
  shape = Shape::array(*type, dims);
  for (size_t i = 0; i < dynamic.size(); ++i)
    if (dynamic[i])
      shape.setDynamicDim(int64_t(i), true);

  // A '{' right after ']' (or one holding a layout) is a layout; otherwise it
  // may open a computation body after `-> f32[]`.
  if (!tok().is(TokenKind::LBrace))
    return true;
  if (tok().text.data() != afterDims) {
    Token after = lexer_.peek();
    if (!after.is(TokenKind::Int) && !after.is(TokenKind::Colon))
      return true;
  }
  llvm::SMLoc layoutLocation = tok().location();
  consume(); // '{'
  Layout layout;
  while (tok().is(TokenKind::Int)) {
    int64_t dimension;
    if (!parseInt64(dimension, "a layout dimension"))
      return false;
    layout.minorToMajor.push_back(dimension);
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (tok().is(TokenKind::Colon))
    layout.suffix = lexer_.lexLayoutSuffix().str();
  if (!expect(TokenKind::RBrace, "expected '}' after the layout"))
    return false;
  size_t rank = dims.size();
  if (layout.minorToMajor.size() != rank)
    return fail(layoutLocation, "layout lists " + llvm::Twine(layout.minorToMajor.size()) +
                                    " dimensions but the shape has " + llvm::Twine(rank));
  llvm::SmallVector<bool, 4> seen(rank, false);
  for (int64_t dimension : layout.minorToMajor) {
    if (dimension < 0 || dimension >= int64_t(rank) || seen[dimension])
      return fail(layoutLocation, "layout is not a permutation of the dimensions 0.." +
                                      llvm::Twine(int64_t(rank) - 1));
    seen[dimension] = true;
  }
  shape.setLayout(std::move(layout));
  return true;
}

bool HloParser::parseProgramShape(ProgramShape &programShape) {
  if (!expect(TokenKind::LParen, "expected '(' to start the parameter list"))
    return false;
  if (!consumeIf(TokenKind::RParen)) {
    while (true) {
      std::string name;
      if ((tok().is(TokenKind::Identifier) || tok().is(TokenKind::PercentName)) && !atShape()) {
        name = tok().text.ltrim('%').str();
        consume();
        if (!expect(TokenKind::Colon, "expected ':' after parameter name '" + name + "'"))
          return false;
      }
      programShape.parameters.emplace_back();
      if (!parseShape(programShape.parameters.back()))
        return false;
      programShape.parameterNames.push_back(std::move(name));
      if (consumeIf(TokenKind::Comma))
        continue;
      if (!expect(TokenKind::RParen, "expected ',' or ')' in the parameter list"))
        return false;
      break;
    }
  }
  if (!expect(TokenKind::Arrow, "expected '->' after the parameter list"))
    return false;
  return parseShape(programShape.result);
}

bool HloParser::parseStandaloneShape(Shape &shape) {
  return parseShape(shape) && expect(TokenKind::Eof, "unexpected text after the shape");
}

// Numbers ----------------------------------------------------------------------------

bool HloParser::parseInt64(int64_t &value, const llvm::Twine &what) {
  if (!tok().is(TokenKind::Int))
    return failHere("expected an integer for " + what);
  if (tok().text.getAsInteger(10, value))
    return failHere("integer " + tok().text + " is out of range");
  consume();
  return true;
}

/// strtod/strtof need a terminated copy of the token.
template <typename Convert> static auto convertNumber(llvm::StringRef text, Convert convert) {
  char small[64];
  if (text.size() < sizeof small) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
    return convert(small);
  }
  std::string copy = text.str();
  return convert(copy.c_str());
}

static double toDouble(llvm::StringRef text) {
  return convertNumber(text, [](const char *s) { return std::strtod(s, nullptr); });
}
static float toFloat(llvm::StringRef text) {
  return convertNumber(text, [](const char *s) { return std::strtof(s, nullptr); });
}

namespace {
/// A floating-point literal element before it is rounded to its type.
struct FloatText {
  enum class Kind { Number, Infinity, NaN } kind = Kind::Number;
  bool negative = false;
  std::optional<uint64_t> payload; ///< nan(0x...)
  llvm::StringRef number;          ///< the digits, for Kind::Number
};
} // namespace

/// Reads 1, -2.5e3, inf, -inf, nan, -nan, nan(0x7f).
static bool readFloat(HloParser &p, FloatText &value) {
  const Token &token = p.tok();
  if (token.is(TokenKind::Int) ||
      (token.is(TokenKind::Float) && !token.text.contains("inf") && !token.text.contains("nan"))) {
    value.kind = FloatText::Kind::Number;
    value.number = token.text;
    p.consume();
    return true;
  }
  if (!token.is(TokenKind::Float) && !token.isIdentifier("inf") && !token.isIdentifier("nan"))
    return p.failHere("expected a floating-point number, inf or nan");
  llvm::StringRef text = token.text;
  value.negative = text.consume_front("-");
  if (text.consume_front("inf")) {
    value.kind = FloatText::Kind::Infinity;
  } else {
    text.consume_front("nan");
    value.kind = FloatText::Kind::NaN;
    if (text.consume_front("(0x") || text.consume_front("(0X")) {
      uint64_t payload;
      if (text.drop_back().getAsInteger(16, payload))
        return p.failHere("NaN payload is too large");
      value.payload = payload;
    }
  }
  p.consume();
  return true;
}

/// The bits of a NaN with `mantissaBits` of payload; the default payload is
/// the quiet bit alone.
static bool nanBits(HloParser &p, const FloatText &value, llvm::SMLoc location, int exponentBits,
                    int mantissaBits, uint64_t &bits) {
  uint64_t mantissaMask = (uint64_t(1) << mantissaBits) - 1;
  uint64_t payload = value.payload.value_or(uint64_t(1) << (mantissaBits - 1));
  if (payload == 0 || payload > mantissaMask)
    return p.fail(location,
                  "NaN payload does not fit in " + llvm::Twine(mantissaBits) + " mantissa bits");
  bits = (uint64_t(value.negative) << (exponentBits + mantissaBits)) |
         (((uint64_t(1) << exponentBits) - 1) << mantissaBits) | payload;
  return true;
}

bool HloParser::parseDouble(double &value, const llvm::Twine &what) {
  FloatText text;
  if (!tok().is(TokenKind::Int) && !tok().is(TokenKind::Float) && !tok().isIdentifier("inf") &&
      !tok().isIdentifier("nan"))
    return failHere("expected a number for " + what);
  if (!readFloat(*this, text))
    return false;
  if (text.kind == FloatText::Kind::Number)
    value = toDouble(text.number);
  else if (text.kind == FloatText::Kind::Infinity)
    value = text.negative ? -INFINITY : INFINITY;
  else
    value = std::nan("");
  return true;
}

// Literals -----------------------------------------------------------------------------

namespace {
/// Parses the elements of one array literal.
class ElementParser {
public:
  ElementParser(HloParser &parser, Literal &literal)
      : p(parser), literal(literal), type(literal.shape().elementType()) {}

  bool parseElement(int64_t linear);
  bool parseArray(int64_t dimension, int64_t &linear, int depth);

private:
  bool parseInteger(int64_t linear);
  bool parseFloat(int64_t linear);
  bool parseComplex(int64_t linear);
  template <typename T> bool parseComponent(T &value);

  HloParser &p;
  Literal &literal;
  PrimitiveType type;
};
} // namespace

bool ElementParser::parseInteger(int64_t linear) {
  const Token &token = p.tok();
  if (!token.is(TokenKind::Int))
    return p.failHere("expected an integer for an element of type " + primitiveTypeName(type));
  llvm::StringRef digits = token.text;
  bool negative = digits.consume_front("-");
  uint64_t magnitude;
  int bits = bitWidth(type);
  bool isSigned = isSignedInteger(type);
  uint64_t limit = isSigned     ? (uint64_t(1) << (bits - 1)) - (negative ? 0 : 1)
                   : bits == 64 ? ~uint64_t(0)
                                : (uint64_t(1) << bits) - 1;
  if (digits.getAsInteger(10, magnitude) || magnitude > limit ||
      (negative && !isSigned && magnitude))
    return p.failHere("value " + token.text + " is out of range for " + primitiveTypeName(type));
  uint64_t value = negative ? ~magnitude + 1 : magnitude; // two's complement
  switch (type) {
  case PrimitiveType::S2:
  case PrimitiveType::S4:
  case PrimitiveType::S8:
    literal.set<int8_t>(linear, static_cast<int8_t>(value));
    break;
  case PrimitiveType::S16:
    literal.set<int16_t>(linear, static_cast<int16_t>(value));
    break;
  case PrimitiveType::S32:
    literal.set<int32_t>(linear, static_cast<int32_t>(value));
    break;
  case PrimitiveType::S64:
    literal.set<int64_t>(linear, static_cast<int64_t>(value));
    break;
  case PrimitiveType::U2:
  case PrimitiveType::U4:
  case PrimitiveType::U8:
    literal.set<uint8_t>(linear, static_cast<uint8_t>(value));
    break;
  case PrimitiveType::U16:
    literal.set<uint16_t>(linear, static_cast<uint16_t>(value));
    break;
  case PrimitiveType::U32:
    literal.set<uint32_t>(linear, static_cast<uint32_t>(value));
    break;
  default:
    literal.set<uint64_t>(linear, value);
    break;
  }
  p.consume();
  return true;
}

bool ElementParser::parseFloat(int64_t linear) {
  llvm::SMLoc location = p.tok().location();
  FloatText text;
  if (!readFloat(p, text))
    return false;
  using Kind = FloatText::Kind;
  uint64_t bits;
  switch (type) {
  case PrimitiveType::F64: {
    if (text.kind == Kind::NaN) {
      if (!nanBits(p, text, location, 11, 52, bits))
        return false;
      double value;
      std::memcpy(&value, &bits, sizeof value);
      literal.set<double>(linear, value);
    } else {
      double value = text.kind == Kind::Infinity ? INFINITY : toDouble(text.number);
      literal.set<double>(linear, text.kind == Kind::Infinity && text.negative ? -value : value);
    }
    return true;
  }
  case PrimitiveType::F32:
  case PrimitiveType::F16:
  case PrimitiveType::BF16: {
    int exponentBits = type == PrimitiveType::F16 ? 5 : 8;
    int mantissaBits = type == PrimitiveType::F32 ? 23 : type == PrimitiveType::F16 ? 10 : 7;
    float value = 0;
    if (text.kind == Kind::NaN) {
      if (!nanBits(p, text, location, exponentBits, mantissaBits, bits))
        return false;
    } else {
      value = text.kind == Kind::Infinity ? (text.negative ? -INFINITY : INFINITY)
                                          : toFloat(text.number);
    }
    if (type == PrimitiveType::F32)
      literal.set<float>(linear, text.kind == Kind::NaN ? floatFromBits(uint32_t(bits)) : value);
    else if (type == PrimitiveType::F16)
      literal.set<Float16>(linear, text.kind == Kind::NaN ? Float16::fromBits(uint16_t(bits))
                                                          : Float16(value));
    else
      literal.set<BFloat16>(linear, text.kind == Kind::NaN ? BFloat16::fromBits(uint16_t(bits))
                                                           : BFloat16(value));
    return true;
  }
  default: { // f8: stored as raw bits
    Float8Format format = float8Format(type);
    uint8_t raw;
    if (text.kind == Kind::NaN) {
      if (format.kind == Float8Format::Kind::Ieee && text.payload) {
        if (!nanBits(p, text, location, format.exponentBits, format.mantissaBits, bits))
          return false;
        raw = uint8_t(bits);
      } else {
        raw = format.defaultNan(text.negative);
      }
    } else {
      double value = text.kind == Kind::Infinity ? INFINITY : toDouble(text.number);
      raw = float8FromDouble(format, text.kind == Kind::Infinity && text.negative ? -value : value);
    }
    literal.bytes()[linear] = raw;
    return true;
  }
  }
}

template <typename T> bool ElementParser::parseComponent(T &value) {
  llvm::SMLoc location = p.tok().location();
  FloatText text;
  if (!readFloat(p, text))
    return false;
  if (text.kind == FloatText::Kind::Number) {
    value = std::is_same_v<T, float> ? T(toFloat(text.number)) : T(toDouble(text.number));
  } else if (text.kind == FloatText::Kind::Infinity) {
    value = text.negative ? -T(INFINITY) : T(INFINITY);
  } else {
    uint64_t bits;
    bool isFloat = std::is_same_v<T, float>;
    if (!nanBits(p, text, location, isFloat ? 8 : 11, isFloat ? 23 : 52, bits))
      return false;
    if constexpr (std::is_same_v<T, float>)
      value = floatFromBits(uint32_t(bits));
    else
      std::memcpy(&value, &bits, sizeof value);
  }
  return true;
}

bool ElementParser::parseComplex(int64_t linear) {
  if (!p.expect(TokenKind::LParen, "expected '(' to start a complex number like (1, 2)"))
    return false;
  if (type == PrimitiveType::C64) {
    float real, imag;
    if (!parseComponent(real) ||
        !p.expect(TokenKind::Comma, "expected ',' between the parts of a complex number") ||
        !parseComponent(imag))
      return false;
    literal.set<std::complex<float>>(linear, {real, imag});
  } else {
    double real, imag;
    if (!parseComponent(real) ||
        !p.expect(TokenKind::Comma, "expected ',' between the parts of a complex number") ||
        !parseComponent(imag))
      return false;
    literal.set<std::complex<double>>(linear, {real, imag});
  }
  return p.expect(TokenKind::RParen, "expected ')' after a complex number");
}

bool ElementParser::parseElement(int64_t linear) {
  if (type == PrimitiveType::Pred) {
    const Token &token = p.tok();
    bool value;
    if (token.isIdentifier("true") || token.text == "1")
      value = true;
    else if (token.isIdentifier("false") || token.text == "0")
      value = false;
    else
      return p.failHere("expected 'true' or 'false' for a pred element");
    literal.set<bool>(linear, value);
    p.consume();
    return true;
  }
  if (isInteger(type))
    return parseInteger(linear);
  if (isComplex(type))
    return parseComplex(linear);
  return parseFloat(linear);
}

bool ElementParser::parseArray(int64_t dimension, int64_t &linear, int depth) {
  const Shape &shape = literal.shape();
  if (!p.expect(TokenKind::LBrace, "expected '{' to start dimension " + llvm::Twine(dimension) +
                                       " of the literal (" + shape.toString(false) + ")"))
    return false;
  int64_t size = shape.dim(dimension);
  bool innermost = dimension + 1 == shape.rank();
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0 && !p.consumeIf(TokenKind::Comma)) {
      if (p.tok().is(TokenKind::RBrace))
        return p.failHere("dimension " + llvm::Twine(dimension) + " of the literal has " +
                          llvm::Twine(i) + " elements but the shape " + shape.toString(false) +
                          " needs " + llvm::Twine(size));
      return p.failHere("expected ',' between literal elements");
    }
    if (innermost ? !parseElement(linear++) : !parseArray(dimension + 1, linear, depth + 1))
      return false;
  }
  if (p.tok().is(TokenKind::Comma))
    return p.failHere("dimension " + llvm::Twine(dimension) + " of the literal has more than " +
                      llvm::Twine(size) + " elements (shape " + shape.toString(false) + ")");
  return p.expect(TokenKind::RBrace, "expected '}' after the literal's elements");
}

bool HloParser::parseLiteral(const Shape &shape, Literal &literal, int depth) {
  if (depth > kMaxNesting)
    return failHere("the literal is nested too deeply");
  if (shape.isTuple()) {
    if (!expect(TokenKind::LParen, "expected '(' to start a tuple literal"))
      return false;
    std::vector<Literal> elements;
    for (size_t i = 0; i < shape.tupleSize(); ++i) {
      if (i > 0 && !expect(TokenKind::Comma, "expected ',' between tuple literal elements (the "
                                             "shape has " +
                                                 llvm::Twine(shape.tupleSize()) + ")"))
        return false;
      elements.emplace_back();
      if (!parseLiteral(shape.tupleElement(i), elements.back(), depth + 1))
        return false;
    }
    if (!expect(TokenKind::RParen, "expected ')' after the tuple literal's " +
                                       llvm::Twine(shape.tupleSize()) + " elements"))
      return false;
    literal = Literal::tuple(std::move(elements));
    return true;
  }
  if (!shape.isArray())
    return failHere("a constant of shape " + shape.toString(false) + " cannot be written");
  // Every element takes at least one character: a larger count cannot be
  // written out, and checking first avoids allocating for it.
  if (shape.elementCount() > lexer_.buffer().end() - tok().text.data())
    return failHere("the literal's shape " + shape.toString(false) +
                    " has more elements than the rest of the text");
  literal = Literal(shape);
  ElementParser elements(*this, literal);
  if (shape.rank() == 0)
    return elements.parseElement(0);
  int64_t linear = 0;
  return elements.parseArray(0, linear, depth);
}

} // namespace mote::hlo::detail
