//===- Lexer.cpp - Tokens of HLO text -------------------------------------===//

#include "hlo/Lexer.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::hlo {

static bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
}

llvm::StringRef tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof:
    return "end of file";
  case TokenKind::Error:
    return "invalid text";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::PercentName:
    return "name";
  case TokenKind::Int:
    return "integer";
  case TokenKind::Float:
    return "number";
  case TokenKind::String:
    return "string";
  case TokenKind::Word:
    return "word";
  case TokenKind::LParen:
    return "'('";
  case TokenKind::RParen:
    return "')'";
  case TokenKind::LBrace:
    return "'{'";
  case TokenKind::RBrace:
    return "'}'";
  case TokenKind::LSquare:
    return "'['";
  case TokenKind::RSquare:
    return "']'";
  case TokenKind::Comma:
    return "','";
  case TokenKind::Colon:
    return "':'";
  case TokenKind::Equal:
    return "'='";
  case TokenKind::Arrow:
    return "'->'";
  case TokenKind::LessEqual:
    return "'<='";
  case TokenKind::Dots:
    return "'...'";
  case TokenKind::Asterisk:
    return "'*'";
  case TokenKind::Punct:
    return "punctuation";
  }
  return "token";
}

Lexer::Lexer(llvm::StringRef text) : text_(text), position_(text.begin()), end_(text.end()) {
  if (text.starts_with("\xEF\xBB\xBF")) // a UTF-8 byte order mark
    position_ += 3;
  current_ = lexToken();
}

const Token &Lexer::next() {
  current_ = lexToken();
  return current_;
}

Token Lexer::peek() {
  State state = save();
  Token token = lexToken();
  restore(state);
  return token;
}

Token Lexer::makeToken(TokenKind kind, const char *start, bool newline) const {
  Token token;
  token.kind = kind;
  token.text = llvm::StringRef(start, position_ - start);
  token.newlineBefore = newline;
  return token;
}

Token Lexer::lexToken() {
  bool newline = false;
  while (true) {
    if (position_ == end_) {
      const char *start = position_;
      return makeToken(TokenKind::Eof, start, newline);
    }
    const char *start = position_;
    char c = *position_++;
    switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\f':
    case '\v':
      continue;
    case '\n':
      newline = true;
      continue;
    case '/':
      if (position_ != end_ && *position_ == '/') {
        while (position_ != end_ && *position_ != '\n')
          ++position_;
        newline = true;
        continue;
      }
      if (position_ != end_ && *position_ == '*') {
        ++position_;
        while (true) {
          if (position_ == end_ || position_ + 1 == end_) {
            position_ = end_;
            errorMessage_ = "unterminated '/*' comment";
            return makeToken(TokenKind::Error, start, newline);
          }
          if (position_[0] == '*' && position_[1] == '/') {
            position_ += 2;
            break;
          }
          if (*position_ == '\n')
            newline = true;
          ++position_;
        }
        continue;
      }
      return makeToken(TokenKind::Punct, start, newline);
    case '"':
    case '\'':
      return lexString(start, newline);
    case '%':
      if (position_ != end_ && isIdentifierStart(*position_)) {
        while (position_ != end_ && isIdentifierChar(*position_) &&
               !(*position_ == '-' && position_ + 1 != end_ && position_[1] == '>'))
          ++position_;
        return makeToken(TokenKind::PercentName, start, newline);
      }
      return makeToken(TokenKind::Punct, start, newline);
    case '-':
      if (position_ != end_ && *position_ == '>') {
        ++position_;
        return makeToken(TokenKind::Arrow, start, newline);
      }
      if (position_ != end_ &&
          (llvm::isDigit(*position_) ||
           (*position_ == '.' && position_ + 1 != end_ && llvm::isDigit(position_[1]))))
        return lexNumber(start, newline);
      if (llvm::StringRef(position_, end_ - position_).starts_with("inf") &&
          (position_ + 3 == end_ || !isIdentifierChar(position_[3]))) {
        position_ += 3;
        return makeToken(TokenKind::Float, start, newline);
      }
      if (llvm::StringRef(position_, end_ - position_).starts_with("nan") &&
          (position_ + 3 == end_ || !isIdentifierChar(position_[3]))) {
        position_ += 3;
        lexNanPayload();
        return makeToken(TokenKind::Float, start, newline);
      }
      return makeToken(TokenKind::Punct, start, newline);
    case '.':
      if (position_ != end_ && llvm::isDigit(*position_))
        return lexNumber(start, newline);
      if (end_ - position_ >= 2 && position_[0] == '.' && position_[1] == '.') {
        position_ += 2;
        return makeToken(TokenKind::Dots, start, newline);
      }
      return makeToken(TokenKind::Punct, start, newline);
    case '<':
      if (position_ != end_ && *position_ == '=') {
        ++position_;
        return makeToken(TokenKind::LessEqual, start, newline);
      }
      return makeToken(TokenKind::Punct, start, newline);
    case '(':
      return makeToken(TokenKind::LParen, start, newline);
    case ')':
      return makeToken(TokenKind::RParen, start, newline);
    case '{':
      return makeToken(TokenKind::LBrace, start, newline);
    case '}':
      return makeToken(TokenKind::RBrace, start, newline);
    case '[':
      return makeToken(TokenKind::LSquare, start, newline);
    case ']':
      return makeToken(TokenKind::RSquare, start, newline);
    case ',':
      return makeToken(TokenKind::Comma, start, newline);
    case ':':
      return makeToken(TokenKind::Colon, start, newline);
    case '=':
      return makeToken(TokenKind::Equal, start, newline);
    case '*':
      return makeToken(TokenKind::Asterisk, start, newline);
    default:
      if (llvm::isDigit(c))
        return lexNumber(start, newline);
      if (isIdentifierStart(c))
        return lexIdentifier(start, newline);
      return makeToken(TokenKind::Punct, start, newline);
    }
  }
}

Token Lexer::lexNumber(const char *start, bool newline) {
  // The sign (if any) and the first character are already consumed.
  position_ = start;
  if (*position_ == '-')
    ++position_;
  bool isFloat = false;
  while (position_ != end_ && llvm::isDigit(*position_))
    ++position_;
  if (position_ != end_ && *position_ == '.' && !(position_ + 1 != end_ && position_[1] == '.')) {
    isFloat = true;
    ++position_;
    while (position_ != end_ && llvm::isDigit(*position_))
      ++position_;
  }
  if (position_ != end_ && (*position_ == 'e' || *position_ == 'E')) {
    const char *exponent = position_ + 1;
    if (exponent != end_ && (*exponent == '+' || *exponent == '-'))
      ++exponent;
    if (exponent != end_ && llvm::isDigit(*exponent)) {
      isFloat = true;
      position_ = exponent;
      while (position_ != end_ && llvm::isDigit(*position_))
        ++position_;
    }
  }
  return makeToken(isFloat ? TokenKind::Float : TokenKind::Int, start, newline);
}

Token Lexer::lexIdentifier(const char *start, bool newline) {
  while (position_ != end_ && isIdentifierChar(*position_) &&
         !(*position_ == '-' && position_ + 1 != end_ && position_[1] == '>'))
    ++position_;
  llvm::StringRef text(start, position_ - start);
  if (text == "nan" && position_ != end_ && *position_ == '(') {
    lexNanPayload();
    return makeToken(TokenKind::Float, start, newline);
  }
  return makeToken(TokenKind::Identifier, start, newline);
}

void Lexer::lexNanPayload() {
  // Only "(0x<hex digits>)" is a payload; anything else is left for the parser.
  const char *p = position_;
  if (end_ - p < 4 || p[0] != '(' || p[1] != '0' || (p[2] != 'x' && p[2] != 'X'))
    return;
  p += 3;
  const char *digits = p;
  while (p != end_ && llvm::isHexDigit(*p))
    ++p;
  if (p == digits || p == end_ || *p != ')')
    return;
  position_ = p + 1;
}

Token Lexer::lexString(const char *start, bool newline) {
  char quote = *start;
  while (position_ != end_) {
    char c = *position_++;
    if (c == '\\') {
      if (position_ != end_)
        ++position_;
      continue;
    }
    if (c == quote)
      return makeToken(TokenKind::String, start, newline);
  }
  errorMessage_ = "unterminated string";
  return makeToken(TokenKind::Error, start, newline);
}

const Token &Lexer::relexWord() {
  const char *start = current_.text.data();
  bool newline = current_.newlineBefore;
  position_ = start;
  while (position_ != end_) {
    char c = *position_;
    if (llvm::isAlnum(c) || c == '_' || c == '.') {
      ++position_;
    } else if (c == '-') {
      position_ += (position_ + 1 != end_ && position_[1] == '>') ? 2 : 1;
    } else {
      break;
    }
  }
  current_ = makeToken(TokenKind::Word, start, newline);
  return current_;
}

llvm::StringRef Lexer::lexLayoutSuffix() {
  const char *start = current_.end();
  position_ = start;
  int depth = 0;
  while (position_ != end_) {
    char c = *position_;
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0)
        break;
      --depth;
    }
    ++position_;
  }
  llvm::StringRef suffix(start, position_ - start);
  current_ = lexToken();
  return suffix;
}

} // namespace mote::hlo
