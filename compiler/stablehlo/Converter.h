//===- Converter.h - The StableHLO front end's internals --------*- C++ -*-===//
///
/// \file
/// The state behind convertStableHlo() (StableHlo.h states the model):
/// functions become computations (Converter.cpp), regions become called
/// computations (Regions.cpp), and each operation is lowered by the handler
/// its name selects (Lower*.cpp, Chlo*.cpp, Quantized.cpp, Checks.cpp), which
/// sees the op through an OpContext.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_CONVERTER_H
#define MOTE_STABLEHLO_CONVERTER_H

#include "stablehlo/MlirSyntax.h"
#include "stablehlo/StableHlo.h"

#include "hlo/Literal.h"
#include "hlo/Module.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include "llvm/ADT/StringSet.h"

#include <functional>
#include <map>

namespace mote::stablehlo {

class Converter;

/// An MLIR type as an HLO shape (a quantized tensor as its storage type).
/// Dynamic dimensions come out as Shape::kUnboundedSize.
hlo::Shape shapeOf(const Type &type);
/// Flattens integers of an Array (nested too), DenseArray or Dense attribute.
bool integersOf(const Attribute &attribute, llvm::SmallVectorImpl<int64_t> &out);

/// Values visible in a block: each name maps to the instructions of its
/// results. Lookups go outwards; `capture` decides what to do with a value
/// of an enclosing scope (copy a constant in, or take it as a parameter).
struct Scope {
  Scope *parent = nullptr;
  hlo::Computation *computation = nullptr;
  llvm::StringMap<llvm::SmallVector<hlo::Instruction *, 1>> values;
  /// Called for a value found in `parent`'s chain: returns the instruction
  /// standing for it in this computation, or null with an error.
  std::function<llvm::Expected<hlo::Instruction *>(hlo::Instruction *, const ValueUse &)> capture;
};

/// One op being lowered: its syntax, operand instructions and where results go.
class OpContext {
public:
  OpContext(Converter &converter, const Operation &op, Scope &scope,
            std::vector<hlo::Instruction *> operands)
      : converter(converter), op(op), scope(scope), operands(std::move(operands)) {}

  Converter &converter;
  const Operation &op;
  Scope &scope;
  std::vector<hlo::Instruction *> operands;
  std::vector<hlo::Instruction *> results;

  hlo::Computation &computation() { return *scope.computation; }
  llvm::SMLoc location() const { return op.location; }

  // Building instructions -------------------------------------------------
  /// A new instruction with an explicit shape.
  hlo::Instruction *add(hlo::Opcode opcode, hlo::Shape shape,
                        llvm::ArrayRef<hlo::Instruction *> operands);
  /// A new instruction whose shape hlo::inferShape() computes after
  /// `configure` set its attributes (and, for element types it cannot infer,
  /// `shape` says which).
  llvm::Expected<hlo::Instruction *>
  addInferred(hlo::Opcode opcode, llvm::ArrayRef<hlo::Instruction *> operands,
              const std::function<void(hlo::Instruction &)> &configure = {}, hlo::Shape shape = {});
  hlo::Instruction *constant(hlo::Literal literal);
  /// A scalar of `type` holding `value` (converted like a C cast).
  hlo::Instruction *scalar(hlo::PrimitiveType type, double value);
  /// `scalar` broadcast to the dimensions of `like`.
  hlo::Instruction *splat(hlo::PrimitiveType type, double value, const hlo::Shape &like);
  hlo::Instruction *broadcastScalar(hlo::Instruction *scalar, const hlo::Shape &like);
  hlo::Instruction *unary(hlo::Opcode opcode, hlo::Instruction *x);
  hlo::Instruction *binary(hlo::Opcode opcode, hlo::Instruction *a, hlo::Instruction *b);
  hlo::Instruction *compare(hlo::Instruction *a, hlo::Instruction *b,
                            hlo::ComparisonDirection direction);
  hlo::Instruction *select(hlo::Instruction *predicate, hlo::Instruction *onTrue,
                           hlo::Instruction *onFalse);
  hlo::Instruction *convert(hlo::Instruction *x, hlo::PrimitiveType type);
  hlo::Instruction *getTupleElement(hlo::Instruction *tuple, int64_t index);
  hlo::Instruction *tuple(llvm::ArrayRef<hlo::Instruction *> elements);

  // Reading the op ----------------------------------------------------------
  const Attribute *attribute(llvm::StringRef key) const { return op.attribute(key); }
  /// The integers of attribute `key`; an error if it is missing (unless
  /// `optional`) or not integers.
  llvm::Error integers(llvm::StringRef key, llvm::SmallVectorImpl<int64_t> &out,
                       bool optional = false) const;
  llvm::Expected<int64_t> integer(llvm::StringRef key) const;
  std::optional<int64_t> optionalInteger(llvm::StringRef key) const;
  bool flag(llvm::StringRef key) const; ///< a true Bool or a Unit attribute
  /// The value of an Enum attribute (`LT` of `#stablehlo<comparison_direction LT>`)
  /// or of a bare word; empty when absent.
  std::string enumValue(llvm::StringRef key) const;
  const Type &resultType(size_t i) const;
  hlo::Shape resultShape(size_t i) const;
  const Type &operandType(size_t i) const;

  /// Sets the op's one result, or passes the error on.
  llvm::Error setResult(llvm::Expected<hlo::Instruction *> result);

  llvm::Error error(const llvm::Twine &message) const;
  llvm::Error unsupported(const llvm::Twine &message) const;
  /// Checks the operand and result counts.
  llvm::Error expectCounts(size_t operandCount, size_t resultCount) const;
};

using OpLowering = llvm::Error (*)(OpContext &);

/// The HLO opcode of a StableHLO elementwise op (add, tanh, clamp, ...).
std::optional<hlo::Opcode> elementwiseOpcode(llvm::StringRef name);

/// The handler for op `name`, or null.
OpLowering findLowering(llvm::StringRef name);

// Handlers register by name in these tables (one per Lower*.cpp file).
void registerElementwiseLowerings(llvm::StringMap<OpLowering> &table);
void registerDataMovementLowerings(llvm::StringMap<OpLowering> &table);
void registerComputeLowerings(llvm::StringMap<OpLowering> &table);
void registerControlFlowLowerings(llvm::StringMap<OpLowering> &table);
void registerChloLowerings(llvm::StringMap<OpLowering> &table);
void registerQuantizedLowerings(llvm::StringMap<OpLowering> &table);
void registerCheckLowerings(llvm::StringMap<OpLowering> &table);
void registerReductionLowerings(llvm::StringMap<OpLowering> &table);

/// The integers of `value` when it is a constant (dynamic ops whose shape
/// operands are constants become their static forms); false otherwise.
bool constantIntegers(const hlo::Instruction *value, llvm::SmallVectorImpl<int64_t> &out);

/// broadcast_in_dim: `operand` to `result`'s dimensions, operand dimension i
/// going to `dimensions[i]` (size-1 dimensions may stretch).
llvm::Expected<hlo::Instruction *> broadcastInDim(OpContext &context, hlo::Instruction *operand,
                                                  const hlo::Shape &result,
                                                  llvm::ArrayRef<int64_t> dimensions);
/// The window of reduce_window, select_and_scatter and convolution from the
/// op's attributes (`sizesKey` empty: sizes are set by the caller).
llvm::Expected<hlo::Window> windowAttributes(const OpContext &context, size_t rank,
                                             llvm::StringRef sizesKey,
                                             llvm::StringRef baseDilationKey,
                                             llvm::StringRef windowDilationKey);
/// dot_general's dimension numbers and a convolution of `lhs` and `rhs` with
/// the op's attributes (for the quantized forms).
llvm::Expected<hlo::DotDimensionNumbers> dotDimensions(const OpContext &context);
/// Adds the fields of a `#stablehlo.dot<...>`-like struct attribute
/// (lhs_batching_dimensions ... rhs_contracting_dimensions) to `dot`.
llvm::Error readDotDimensions(const Attribute &numbers, hlo::DotDimensionNumbers &dot);
llvm::Expected<hlo::Instruction *> convolution(OpContext &context, hlo::Instruction *lhs,
                                               hlo::Instruction *rhs, hlo::Shape preferred);

/// A dense attribute with its type as a literal of `shape` (storage types
/// for quantized tensors).
llvm::Expected<hlo::Literal> denseLiteral(const Attribute &attribute, const hlo::Shape &shape,
                                          const Converter &converter);

/// How a region's block arguments reach its computation.
enum class RegionParameters {
  Scalars, ///< each argument one parameter (reduce, sort, scatter, map, ...)
  Tuple,   ///< all arguments, then the captured values, in one tuple parameter
};

/// A region converted into a computation.
struct ConvertedRegion {
  hlo::Computation *computation = nullptr;
  /// The values the region's terminator returns (the root is them, or
  /// their tuple when there are several).
  std::vector<hlo::Instruction *> returned;
  /// Tuple regions: the parameter and how many block arguments lead it.
  hlo::Instruction *tupleParameter = nullptr;
  size_t argumentCount = 0;
};

/// An operation standing for no syntax, for instructions the converter
/// makes on its own (region plumbing).
extern const Operation kNoOperation;

class Converter {
public:
  Converter(const ModuleSyntax &syntax, std::shared_ptr<llvm::SourceMgr> sourceManager,
            const ConversionOptions &options);

  llvm::Expected<ConvertedModule> run();

  // Used by the handlers -------------------------------------------------------
  hlo::Module &module() { return *module_; }
  std::string freshName(llvm::StringRef base);
  /// The computation for function `name` called with `argumentTypes` (its
  /// declared types, refined where they are dynamic).
  llvm::Expected<hlo::Computation *> functionFor(llvm::StringRef name, llvm::SMLoc location,
                                                 llvm::ArrayRef<hlo::Shape> argumentShapes);
  /// Converts `region` into a computation named after `name`. For Tuple
  /// regions, `captureSets` makes several regions (the branches of a
  /// conditional) share one list of captured values; pass the same vector
  /// for each.
  llvm::Expected<ConvertedRegion>
  convertRegion(const Region &region, Scope &outer, RegionParameters parameters,
                llvm::StringRef name, std::vector<hlo::Instruction *> *sharedCaptures = nullptr);
  /// Gives a Tuple region's parameter its final shape, the block arguments
  /// then `captures`; with `passCapturesOn` (a while body) the root becomes
  /// the tuple of the returned values and the captured values unchanged.
  void finishTupleRegion(ConvertedRegion &region, llvm::ArrayRef<hlo::Instruction *> captures,
                         bool passCapturesOn);
  /// A scalar computation `(a, b) -> a OP b` of `type`, for reductions the
  /// decompositions build.
  hlo::Computation *binaryComputation(hlo::Opcode opcode, hlo::PrimitiveType type);
  /// The bytes of a `dense_resource` blob.
  const std::string *resource(llvm::StringRef name) const;
  void addCheck(CheckDescription check, hlo::Instruction *verdict);
  bool isEntryScope(const Scope &scope) const { return &scope == entryScope_; }
  const ConversionOptions &options() const { return options_; }
  /// Lowers the ops of `block` into `scope`; the terminator's operands are
  /// returned in `terminatorValues`.
  llvm::Error convertBlock(const Block &block, Scope &scope,
                           std::vector<hlo::Instruction *> &terminatorValues);

private:
  llvm::Error collectFunctions(const std::vector<Operation> &operations, int depth);
  llvm::Expected<const Operation *> chooseEntry(llvm::SMLoc fileStart);
  llvm::Error convertOperation(const Operation &op, Scope &scope);
  llvm::Expected<hlo::Instruction *> lookup(const ValueUse &use, Scope &scope);
  llvm::Expected<hlo::Computation *>
  buildFunction(const Operation &function, llvm::ArrayRef<hlo::Shape> argumentShapes, bool isEntry);
  /// `@inputs` converted as the entry of a module of its own.
  llvm::Expected<std::unique_ptr<hlo::Module>> buildInputsModule();

  const ModuleSyntax &syntax_;
  std::shared_ptr<llvm::SourceMgr> sourceManager_;
  ConversionOptions options_;
  std::unique_ptr<hlo::Module> module_;
  llvm::StringMap<const Operation *> functions_;
  std::vector<const Operation *> functionOrder_;
  /// Converted functions by name and argument shapes.
  std::map<std::string, hlo::Computation *> converted_;
  llvm::StringSet<> inProgress_;
  llvm::StringMap<unsigned> nameCounts_;
  llvm::StringMap<const std::string *> resources_;
  std::vector<std::pair<CheckDescription, hlo::Instruction *>> checks_;
  Scope *entryScope_ = nullptr;
  /// `@inputs`, when ConversionOptions::liftInputs lifts its values.
  const Operation *inputsFunction_ = nullptr;
  std::map<std::pair<std::string, std::string>, hlo::Computation *> binaryComputations_;
  int callDepth_ = 0;

  friend class OpContext;
};

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_CONVERTER_H
