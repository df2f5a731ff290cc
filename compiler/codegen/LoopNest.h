//===- LoopNest.h - Counted loops over index spaces -------------*- C++ -*-===//
#ifndef MOTE_CODEGEN_LOOPNEST_H
#define MOTE_CODEGEN_LOOPNEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// Emits `for (i = 0; i < count; ++i) body(i)` at the builder's position and
/// leaves the builder after the loop. `count` may be a run-time value. A
/// `vectorWidth` above 1 asks the loop vectorizer for that many elements a
/// step (llvm.loop.vectorize.width) instead of its cost model's choice.
void emitCountedLoop(llvm::IRBuilderBase &builder, llvm::Value *count,
                     llvm::function_ref<void(llvm::Value *index)> body,
                     const llvm::Twine &name = "i", unsigned vectorWidth = 0);

/// Emits `if (condition) body();` at the builder's position and leaves the
/// builder after it.
void emitIfThen(llvm::IRBuilderBase &builder, llvm::Value *condition,
                llvm::function_ref<void()> body, const llvm::Twine &name = "if");

/// `index` * `scale` for an index of `index`'s type, folding scales of 0
/// and 1 away (strides of directions an array does not move along).
llvm::Value *emitScaledIndex(llvm::IRBuilderBase &builder, llvm::Value *index, int64_t scale);

/// A run-time range [begin, end) of a loop's indices.
struct LoopRange {
  llvm::Value *begin;
  llvm::Value *end;
};

/// Nested loops over `dims` (outermost first), calling body with one index
/// value per dimension (row-major: the last dimension varies fastest). A
/// rank-0 space runs body once with no indices; a zero-size space never.
/// With `outerRange`, the outermost loop runs over that range only (the
/// loop of the first dimension whose size is not 1; see outermostExtent).
void emitLoopNest(llvm::IRBuilderBase &builder, llvm::Type *indexType, llvm::ArrayRef<int64_t> dims,
                  llvm::function_ref<void(llvm::ArrayRef<llvm::Value *> index)> body,
                  const llvm::Twine &name = "d", const LoopRange *outerRange = nullptr);

/// The size of the dimension emitLoopNest's `outerRange` applies to.
int64_t outermostExtent(llvm::ArrayRef<int64_t> dims);

/// The row-major linear offset of `index` in an array of `dims`.
llvm::Value *emitLinearIndex(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                             llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<llvm::Value *> index);

/// The multi-dimensional index of `linear` in an array of `dims` (row-major).
llvm::SmallVector<llvm::Value *, 4> emitDelinearize(llvm::IRBuilderBase &builder,
                                                    llvm::Type *indexType,
                                                    llvm::ArrayRef<int64_t> dims,
                                                    llvm::Value *linear);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_LOOPNEST_H
