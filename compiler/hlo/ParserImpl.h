//===- ParserImpl.h - The HLO text parser's internals -----------*- C++ -*-===//
///
/// \file
/// The recursive-descent parser behind Parser.h, split over Parser.cpp
/// (module, computations, instructions), ParseAttributes.cpp (which attribute
/// goes where), ParseValues.cpp (attribute value syntaxes) and
/// ParseLiteral.cpp (shapes, layouts, numbers, literals).
/// Parse functions return false after recording the first error; only that
/// error is reported. Nesting is bounded so hostile input cannot exhaust the
/// stack.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_PARSERIMPL_H
#define MOTE_HLO_PARSERIMPL_H

#include "hlo/Lexer.h"
#include "hlo/Module.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mote::hlo::detail {

/// Deeper nesting (tuple shapes, literals, nested operands, braces in raw
/// attribute values) is rejected with an error.
constexpr int kMaxNesting = 256;

/// A computation named by an attribute, resolved once the whole file is read.
struct CalleeReference {
  std::string name;
  llvm::SMLoc location;
};

/// Called computations of one instruction by attribute, until the
/// instruction is complete and they can be put in the order Instruction.h
/// documents.
struct CalleeAttributes {
  std::optional<CalleeReference> toApply, calls, condition, body, select, scatter, trueComputation,
      falseComputation;
  std::optional<std::vector<CalleeReference>> branches, called;
};

/// The instruction being parsed and what its attributes said so far.
struct InstructionInProgress {
  Instruction *instruction;
  CalleeAttributes callees;
  llvm::StringSet<> typedKeys; ///< typed attributes seen, to reject repeats
};

class HloParser {
public:
  explicit HloParser(llvm::StringRef text) : lexer_(text) {}

  /// Null after an error; takeError() then has it.
  std::unique_ptr<Module> parseModule(llvm::StringRef defaultName);
  /// A whole buffer holding exactly one shape.
  bool parseStandaloneShape(Shape &shape);
  llvm::Error takeError();

  // Tokens and errors ------------------------------------------------------
  const Token &tok() const { return lexer_.current(); }
  /// For the few values that are words rather than tokens (Lexer::relexWord).
  Lexer &lexerForWords() { return lexer_; }
  void consume() { lexer_.next(); }
  /// Records the error (the first one wins) and returns false.
  bool fail(llvm::SMLoc location, const llvm::Twine &message);
  /// An error at the current token (the lexer's message if it is invalid text).
  bool failHere(const llvm::Twine &message);
  /// Consumes a token of `kind`, or fails with `message` at the current token.
  bool expect(TokenKind kind, const llvm::Twine &message);
  bool consumeIf(TokenKind kind) {
    if (!tok().is(kind))
      return false;
    consume();
    return true;
  }

  // Shapes, numbers and literals (ParseLiteral.cpp) -------------------------
  /// True if the current token starts a shape: '(' or an element type name
  /// directly followed by '['.
  bool atShape() const;
  /// An identifier directly followed by '[' that names no element type.
  bool atUnknownElementType() const;
  bool parseShape(Shape &shape, int depth = 0);
  bool parseProgramShape(ProgramShape &programShape);
  bool parseInt64(int64_t &value, const llvm::Twine &what);
  bool parseDouble(double &value, const llvm::Twine &what);
  bool parseLiteral(const Shape &shape, Literal &literal, int depth = 0);

  // Attributes (ParseAttributes.cpp) ----------------------------------------
  /// `key=value` after an instruction's ',' into typed fields, callees or raw.
  bool parseInstructionAttribute(InstructionInProgress &progress);
  /// A value kept verbatim: balanced tokens up to the next ',' / closer /
  /// line break / new instruction at nesting depth 0.
  bool parseRawValue(llvm::StringRef key, std::string &value);
  bool parseDimList(DimVector &dims, llvm::StringRef key);
  bool parseBool(bool &value, llvm::StringRef key);
  bool parseCalleeReference(CalleeReference &reference, llvm::StringRef key);
  // ParseValues.cpp
  bool parseWindow(Window &window);
  bool parseDimLabels(ConvolutionDimensionNumbers &numbers);
  bool parsePadding(std::vector<PaddingDimension> &padding);
  bool parseSlice(std::vector<SliceDimension> &slice);
  /// The unescaped contents of the current String token.
  static std::string unescapeString(llvm::StringRef quoted);

private:
  // Module structure (Parser.cpp) --------------------------------------------
  bool parseHeader();
  bool skipStackFrameTable();
  bool parseComputation();
  bool parseInstruction(Computation &computation, bool &sawRoot);
  /// `[shape] opcode(operands), attributes` after `name =`; nested operand
  /// instructions recurse with a larger depth.
  struct NameInfo {
    llvm::SMLoc location;     ///< where the instruction starts (ROOT or its name)
    llvm::SMLoc nameLocation; ///< for "defined twice"
    bool generated;           ///< a made-up name of a nested operand instruction
  };
  Instruction *parseInstructionBody(Computation &computation, std::string name,
                                    const NameInfo &info, int depth,
                                    std::optional<Shape> shape = std::nullopt);
  bool parseOperands(Computation &computation, Instruction &instruction, int depth);
  Instruction *parseOperand(Computation &computation, int depth);
  bool parseConstantValue(Instruction &instruction);
  bool finishCallees(InstructionInProgress &progress);
  bool defineName(Instruction *instruction, llvm::SMLoc location, bool generated);
  std::string freshName(llvm::StringRef base);
  bool resolveCallees();
  bool inferMissingShapes();

  struct CalleeFixup {
    Instruction *instruction;
    size_t index;
    CalleeReference reference;
  };

  Lexer lexer_;
  std::optional<std::pair<llvm::SMLoc, std::string>> error_;
  std::unique_ptr<Module> module_;
  llvm::StringMap<Computation *> computations_;
  std::vector<CalleeFixup> fixups_;
  std::vector<Instruction *> shapeless_; ///< in text order
  // Per computation being parsed.
  llvm::StringMap<Instruction *> names_;
  llvm::StringSet<> generatedNames_;
};

} // namespace mote::hlo::detail

#endif // MOTE_HLO_PARSERIMPL_H
