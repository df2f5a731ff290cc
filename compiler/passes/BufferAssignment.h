//===- BufferAssignment.h - Where every value lives at run time -*- C++ -*-===//
///
/// \file
/// Buffer assignment decides, at compile time, the memory of every array value
/// a compiled module computes: caller-owned argument and result buffers,
/// read-only constants, or a slice of the one scratch arena. Values are
/// immutable, so instructions that only reinterpret bytes (tuple,
/// get-tuple-element, bitcast, row-major reshape) share their operand's
/// memory, and an instruction may write over an operand that dies at it when
/// its code reads each element before writing the same element (elementwise
/// ops, dynamic-update-slice on operand 0).
///
/// A value is one array leaf of an instruction's result, identified by the
/// instruction and the leaf's position in its flattened shape
/// (Shape::collectLeaves order; 0 for an array).
///
/// Computations run as scalar code (to_apply of reduce, map, sort, scatter,
/// reduce-window, select-and-scatter; fused computations) own no buffers.
/// While bodies and conditions and conditional branches do, and obey these
/// rules, which code generation relies on:
///  - a while's parameter (body and condition) is the while's own buffers;
///    the init operand is copied in before the first iteration and the body
///    root copied in after each iteration, unless a leaf already lives there;
///  - a conditional branch's parameter is the conditional's operand for that
///    branch (read only); the branch root is copied into the conditional's
///    buffers unless a leaf already lives there;
///  - the entry root's leaves are the caller's result buffers; a leaf whose
///    value lives elsewhere (a parameter, a constant, a value used twice in
///    the root) is copied there at the end.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_BUFFERASSIGNMENT_H
#define MOTE_PASSES_BUFFERASSIGNMENT_H

#include "hlo/Module.h"
#include "passes/Schedule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mote::passes {

/// The memory of one array value.
struct BufferSlice {
  enum class Kind : uint8_t {
    Arena,     ///< scratch arena bytes [offset, offset + size)
    Parameter, ///< the caller's argument buffer `index` (flattened leaves)
    Result,    ///< the caller's result buffer `index` (flattened leaves)
    Constant,  ///< the literal of a constant instruction (read-only data)
    Empty,     ///< zero bytes: nothing to read or write
  };
  Kind kind = Kind::Empty;
  uint32_t index = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  /// For Constant: the constant instruction whose literal holds the bytes
  /// (a bitcast of a constant shares it); `index` is the leaf of that
  /// literal (0 unless the constant is a tuple).
  const hlo::Instruction *constant = nullptr;

  bool operator==(const BufferSlice &other) const {
    return kind == other.kind && index == other.index && offset == other.offset &&
           size == other.size && constant == other.constant;
  }
  bool operator!=(const BufferSlice &other) const { return !(*this == other); }
};

struct BufferAssignmentOptions {
  /// Every arena slice starts at a multiple of this (the target's widest
  /// vector, at least 16).
  uint32_t alignment = 16;
};

/// One arena allocation: a set of values sharing memory, and the interval of
/// the flattened schedule during which it must stay intact.
struct ArenaBuffer {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t start = 0; ///< first schedule position (inclusive)
  uint32_t end = 0;   ///< last schedule position (inclusive)
  std::vector<std::pair<const hlo::Instruction *, uint32_t>> values;
};

class BufferAssignment {
public:
  /// Where value (instruction, leaf) lives. Every array leaf of every
  /// instruction in the entry computation and in the computations that own
  /// buffers has a slice.
  const BufferSlice &slice(const hlo::Instruction *instruction, uint32_t leaf = 0) const;
  bool hasSlice(const hlo::Instruction *instruction, uint32_t leaf = 0) const;

  /// Bytes of scratch the module needs, and their alignment.
  uint64_t arenaSize() const { return arenaSize_; }
  uint32_t alignment() const { return alignment_; }
  /// The most bytes live at any one schedule position: no plan can use less.
  uint64_t lowerBound() const { return lowerBound_; }
  const std::vector<ArenaBuffer> &buffers() const { return buffers_; }

  // Filled by assignBuffers (and unit tests that build plans by hand).
  void setSlice(const hlo::Instruction *instruction, uint32_t leaf, BufferSlice slice);
  void setArena(uint64_t size, uint32_t alignment, uint64_t lowerBound) {
    arenaSize_ = size;
    alignment_ = alignment;
    lowerBound_ = lowerBound;
  }
  std::vector<ArenaBuffer> &mutableBuffers() { return buffers_; }

private:
  llvm::DenseMap<std::pair<const hlo::Instruction *, uint32_t>, BufferSlice> slices_;
  std::vector<ArenaBuffer> buffers_;
  uint64_t arenaSize_ = 0;
  uint64_t lowerBound_ = 0;
  uint32_t alignment_ = 16;
};

/// A header line saying what the columns are, then one line per arena
/// buffer (offset, size, live interval, the values in it), each line after
/// `indent`, for `motec report`.
std::string describeArenaBuffers(const BufferAssignment &assignment, llvm::StringRef indent);

/// A summary line (arena, alignment, lower bound) and describeArenaBuffers.
std::string describeBufferAssignment(const BufferAssignment &assignment);

/// How an input_output_alias pair was planned: the flattened result leaf,
/// the parameter, and whether the result is computed in the parameter's
/// memory (else in the arena, copied over the parameter at the end).
struct AliasReport {
  int64_t result = 0;
  int64_t parameter = 0;
  bool mustAlias = false;
  bool inPlace = false;
};
std::vector<AliasReport> describeAliases(const hlo::Module &module,
                                         const BufferAssignment &assignment);

/// Plans the memory of `module` (after the pre-codegen pipeline: calls
/// inlined, fusions formed) over `schedule`.
llvm::Expected<BufferAssignment> assignBuffers(const hlo::Module &module, const Schedule &schedule,
                                               const BufferAssignmentOptions &options);

} // namespace mote::passes

#endif // MOTE_PASSES_BUFFERASSIGNMENT_H
