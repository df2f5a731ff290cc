//===- Computation.h - A named list of HLO instructions ---------*- C++ -*-===//
#ifndef MOTE_HLO_COMPUTATION_H
#define MOTE_HLO_COMPUTATION_H

#include "hlo/Instruction.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <string>
#include <vector>

namespace mote::hlo {

class Module;

/// A computation owns its instructions, kept in definition (text) order, which
/// is always a valid topological order. The root is the result.
class Computation {
public:
  explicit Computation(std::string name) : name_(std::move(name)) {}

  llvm::StringRef name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  /// Appends an instruction and takes ownership; returns it.
  Instruction *addInstruction(std::unique_ptr<Instruction> instruction);
  /// Removes instructions for which `dead` is true (callers make sure nothing
  /// still uses them).
  template <typename Pred> void removeInstructionsIf(Pred dead) {
    std::erase_if(instructions_, [&](const std::unique_ptr<Instruction> &i) { return dead(*i); });
    rebuildParameterList();
  }

  /// All instructions in definition order.
  const std::vector<std::unique_ptr<Instruction>> &instructions() const { return instructions_; }
  size_t instructionCount() const { return instructions_.size(); }

  Instruction *root() const { return root_; }
  void setRoot(Instruction *root) { root_ = root; }

  /// Parameters indexed by parameter number (a null entry if a number is missing).
  llvm::ArrayRef<Instruction *> parameters() const { return parameters_; }
  Instruction *parameter(size_t number) const { return parameters_[number]; }
  size_t parameterCount() const { return parameters_.size(); }

  /// The instruction called `name`, or nullptr.
  Instruction *findInstruction(llvm::StringRef name) const;

  Module *parent() const { return parent_; }
  void setParent(Module *parent) { parent_ = parent; }

  /// Where `%name (...) -> ... {` starts in the source text.
  llvm::SMLoc location() const { return location_; }
  void setLocation(llvm::SMLoc location) { location_ = location; }

  /// Parameter names/types from the header `%f (a: f32[], b: f32[]) -> f32[]`,
  /// when the text had one (printing repeats it; evaluation ignores it).
  bool hasSignature() const { return hasSignature_; }
  void setHasSignature(bool value) { hasSignature_ = value; }

private:
  void rebuildParameterList();

  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::vector<Instruction *> parameters_;
  Instruction *root_ = nullptr;
  Module *parent_ = nullptr;
  llvm::SMLoc location_;
  bool hasSignature_ = true;
};

} // namespace mote::hlo

#endif // MOTE_HLO_COMPUTATION_H
