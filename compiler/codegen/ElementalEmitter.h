//===- ElementalEmitter.h - Index -> value generators for HLO ops -*- C++ -*-===//
///
/// \file
/// The elemental emitter computes one element of an instruction's result at a
/// given index, asking a reader for the operand elements it needs. Reading
/// operands through a callback is what lets the same code run an op against
/// buffers (one loop per instruction), against scalars (reducers and other
/// computations applied per element), and later fused into its consumer.
///
/// Ops covered: every elementwise op (on complex values those of
/// ComplexOps.h, with real, imag and complex), and the ops whose element is a function
/// of operand elements at computed indices: broadcast, reshape, bitcast,
/// transpose, copy, slice, dynamic-slice, pad, concatenate, reverse, iota,
/// gather, select, clamp, dot, convolution, reduce and reduce-window with one
/// result, map. Reductions loop inside the generator, in the order the
/// reference evaluator uses, so float results match it exactly.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_ELEMENTALEMITTER_H
#define MOTE_CODEGEN_ELEMENTALEMITTER_H

#include "eval/Evaluator.h"
#include "eval/HalfReduction.h"
#include "hlo/Computation.h"
#include "hlo/Instruction.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>
#include <string>

namespace mote::codegen {

using IndexRef = llvm::ArrayRef<llvm::Value *>;
using ValueList = llvm::SmallVector<llvm::Value *, 2>;

/// The end of a quantized rescale, convert(clamp(lo, add(round-nearest-even(m),
/// zp), hi)) to an integer narrower than 32 bits with m never NaN, which
/// QuantizedEpilogue.cpp computes in integers once m is rounded.
struct Requantization {
  const hlo::Instruction *round = nullptr; ///< the round-nearest-even
  int64_t zero = 0, low = 0, high = 0;
};
/// `resolve` maps a fused computation's parameter to the value it stands
/// for (the fusion's operand), other instructions to themselves.
using InstructionResolver = llvm::function_ref<const hlo::Instruction &(const hlo::Instruction &)>;
std::optional<Requantization> matchRequantization(const hlo::Instruction &convert,
                                                  InstructionResolver resolve);
/// Whether code for `triple` takes that path (AArch64 and Arm).
bool roundsInIntegers(const llvm::Triple &triple);

class ElementalEmitter {
public:
  /// Returns the element of `operand`'s (array) value at `index` (one value
  /// per dimension, of the index type), as a value type (ElementTypes.h).
  using OperandReader =
      llvm::function_ref<llvm::Value *(const hlo::Instruction &operand, IndexRef index)>;

  /// Dots and convolutions add their products as `contraction` says.
  ElementalEmitter(llvm::IRBuilderBase &builder, llvm::Type *indexType, OperandReader read,
                   eval::ContractionArithmetic contraction)
      : builder_(builder), indexType_(indexType), read_(read), contraction_(contraction) {}

  /// The element of `instruction`'s result at `index`. Call only when
  /// isElemental(instruction).
  llvm::Value *emit(const hlo::Instruction &instruction, IndexRef index);

  /// Runs `computation` (all scalar values) on `arguments`, one value per
  /// parameter leaf; returns the root's leaves. Used for reducers, map, sort
  /// comparators and scatter combiners.
  ValueList emitScalarComputation(const hlo::Computation &computation,
                                  llvm::ArrayRef<llvm::Value *> arguments);

  llvm::IRBuilderBase &builder() { return builder_; }
  llvm::Type *indexType() const { return indexType_; }
  /// The fusion whose computation the emitted instructions belong to, so
  /// analyses of operands see through its parameters.
  void setFusion(const hlo::Instruction *fusion) { fusion_ = fusion; }
  llvm::Value *indexConstant(int64_t value) const {
    return llvm::ConstantInt::get(indexType_, value);
  }

private:
  llvm::Value *emitUnary(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitBinary(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitCompare(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitComplexParts(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitConvert(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitRequantization(const Requantization &match, const hlo::Instruction &convert,
                                  IndexRef index);
  llvm::Value *emitBitcastConvert(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitReducePrecision(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitSelectOrClamp(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitDataMovement(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitPad(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitConcatenate(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitDynamicSlice(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitIota(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitGather(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitDot(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitReduce(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitReduceWindow(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitConvolution(const hlo::Instruction &instruction, IndexRef index);
  llvm::Value *emitMap(const hlo::Instruction &instruction, IndexRef index);

  /// Operand `i` of `instruction` at `index`.
  llvm::Value *operandAt(const hlo::Instruction &instruction, size_t i, IndexRef index) {
    return read_(*instruction.operand(i), index);
  }
  /// A scalar index operand (s32/u32/s64...) clamped into [0, limit] as
  /// dynamic-slice and friends define.
  llvm::Value *clampedStart(const hlo::Instruction &indexOperand, llvm::Value *limit);

  llvm::IRBuilderBase &builder_;
  llvm::Type *indexType_;
  OperandReader read_;
  eval::ContractionArithmetic contraction_;
  const hlo::Instruction *fusion_ = nullptr;
};

/// The fold of one reduce or reduce-window with one result, acc =
/// to_apply(acc, x): in the element type, or in f32 for the f16/bf16
/// reductions that accumulate there (eval/HalfReduction.h).
class ReductionFold {
public:
  /// `init` is the init value as a value of the element type.
  ReductionFold(ElementalEmitter &elemental, const hlo::Instruction &reduction, llvm::Value *init);

  /// The accumulator's first value and type.
  llvm::Value *initial() const { return initial_; }
  llvm::Type *accumulatorType() const { return initial_->getType(); }
  /// The accumulator after folding in `element` (a value of the element type).
  llvm::Value *step(llvm::Value *accumulator, llvm::Value *element);
  /// Whether the fold runs in f32 over widened f16 or bf16 elements.
  bool foldsWidened() const { return widened_.has_value(); }
  /// `element` as the fold reads it (widened to f32 when foldsWidened()).
  llvm::Value *widen(llvm::Value *element);
  /// step() for an element already widened.
  llvm::Value *stepWidened(llvm::Value *accumulator, llvm::Value *widened);
  /// The final accumulator as a value of the result's element type.
  llvm::Value *result(llvm::Value *accumulator);

private:
  ElementalEmitter &elemental_;
  const hlo::Instruction &reduction_;
  hlo::PrimitiveType type_;
  std::optional<eval::ScalarBinary> widened_;
  llvm::Value *initial_;
};

/// The bits bitcast-convert reinterprets: the logical width, except that
/// pred counts as its byte.
int bitcastWidth(hlo::PrimitiveType type);

/// Whether every array leaf of `instruction`'s result and operands has an
/// element type code generation handles; if not, `why` names the shape.
bool hasCodegenTypes(const hlo::Instruction &instruction, std::string *why);

/// Whether ElementalEmitter::emit handles `instruction`; if not, `why` says
/// what is missing.
bool isElemental(const hlo::Instruction &instruction, std::string *why = nullptr);

/// Scalar arithmetic shared by the generators: `opcode` applied to values of
/// HLO element type `type` (value types; f16/bf16 round after the op).
llvm::Value *emitUnaryOp(llvm::IRBuilderBase &builder, hlo::Opcode opcode, hlo::PrimitiveType type,
                         llvm::Value *operand);
llvm::Value *emitBinaryOp(llvm::IRBuilderBase &builder, hlo::Opcode opcode, hlo::PrimitiveType type,
                          llvm::Value *lhs, llvm::Value *rhs);
/// `inRange`: the value is NaN or within the range of `to` already (a clamp
/// to constant bounds inside it), so a float -> integer conversion need not
/// clamp it again.
llvm::Value *emitConvertOp(llvm::IRBuilderBase &builder, hlo::PrimitiveType from,
                           hlo::PrimitiveType to, llvm::Value *value, bool inRange = false);

/// The value of `instruction` if it is a scalar constant, or a broadcast of
/// one (a clamp's bounds, a quantized model's zero point).
std::optional<double> scalarConstantValue(const hlo::Instruction &instruction);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_ELEMENTALEMITTER_H
