//===- ShapeInferenceRules.h - Per-op-family shape rules --------*- C++ -*-===//
///
/// \file
/// Internal to shape inference: the context every rule works with and the
/// per-family entry points that ShapeInference.cpp dispatches to. Not part of
/// the public API; include ShapeInference.h instead.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_SHAPEINFERENCERULES_H
#define MOTE_HLO_SHAPEINFERENCERULES_H

#include "hlo/Computation.h"
#include "hlo/Instruction.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mote::hlo::inference {

/// The instruction whose shape is inferred. Errors made here are located at it
/// and start with its opcode, e.g. "in %dot.1: dot: ...".
class OpContext {
public:
  explicit OpContext(const Instruction &instruction) : instruction_(instruction) {}

  const Instruction &instruction() const { return instruction_; }
  const InstructionAttributes &attributes() const { return instruction_.attributes(); }
  llvm::StringRef opName() const { return opcodeName(instruction_.opcode()); }

  llvm::Error error(const llvm::Twine &message) const;

  size_t operandCount() const { return instruction_.operandCount(); }
  const Shape &operand(size_t i) const { return instruction_.operand(i)->shape(); }

  llvm::Error expectOperandCount(size_t expected) const;
  llvm::Error expectOperandCountAtLeast(size_t minimum) const;
  /// Operand `i` must be an array; `role` names it in the message ("lhs").
  llvm::Error expectArray(size_t i, llvm::StringRef role) const;

  /// The declared shape when the text had one, else nullptr.
  const Shape *declared() const {
    return instruction_.shape().isValid() ? &instruction_.shape() : nullptr;
  }
  /// The declared shape, or an error saying this op needs one.
  llvm::Expected<Shape> requireDeclared(llvm::StringRef why) const;
  /// The declared element type, or an error saying the op needs one.
  llvm::Expected<PrimitiveType> requireDeclaredArrayType() const;

  /// Signature of called computation `index`: its parameters and root shape.
  /// `role` names it in errors ("to_apply", "condition").
  llvm::Expected<ProgramShape> callee(size_t index, llvm::StringRef role) const;
  llvm::Error expectCalleeCount(size_t expected) const;

private:
  const Instruction &instruction_;
};

// Small shape helpers shared by the rule files.
std::string dimsToString(llvm::ArrayRef<int64_t> dims);
/// `shape` with every layout removed (inferred shapes carry none).
Shape withoutLayout(const Shape &shape);
/// XLA's "same element type ignoring floating-point precision".
bool sameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b);
/// The more precise of two element types, ranked as XLA ranks them.
PrimitiveType higherPrecisionType(PrimitiveType a, PrimitiveType b);
bool sameDims(const Shape &a, const Shape &b);
/// Shapes equal ignoring layouts and fp precision (recursively).
bool compatibleIgnoringFpPrecision(const Shape &a, const Shape &b);
/// True when `values` holds each number at most once.
bool allDistinct(llvm::ArrayRef<int64_t> values);
/// True when every value lies in [0, bound).
bool allInRange(llvm::ArrayRef<int64_t> values, int64_t bound);
/// a + b and a * b, or std::nullopt when the result would not fit in int64_t
/// (hostile attribute values must not overflow).
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// The output of a window op over `base`: per dimension
/// floor((pad_lo + dilate(base) + pad_hi - dilate(window)) / stride) + 1.
llvm::Expected<Shape> windowOutputShape(const OpContext &op, const Shape &base,
                                        const Window &window, PrimitiveType type);

/// Checks a reducer: 2N scalar parameters (N accumulators then N inputs)
/// returning one scalar (N = 1) or an N-tuple of scalars, with accumulators
/// matching `initShapes` and inputs `inputTypes` (fp precision aside).
llvm::Error checkReducer(const OpContext &op, const ProgramShape &reducer,
                         llvm::ArrayRef<const Shape *> initShapes,
                         llvm::ArrayRef<PrimitiveType> inputTypes, llvm::StringRef role);

// Rule families (one file each).
llvm::Expected<Shape> inferElementwise(const OpContext &op);   // ShapeInferenceElementwise.cpp
llvm::Expected<Shape> inferDataMovement(const OpContext &op);  // ShapeInferenceDataMovement.cpp
llvm::Expected<Shape> inferGatherScatter(const OpContext &op); // ShapeInferenceGatherScatter.cpp
llvm::Expected<Shape> inferContraction(const OpContext &op);   // ShapeInferenceContraction.cpp
llvm::Expected<Shape> inferReduction(const OpContext &op);     // ShapeInferenceReduction.cpp
llvm::Expected<Shape> inferControlFlow(const OpContext &op);   // ShapeInferenceControlFlow.cpp
llvm::Expected<Shape> inferLinearAlgebra(const OpContext &op); // ShapeInferenceLinearAlgebra.cpp

} // namespace mote::hlo::inference

#endif // MOTE_HLO_SHAPEINFERENCERULES_H
