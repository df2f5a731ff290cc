//===- MlirLexer.h - Tokens of MLIR text ------------------------*- C++ -*-===//
///
/// \file
/// Splits MLIR text into tokens on demand. Tokens are views into the source
/// buffer, so their position is their diagnostic location; `//` comments are
/// skipped. Shapes (`20x?x3xf32`) are not tokens in MLIR's grammar either: the
/// parser reads them with lexDimension().
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_MLIRLEXER_H
#define MOTE_STABLEHLO_MLIRLEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>

namespace mote::stablehlo {

enum class MlirTokenKind : uint8_t {
  Eof,
  Error,      ///< text that starts no token; MlirLexer::errorMessage() says why
  Identifier, ///< bare-id: [A-Za-z_][A-Za-z0-9_$.]*
  ValueId,    ///< %name (text keeps the '%'; a `#N` result number is a separate Hash + Integer)
  SymbolRef,  ///< @name or @"name"
  CaretId,    ///< ^bb0
  HashId,     ///< #name (an alias or a dialect attribute's prefix)
  BangId,     ///< !name (a type alias or a dialect type's prefix)
  Integer,    ///< 42, 0x7FC00000 (no sign)
  Float,      ///< 1.5, 2.0e-3 (no sign)
  String,     ///< "..." with the quotes and escapes kept
  LParen,
  RParen,
  LSquare,
  RSquare,
  LBrace,
  RBrace,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow, ///< ->
  Minus, ///< - not followed by '>'
  Plus,
  Star,
  Question,
  Hash,              ///< a lone '#' (result numbers: %0#1)
  FileMetadataBegin, ///< {-#
  FileMetadataEnd,   ///< #-}
};

struct MlirToken {
  MlirTokenKind kind = MlirTokenKind::Eof;
  llvm::StringRef text;

  bool is(MlirTokenKind k) const { return kind == k; }
  bool isKeyword(llvm::StringRef spelling) const {
    return kind == MlirTokenKind::Identifier && text == spelling;
  }
  llvm::SMLoc location() const { return llvm::SMLoc::getFromPointer(text.data()); }
};

/// A readable name for a token kind, for "expected X" messages.
llvm::StringRef tokenKindName(MlirTokenKind kind);

class MlirLexer {
public:
  explicit MlirLexer(llvm::StringRef text) : text_(text), position_(text.begin()) { next(); }

  const MlirToken &current() const { return current_; }
  void next();
  /// The token after the current one, without consuming anything.
  MlirToken peek();

  /// Reads one dimension of a shape at the current position, which must be the
  /// start of the current token: `?` or digits, followed by 'x'. Returns false
  /// (reading nothing) when the text there is not `<dim>x`. `dynamic` is set
  /// for `?`. Afterwards the current token is the one after the 'x'.
  bool lexDimension(int64_t &size, bool &dynamic);

  /// Moves to `position` (inside the text) and lexes the token there.
  void resetTo(const char *position);

  const std::string &errorMessage() const { return error_; }
  llvm::StringRef text() const { return text_; }

private:
  MlirToken lexToken();
  MlirToken make(MlirTokenKind kind, const char *start) {
    return {kind, llvm::StringRef(start, position_ - start)};
  }
  MlirToken error(const char *start, std::string message);
  MlirToken lexNumber(const char *start);
  MlirToken lexString(const char *start);
  void skipSpaceAndComments();

  llvm::StringRef text_;
  const char *position_;
  MlirToken current_;
  std::string error_;
};

/// The value of a decimal Float or Integer token's text (correctly rounded,
/// via strtod: LLVM's APFloat parsing is many times slower on large literals).
bool parseFloatLiteral(llvm::StringRef text, double &value);

/// The bytes of a string token's contents with MLIR's escapes (`\"`, `\\`,
/// `\n`, `\t`, two hex digits) resolved.
std::string unescapeMlirString(llvm::StringRef quoted);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_MLIRLEXER_H
