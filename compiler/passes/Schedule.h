//===- Schedule.h - The order instructions run in ---------------*- C++ -*-===//
///
/// \file
/// A sequential schedule: for every computation that runs as code with
/// buffers (the entry, while bodies and conditions, conditional branches),
/// the order its instructions execute in. Code generation emits instructions
/// in this order; buffer assignment computes liveness over it.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_PASSES_SCHEDULE_H
#define MOTE_PASSES_SCHEDULE_H

#include "hlo/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace mote::passes {

class Schedule {
public:
  /// The execution order of `computation`'s instructions (every instruction
  /// appears once; operands before users). Empty for computations that run
  /// as scalar code.
  llvm::ArrayRef<const hlo::Instruction *> order(const hlo::Computation *computation) const;
  void setOrder(const hlo::Computation *computation,
                std::vector<const hlo::Instruction *> order);
  bool has(const hlo::Computation *computation) const { return orders_.count(computation); }

private:
  llvm::DenseMap<const hlo::Computation *, std::vector<const hlo::Instruction *>> orders_;
};

/// Orders every buffer-owning computation of `module`: a post-order from the
/// root that runs operands in a way that keeps fewer bytes live (largest
/// subtree first), and keeps instructions unreachable from the root out.
Schedule scheduleModule(const hlo::Module &module);

} // namespace mote::passes

#endif // MOTE_PASSES_SCHEDULE_H
