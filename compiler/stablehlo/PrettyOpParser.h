//===- PrettyOpParser.h - The pretty forms' reader, shared ------*- C++ -*-===//
///
/// \file
/// The custom assembly formats of the func, builtin, stablehlo, chlo and
/// check ops (ParsePrettyOps.cpp), and those that carry regions: reduce,
/// while, chlo.scan, func.func and module (ParseRegionOps.cpp).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_PRETTYOPPARSER_H
#define MOTE_STABLEHLO_PRETTYOPPARSER_H

#include "stablehlo/MlirParser.h"

namespace mote::stablehlo::detail {

struct PrettyOpParser {
  MlirParser &p;
  Operation &op;
  int depth;

  bool parseAttributeDictionaryIfAny();
  void addAttribute(std::string name, Attribute value);
  static Attribute enumAttribute(std::string kind, std::string value, llvm::SMLoc location);
  /// After the operands and attributes: `: types`, then result types from
  /// the operand types where the form leaves them implicit.
  bool parseTypesAndResolve(bool typesRequired = true);
  /// `%a, %b, key = value, WORD, ...`: values, keyword attributes, and bare
  /// words (compare's direction and type), up to the attributes or types.
  bool parseOperandsAndKeywords();
  bool parseKeywordValue(llvm::StringRef keyword, llvm::SMLoc location);
  bool parseCommon();
  bool parseConstant();
  /// `%x [0:4, 1:3:2]`
  bool parseSlice();
  /// `%t[1]`
  bool parseGetTupleElement();
  /// `@target(%a, %b) {attrs} : (...) -> ...` (custom_call, func.call).
  bool parseSymbolCall(llvm::StringRef symbolAttribute);
  /// `"name" %a, %b {composite_attributes = ..., decomposition = @f} : (...) -> ...`
  bool parseComposite();
  /// `(%lhs, %rhs) dim_numbers = ..., window = {...} {attrs} : (...) -> ...`
  bool parseConvolution();
  /// A region `(%a: T, %b: U) { ... }` given in a pretty form.
  bool parseBlockArguments(std::vector<BlockArgument> &arguments);
  /// `(%x init: %i), ... applies stablehlo.add across dimensions = [1] : ...`
  /// or `... across dimensions = [1] : ... reducer(%a: T, %c: T) (%b: U, %d: U) {...}`.
  bool parseReduce();
  /// `(%arg = %init, ...) : T, U attributes {...} cond { ... } do { ... }`
  bool parseWhile();
  /// `(%x, ...) inits(%c, ...) dimension=0 attributes {...} { ^bb0(...): ... } : (...) -> (...)`
  /// (chlo.scan).
  bool parseScan();
  /// `[public|private] @name(%a: T {attrs}, ...) -> (U {attrs}) attributes {...} { body }`
  bool parseFunction();
  /// `module @name attributes {...} { ... }`
  bool parseModule();
  /// `check.expect_eq_const %x, dense<...> : T` and its almost-equal twin.
  bool parseExpectConst();
  /// `chlo.top_k(%x, k = 3) : T -> (U, V)`
  bool parseTopK();
};

} // namespace mote::stablehlo::detail

#endif // MOTE_STABLEHLO_PRETTYOPPARSER_H
