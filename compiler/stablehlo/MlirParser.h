//===- MlirParser.h - Reads StableHLO MLIR text ----------------*- C++ -*-===//
///
/// \file
/// A recursive-descent reader of MLIR's textual form, as much of it as
/// StableHLO files use: modules, functions, operations in the generic form
/// and in the pretty forms of the func, stablehlo, chlo and check dialects,
/// builtin types and attributes, dialect attributes, locations and the
/// `{-# dialect_resources #-}` section. The result is MlirSyntax; meaning is
/// the converter's business. The parse functions return false after
/// recording the first error; nesting is bounded so hostile input cannot
/// exhaust the stack. Split over MlirParser.cpp (structure and the generic
/// form), ParseTypes.cpp, ParseAttributes.cpp, ParseDense.cpp and
/// ParsePrettyOps.cpp.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_MLIRPARSER_H
#define MOTE_STABLEHLO_MLIRPARSER_H

#include "stablehlo/MlirLexer.h"
#include "stablehlo/MlirSyntax.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace mote::stablehlo {

/// Parses a whole buffer. Errors are hlo::LocatedErrors.
llvm::Expected<ModuleSyntax> parseMlir(llvm::StringRef text);

namespace detail {

constexpr int kMaxNesting = 200;

class MlirParser {
public:
  explicit MlirParser(llvm::StringRef text) : lexer_(text) {}

  bool parseFile(ModuleSyntax &module);
  llvm::Error takeError();

  // Tokens and errors (MlirParser.cpp) ---------------------------------------
  const MlirToken &tok() const { return lexer_.current(); }
  void consume() { lexer_.next(); }
  bool consumeIf(MlirTokenKind kind) {
    if (!tok().is(kind))
      return false;
    consume();
    return true;
  }
  bool consumeKeyword(llvm::StringRef keyword) {
    if (!tok().isKeyword(keyword))
      return false;
    consume();
    return true;
  }
  bool fail(llvm::SMLoc location, const llvm::Twine &message);
  /// Like fail(), for valid MLIR that Mote does not support (an
  /// UnsupportedError: tools exit 3).
  bool failUnsupported(llvm::SMLoc location, const llvm::Twine &message);
  bool failHere(const llvm::Twine &message);
  bool expect(MlirTokenKind kind, const llvm::Twine &what);
  bool expectKeyword(llvm::StringRef keyword, const llvm::Twine &what);
  /// `( element, element, ... )`, possibly empty; `what` names the list.
  bool parseParenthesizedList(const llvm::Twine &what, llvm::function_ref<bool()> element);
  /// `%name` of a block argument, into `argument`'s name and location.
  bool parseArgumentName(BlockArgument &argument, const llvm::Twine &expected);
  /// Skips a balanced run of tokens up to (not including) a closer at depth 0
  /// of one of `stops`; returns the text skipped.
  bool skipBalanced(std::initializer_list<MlirTokenKind> stops, llvm::StringRef &skipped);

  // Operations (MlirParser.cpp) --------------------------------------------
  bool parseOperation(Operation &op, int depth);
  bool parseGenericOperation(Operation &op, int depth);
  bool parseRegion(Region &region, int depth, std::vector<BlockArgument> entryArguments = {});
  bool parseValueUse(ValueUse &use);
  bool parseValueUseList(std::vector<ValueUse> &uses);
  bool parseOptionalLocation(Operation &op);
  bool parseLocationBody(std::string &text);
  /// `(T, U) -> V` or `(T, U) -> (V, W)`.
  bool parseFunctionType(std::vector<Type> &inputs, std::vector<Type> &results);
  /// `(T, U) -> V`, or a plain type list `T, U` (each operand its type; the
  /// result types are then filled by the converter).
  bool parseTrailingTypes(Operation &op);

  // Types (ParseTypes.cpp) ---------------------------------------------------
  bool parseType(Type &type, int depth = 0);
  bool parseTypeList(std::vector<Type> &types);
  bool parseElementType(Type &type, int depth);
  bool atType() const;

  // Attributes (ParseAttributes.cpp) -----------------------------------------
  bool parseAttribute(Attribute &attribute, int depth = 0);
  bool parseAttributeDictionary(AttributeList &attributes, int depth = 0);
  /// `<{...}>` properties, then `{...}` attributes, when present.
  bool parseOptionalProperties(AttributeList &attributes, int depth);
  bool parseSignedInteger(int64_t &value, const llvm::Twine &what);
  bool parseIntegerList(llvm::SmallVectorImpl<int64_t> &values, const llvm::Twine &what);

  // dense<...> bodies (ParseDense.cpp) ----------------------------------------
  bool parseDenseBody(DenseBody &body);
  bool parseResourceSection(ModuleSyntax &module);

  // Pretty forms (ParsePrettyOps.cpp) -----------------------------------------
  /// Parses the rest of `op` after its name, for ops with a pretty form.
  /// Returns std::nullopt when `op.name` has no pretty form known here.
  std::optional<bool> parsePrettyOperation(Operation &op, int depth);

  MlirLexer &lexer() { return lexer_; }

private:
  bool parseTopLevel(ModuleSyntax &module);
  bool parseBlock(Block &block, int depth, bool isEntry);

  MlirLexer lexer_;
  std::optional<std::pair<llvm::SMLoc, std::string>> error_;
  bool errorIsUnsupported_ = false;
  llvm::StringMap<Type> typeAliases_;
  llvm::StringMap<Attribute> attributeAliases_;

public:
  const Attribute *attributeAlias(llvm::StringRef name) const {
    auto it = attributeAliases_.find(name);
    return it == attributeAliases_.end() ? nullptr : &it->second;
  }
  const Type *typeAlias(llvm::StringRef name) const {
    auto it = typeAliases_.find(name);
    return it == typeAliases_.end() ? nullptr : &it->second;
  }
};

} // namespace detail
} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_MLIRPARSER_H
