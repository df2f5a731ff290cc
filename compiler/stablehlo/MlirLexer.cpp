//===- MlirLexer.cpp - Tokens of MLIR text --------------------------------===//

#include "stablehlo/MlirLexer.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <cstring>

namespace mote::stablehlo {

llvm::StringRef tokenKindName(MlirTokenKind kind) {
  switch (kind) {
  case MlirTokenKind::Eof:
    return "end of file";
  case MlirTokenKind::Error:
    return "invalid text";
  case MlirTokenKind::Identifier:
    return "identifier";
  case MlirTokenKind::ValueId:
    return "value name";
  case MlirTokenKind::SymbolRef:
    return "symbol";
  case MlirTokenKind::CaretId:
    return "block name";
  case MlirTokenKind::HashId:
    return "'#' name";
  case MlirTokenKind::BangId:
    return "'!' name";
  case MlirTokenKind::Integer:
    return "integer";
  case MlirTokenKind::Float:
    return "number";
  case MlirTokenKind::String:
    return "string";
  case MlirTokenKind::LParen:
    return "'('";
  case MlirTokenKind::RParen:
    return "')'";
  case MlirTokenKind::LSquare:
    return "'['";
  case MlirTokenKind::RSquare:
    return "']'";
  case MlirTokenKind::LBrace:
    return "'{'";
  case MlirTokenKind::RBrace:
    return "'}'";
  case MlirTokenKind::Less:
    return "'<'";
  case MlirTokenKind::Greater:
    return "'>'";
  case MlirTokenKind::Comma:
    return "','";
  case MlirTokenKind::Colon:
    return "':'";
  case MlirTokenKind::Equal:
    return "'='";
  case MlirTokenKind::Arrow:
    return "'->'";
  case MlirTokenKind::Minus:
    return "'-'";
  case MlirTokenKind::Plus:
    return "'+'";
  case MlirTokenKind::Star:
    return "'*'";
  case MlirTokenKind::Question:
    return "'?'";
  case MlirTokenKind::Hash:
    return "'#'";
  case MlirTokenKind::FileMetadataBegin:
    return "'{-#'";
  case MlirTokenKind::FileMetadataEnd:
    return "'#-}'";
  }
  return "token";
}

static bool isIdStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isBareIdChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.'; }
static bool isSuffixIdChar(char c) { return isBareIdChar(c) || c == '-'; }

void MlirLexer::next() { current_ = lexToken(); }

MlirToken MlirLexer::peek() {
  const char *saved = position_;
  MlirToken savedToken = current_;
  std::string savedError = error_;
  MlirToken following = lexToken();
  position_ = saved;
  current_ = savedToken;
  error_ = std::move(savedError);
  return following;
}

void MlirLexer::resetTo(const char *position) {
  position_ = position;
  next();
}

bool MlirLexer::lexDimension(int64_t &size, bool &dynamic) {
  const char *p = current_.text.data();
  const char *end = text_.end();
  dynamic = false;
  size = 0;
  if (p < end && *p == '?') {
    dynamic = true;
    ++p;
  } else {
    const char *digits = p;
    while (p < end && llvm::isDigit(*p)) {
      if (size > (INT64_MAX - 9) / 10)
        return false;
      size = size * 10 + (*p - '0');
      ++p;
    }
    if (p == digits)
      return false;
  }
  if (p >= end || *p != 'x')
    return false;
  resetTo(p + 1);
  return true;
}

void MlirLexer::skipSpaceAndComments() {
  const char *end = text_.end();
  while (position_ < end) {
    char c = *position_;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++position_;
    } else if (c == '/' && position_ + 1 < end && position_[1] == '/') {
      while (position_ < end && *position_ != '\n')
        ++position_;
    } else {
      return;
    }
  }
}

MlirToken MlirLexer::error(const char *start, std::string message) {
  error_ = std::move(message);
  return {MlirTokenKind::Error, llvm::StringRef(start, std::max<size_t>(1, position_ - start))};
}

MlirToken MlirLexer::lexNumber(const char *start) {
  const char *end = text_.end();
  if (*position_ == '0' && position_ + 1 < end && (position_[1] == 'x' || position_[1] == 'X') &&
      position_ + 2 < end && llvm::isHexDigit(position_[2])) {
    position_ += 2;
    while (position_ < end && llvm::isHexDigit(*position_))
      ++position_;
    return make(MlirTokenKind::Integer, start);
  }
  while (position_ < end && llvm::isDigit(*position_))
    ++position_;
  bool isFloat = false;
  if (position_ < end && *position_ == '.') {
    isFloat = true;
    ++position_;
    while (position_ < end && llvm::isDigit(*position_))
      ++position_;
  }
  if (position_ < end && (*position_ == 'e' || *position_ == 'E')) {
    const char *exponent = position_ + 1;
    if (exponent < end && (*exponent == '+' || *exponent == '-'))
      ++exponent;
    if (exponent < end && llvm::isDigit(*exponent)) {
      isFloat = true;
      position_ = exponent;
      while (position_ < end && llvm::isDigit(*position_))
        ++position_;
    }
  }
  return make(isFloat ? MlirTokenKind::Float : MlirTokenKind::Integer, start);
}

MlirToken MlirLexer::lexString(const char *start) {
  const char *end = text_.end();
  ++position_; // opening quote
  while (position_ < end) {
    char c = *position_++;
    if (c == '"')
      return make(MlirTokenKind::String, start);
    if (c == '\\' && position_ < end)
      ++position_;
    if (c == '\n')
      break;
  }
  return error(start, "unterminated string");
}

MlirToken MlirLexer::lexToken() {
  skipSpaceAndComments();
  const char *start = position_;
  const char *end = text_.end();
  if (position_ >= end)
    return {MlirTokenKind::Eof, llvm::StringRef(end, 0)};
  char c = *position_++;
  auto single = [&](MlirTokenKind kind) { return make(kind, start); };
  switch (c) {
  case '(':
    return single(MlirTokenKind::LParen);
  case ')':
    return single(MlirTokenKind::RParen);
  case '[':
    return single(MlirTokenKind::LSquare);
  case ']':
    return single(MlirTokenKind::RSquare);
  case '{':
    if (position_ + 1 < end && position_[0] == '-' && position_[1] == '#') {
      position_ += 2;
      return single(MlirTokenKind::FileMetadataBegin);
    }
    return single(MlirTokenKind::LBrace);
  case '}':
    return single(MlirTokenKind::RBrace);
  case '<':
    return single(MlirTokenKind::Less);
  case '>':
    return single(MlirTokenKind::Greater);
  case ',':
    return single(MlirTokenKind::Comma);
  case ':':
    return single(MlirTokenKind::Colon);
  case '=':
    return single(MlirTokenKind::Equal);
  case '+':
    return single(MlirTokenKind::Plus);
  case '*':
    return single(MlirTokenKind::Star);
  case '?':
    return single(MlirTokenKind::Question);
  case '-':
    if (position_ < end && *position_ == '>') {
      ++position_;
      return single(MlirTokenKind::Arrow);
    }
    return single(MlirTokenKind::Minus);
  case '"':
    --position_;
    return lexString(start);
  case '%':
  case '^':
  case '#':
  case '!':
  case '@': {
    if (c == '#' && position_ + 1 < end && position_[0] == '-' && position_[1] == '}') {
      position_ += 2;
      return single(MlirTokenKind::FileMetadataEnd);
    }
    if (c == '@' && position_ < end && *position_ == '"') {
      MlirToken quoted = lexString(position_);
      if (quoted.is(MlirTokenKind::Error))
        return quoted;
      return make(MlirTokenKind::SymbolRef, start);
    }
    // Value and block names may start with a digit (%0, ^bb0 never does but
    // costs nothing) and contain '-'; aliases and dialect names are bare ids.
    bool suffixId = c == '%' || c == '^' || c == '@';
    if (position_ >= end || !(suffixId ? isSuffixIdChar(*position_) : isIdStart(*position_))) {
      if (c == '#')
        return single(MlirTokenKind::Hash);
      return error(start, std::string("expected a name after '") + c + "'");
    }
    while (position_ < end && (suffixId ? isSuffixIdChar(*position_) : isBareIdChar(*position_)))
      ++position_;
    MlirTokenKind kind = c == '%'   ? MlirTokenKind::ValueId
                         : c == '^' ? MlirTokenKind::CaretId
                         : c == '#' ? MlirTokenKind::HashId
                         : c == '!' ? MlirTokenKind::BangId
                                    : MlirTokenKind::SymbolRef;
    return make(kind, start);
  }
  default:
    break;
  }
  if (llvm::isDigit(c)) {
    --position_;
    return lexNumber(start);
  }
  if (isIdStart(c)) {
    while (position_ < end && isBareIdChar(*position_))
      ++position_;
    return make(MlirTokenKind::Identifier, start);
  }
  return error(start, std::string("unexpected character '") + c + "'");
}

bool parseFloatLiteral(llvm::StringRef text, double &value) {
  char buffer[128];
  if (text.empty() || text.size() >= sizeof buffer)
    return false;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  char *end = nullptr;
  value = std::strtod(buffer, &end);
  return end == buffer + text.size();
}

std::string unescapeMlirString(llvm::StringRef quoted) {
  if (quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"')
    quoted = quoted.drop_front().drop_back();
  std::string out;
  out.reserve(quoted.size());
  for (size_t i = 0; i < quoted.size(); ++i) {
    char c = quoted[i];
    if (c != '\\' || i + 1 >= quoted.size()) {
      out.push_back(c);
      continue;
    }
    char e = quoted[++i];
    switch (e) {
    case 'n':
      out.push_back('\n');
      break;
    case 't':
      out.push_back('\t');
      break;
    case '"':
    case '\\':
      out.push_back(e);
      break;
    default:
      if (i + 1 < quoted.size() && llvm::isHexDigit(e) && llvm::isHexDigit(quoted[i + 1])) {
        out.push_back(
            static_cast<char>(llvm::hexDigitValue(e) * 16 + llvm::hexDigitValue(quoted[i + 1])));
        ++i;
      } else {
        out.push_back(e);
      }
    }
  }
  return out;
}

} // namespace mote::stablehlo
