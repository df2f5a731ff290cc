//===- Instruction.h - One HLO instruction ----------------------*- C++ -*-===//
#ifndef MOTE_HLO_INSTRUCTION_H
#define MOTE_HLO_INSTRUCTION_H

#include "hlo/Attributes.h"
#include "hlo/Opcode.h"
#include "hlo/Shape.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/SMLoc.h"

#include <string>

namespace mote::hlo {

class Computation;

/// An HLO instruction: `%name = shape opcode(operands), attributes`.
/// Owned by its Computation; operands and called computations are non-owning.
class Instruction {
public:
  Instruction(Opcode opcode, std::string name, Shape shape)
      : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}

  Opcode opcode() const { return opcode_; }
  llvm::StringRef name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  /// The result shape. Invalid only transiently, while the parser infers the
  /// shape of an instruction written without one.
  const Shape &shape() const { return shape_; }
  Shape &mutableShape() { return shape_; }
  void setShape(Shape shape) { shape_ = std::move(shape); }

  llvm::ArrayRef<Instruction *> operands() const { return operands_; }
  Instruction *operand(size_t i) const { return operands_[i]; }
  size_t operandCount() const { return operands_.size(); }
  void addOperand(Instruction *operand) { operands_.push_back(operand); }
  void setOperand(size_t i, Instruction *operand) { operands_[i] = operand; }
  void clearOperands() { operands_.clear(); }

  /// Computations this instruction runs, in a fixed order per opcode:
  ///   reduce, reduce-window, map, scatter, sort, call, all-reduce: {to_apply}
  ///   select-and-scatter: {select, scatter}
  ///   while: {condition, body}
  ///   conditional: the branches (for a pred selector {true, false})
  ///   fusion: {calls}; custom-call: whatever `called_computations`/`to_apply` name.
  llvm::ArrayRef<Computation *> calledComputations() const { return called_; }
  Computation *calledComputation(size_t i) const { return called_[i]; }
  void addCalledComputation(Computation *computation) { called_.push_back(computation); }
  void setCalledComputation(size_t i, Computation *computation) { called_[i] = computation; }

  const InstructionAttributes &attributes() const { return attributes_; }
  InstructionAttributes &mutableAttributes() { return attributes_; }

  /// A constant's value; null for any other instruction and for a constant
  /// whose value the dumper elided (`{...}`): the file does not hold it.
  const Literal *constantValue() const {
    if (opcode_ != Opcode::Constant || !attributes_.literal || attributes_.literalElided)
      return nullptr;
    return &*attributes_.literal;
  }

  Computation *parent() const { return parent_; }
  void setParent(Computation *parent) { parent_ = parent; }

  /// Where the instruction starts in the source text (invalid if built in code).
  llvm::SMLoc location() const { return location_; }
  void setLocation(llvm::SMLoc location) { location_ = location; }

private:
  Opcode opcode_;
  std::string name_;
  Shape shape_;
  llvm::SmallVector<Instruction *, 3> operands_;
  llvm::SmallVector<Computation *, 1> called_;
  InstructionAttributes attributes_;
  Computation *parent_ = nullptr;
  llvm::SMLoc location_;
};

} // namespace mote::hlo

#endif // MOTE_HLO_INSTRUCTION_H
