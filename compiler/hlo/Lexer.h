//===- Lexer.h - Tokens of HLO text -----------------------------*- C++ -*-===//
///
/// \file
/// Splits HLO text into tokens on demand. Tokens are views into the source
/// buffer, so their position is also their diagnostic location. Comments
/// (`//...` and `/*...*/`, including `/*index=N*/`) are skipped. A few HLO
/// spellings (`3x3`, `0_1x1_0`, `b01f_01io->b01f`, layout suffixes) are not
/// tokens in general; the parser re-reads them with relexWord()/lexLayoutSuffix().
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_LEXER_H
#define MOTE_HLO_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>

namespace mote::hlo {

enum class TokenKind : uint8_t {
  Eof,
  Error,       ///< unterminated string or comment; Lexer::errorMessage() says which
  Identifier,  ///< [A-Za-z_][A-Za-z0-9_.-]* (never ends in a '-' that starts "->")
  PercentName, ///< %name; text() keeps the '%'
  Int,         ///< -?[0-9]+
  Float,       ///< -?1.5e3, .5, -inf, -nan, nan(0x7f), -nan(0x1)
  String,      ///< "..." or '...', quotes and escapes kept in text()
  Word,        ///< produced only by relexWord()
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Comma,
  Colon,
  Equal,
  Arrow,     ///< ->
  LessEqual, ///< <=
  Dots,      ///< ...
  Asterisk,
  Punct, ///< any other single character (only meaningful inside raw attribute values)
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  /// A line break (or a `//` comment) separates this token from the previous one.
  bool newlineBefore = false;

  bool is(TokenKind k) const { return kind == k; }
  bool isIdentifier(llvm::StringRef spelling) const {
    return kind == TokenKind::Identifier && text == spelling;
  }
  llvm::SMLoc location() const { return llvm::SMLoc::getFromPointer(text.data()); }
  const char *end() const { return text.data() + text.size(); }
};

/// A readable name for a token kind, for "expected X" messages.
llvm::StringRef tokenKindName(TokenKind kind);

class Lexer {
public:
  /// `text` must stay alive as long as the lexer and its tokens.
  explicit Lexer(llvm::StringRef text);

  /// The current token.
  const Token &current() const { return current_; }
  /// Moves to the next token and returns it.
  const Token &next();
  /// The token after the current one, without moving.
  Token peek();

  /// The text of the buffer, for slicing raw attribute values.
  llvm::StringRef buffer() const { return text_; }

  /// Why the current token is an Error token.
  const std::string &errorMessage() const { return errorMessage_; }

  /// Re-reads the current token as a word of [A-Za-z0-9_.-] characters and
  /// "->" pairs (possibly empty), e.g. `3x3`, `-1_2x0_0`, `b01f_01io->b01f`,
  /// and makes it the current token (kind Word).
  const Token &relexWord();

  /// With the current token being the ':' of a layout, reads everything up to
  /// the '}' that closes the layout (nesting of (), [] and {} respected) and
  /// returns it without the ':'. Afterwards the current token is that '}', or
  /// Eof if there is none.
  llvm::StringRef lexLayoutSuffix();

  /// Saved position, to look further ahead and come back.
  struct State {
    const char *position;
    Token token;
  };
  State save() const { return {position_, current_}; }
  void restore(const State &state) {
    position_ = state.position;
    current_ = state.token;
  }

private:
  Token lexToken();
  Token makeToken(TokenKind kind, const char *start, bool newline) const;
  Token lexNumber(const char *start, bool newline);
  Token lexIdentifier(const char *start, bool newline);
  Token lexString(const char *start, bool newline);
  /// Consumes "(0x<hex>)" after a nan if present.
  void lexNanPayload();

  llvm::StringRef text_;
  const char *position_;
  const char *end_;
  Token current_;
  std::string errorMessage_;
};

} // namespace mote::hlo

#endif // MOTE_HLO_LEXER_H
