//===- AssignmentChecker.h - Validates any buffer assignment ----*- C++ -*-===//
///
/// \file
/// Recomputes each value's live interval from the schedule on its own (no
/// aliasing, no sets) and checks the plan against it: every scheduled array
/// leaf has a slice; arena slices are aligned, inside the arena and inside
/// their buffer; each value's own interval lies within its buffer's; buffers
/// whose intervals overlap never share a byte. Returns "" when all holds.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TESTS_UNIT_PASSES_ASSIGNMENTCHECKER_H
#define MOTE_TESTS_UNIT_PASSES_ASSIGNMENTCHECKER_H

#include "passes/BufferAssignment.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <sstream>
#include <string>

namespace mote::passes::test {

class AssignmentChecker {
public:
  AssignmentChecker(const hlo::Module &module, const Schedule &schedule,
                    const BufferAssignment &assignment)
      : module_(module), schedule_(schedule), assignment_(assignment) {}

  std::string check() {
    walk(*module_.entry());
    uint32_t final = next_++;
    extend(module_.entry()->root(), final);
    for (const hlo::Instruction *instruction : scheduled_)
      for (const hlo::Instruction *operand : instruction->operands())
        extend(operand, use_[instruction]);
    for (auto [instruction, end] : forced_)
      extend(instruction, end);

    llvm::DenseMap<std::pair<const hlo::Instruction *, uint32_t>, const ArenaBuffer *> bufferOf;
    uint32_t alignment = assignment_.alignment();
    for (const ArenaBuffer &buffer : assignment_.buffers()) {
      // Buffers of four vectors or more are vector aligned; every buffer is
      // aligned for the elements it holds.
      if (buffer.size >= 4 * alignment && buffer.offset % alignment)
        fail() << "buffer at " << buffer.offset << " is not aligned to " << alignment;
      for (const auto &[instruction, leaf] : buffer.values) {
        llvm::SmallVector<const hlo::Shape *, 4> leaves;
        instruction->shape().collectLeaves(leaves);
        if (leaf < leaves.size() && leaves[leaf]->isArray() &&
            buffer.offset % hlo::storageBytes(leaves[leaf]->elementType()))
          fail() << "buffer at " << buffer.offset << " is misaligned for %"
                 << instruction->name().str();
      }
      if (buffer.offset + buffer.size > assignment_.arenaSize())
        fail() << "buffer at " << buffer.offset << " ends past the arena";
      for (const auto &value : buffer.values)
        bufferOf[value] = &buffer;
    }
    for (const hlo::Instruction *instruction : scheduled_) {
      llvm::SmallVector<const hlo::Shape *, 4> leaves;
      instruction->shape().collectLeaves(leaves);
      for (uint32_t leaf = 0; leaf < leaves.size(); ++leaf) {
        if (!leaves[leaf]->isArray())
          continue;
        if (!assignment_.hasSlice(instruction, leaf)) {
          fail() << "%" << instruction->name().str() << "#" << leaf << " has no slice";
          continue;
        }
        const BufferSlice &slice = assignment_.slice(instruction, leaf);
        auto [start, end] = interval_[{instruction, leaf}];
        if (slice.kind != BufferSlice::Kind::Arena)
          continue;
        const ArenaBuffer *buffer = bufferOf.lookup({instruction, leaf});
        if (!buffer) {
          fail() << "%" << instruction->name().str() << " is in no arena buffer";
          continue;
        }
        if (slice.offset != buffer->offset || slice.size > buffer->size)
          fail() << "%" << instruction->name().str() << " is not where its buffer is";
        if (start < buffer->start || end > buffer->end)
          fail() << "%" << instruction->name().str() << " lives " << start << ".." << end
                 << " outside its buffer's " << buffer->start << ".." << buffer->end;
      }
    }
    const auto &buffers = assignment_.buffers();
    for (size_t i = 0; i < buffers.size(); ++i)
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const ArenaBuffer &a = buffers[i], &b = buffers[j];
        bool timeOverlap = a.start <= b.end && b.start <= a.end;
        bool memoryOverlap = a.offset < b.offset + b.size && b.offset < a.offset + a.size;
        if (timeOverlap && memoryOverlap && a.size && b.size)
          fail() << "buffers of %" << a.values.front().first->name().str() << " and %"
                 << b.values.front().first->name().str() << " overlap while both live";
      }
    if (assignment_.arenaSize() < assignment_.lowerBound())
      fail() << "arena smaller than the lower bound";
    return errors_.str();
  }

private:
  std::ostringstream &fail() {
    errors_ << "\n  ";
    return errors_;
  }

  void define(const hlo::Instruction *instruction, uint32_t def, uint32_t use) {
    scheduled_.push_back(instruction);
    use_[instruction] = use;
    llvm::SmallVector<const hlo::Shape *, 4> leaves;
    instruction->shape().collectLeaves(leaves);
    for (uint32_t leaf = 0; leaf < leaves.size(); ++leaf)
      interval_[{instruction, leaf}] = {def, def};
  }

  void extend(const hlo::Instruction *instruction, uint32_t end) {
    for (uint32_t leaf = 0;; ++leaf) {
      auto it = interval_.find({instruction, leaf});
      if (it == interval_.end())
        return;
      it->second.second = std::max(it->second.second, end);
    }
  }

  void walk(const hlo::Computation &computation) {
    for (const hlo::Instruction *instruction : schedule_.order(&computation)) {
      auto called = instruction->calledComputations();
      if (instruction->opcode() == hlo::Opcode::While) {
        uint32_t start = next_++;
        define(instruction, start, start);
        walk(*called[0]);
        forced_.push_back({called[0]->root(), next_++});
        walk(*called[1]);
        uint32_t end = next_++;
        forced_.push_back({called[1]->root(), end});
        forced_.push_back({instruction, end});
      } else if (instruction->opcode() == hlo::Opcode::Conditional) {
        uint32_t start = next_++;
        define(instruction, start, start);
        for (const hlo::Computation *branch : called) {
          walk(*branch);
          forced_.push_back({branch->root(), next_++});
        }
        use_[instruction] = next_ - 1;
        forced_.push_back({instruction, next_ - 1});
      } else {
        uint32_t position = next_++;
        define(instruction, position, position);
      }
    }
  }

  const hlo::Module &module_;
  const Schedule &schedule_;
  const BufferAssignment &assignment_;
  uint32_t next_ = 0;
  std::vector<const hlo::Instruction *> scheduled_;
  llvm::DenseMap<const hlo::Instruction *, uint32_t> use_;
  llvm::DenseMap<std::pair<const hlo::Instruction *, uint32_t>, std::pair<uint32_t, uint32_t>>
      interval_;
  std::vector<std::pair<const hlo::Instruction *, uint32_t>> forced_;
  std::ostringstream errors_;
};

inline std::string checkAssignment(const hlo::Module &module, const Schedule &schedule,
                                   const BufferAssignment &assignment) {
  return AssignmentChecker(module, schedule, assignment).check();
}

} // namespace mote::passes::test

#endif // MOTE_TESTS_UNIT_PASSES_ASSIGNMENTCHECKER_H
