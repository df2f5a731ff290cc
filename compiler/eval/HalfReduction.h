//===- HalfReduction.h - f16 and bf16 reductions fold in f32 ----*- C++ -*-===//
///
/// \file
/// Which reductions of half-precision values accumulate in f32, shared by
/// the evaluator and code generation so the two fold the same way.
///
/// A reduce of one f16 or bf16 operand whose to_apply is a single add,
/// multiply, maximum or minimum of its two parameters folds in
/// f32: the accumulator starts at the init value widened, every element is
/// widened and folded without rounding, and the result rounds to the element
/// type once, to nearest even. This is what XLA's backends compute for such
/// a reduction: the CPU backend's float normalization runs bf16 arithmetic in
/// f32 (reducers included, and the conversions it inserts between ops are
/// then removed), and both backends sum f16 and bf16 dots and convolutions
/// in f32. Summing 32,768 bf16 values with a bf16 rounding after every add
/// loses everything below the running sum's last bit (XLA's BM_ReduceAddBF16
/// gave 21.75 where the sum is 29.19); in f32 it gives 29.25.
///
/// A reduce-window rounds after every step, as XLA's does: JAX's cumsum of
/// bf16 (reduce_window with add, the StableHLO testdata cumsum_bfloat16_8_9)
/// matches that bit for bit and differs from f32 sums in 17 of 72 values.
/// Maximum and minimum round nothing, so for them only the name changes.
/// Every other reducer (several ops, a variadic reduce such as an argmax,
/// scatter and select-and-scatter combiners) runs as written, each op
/// rounding to its own type.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_HALFREDUCTION_H
#define MOTE_EVAL_HALFREDUCTION_H

#include "hlo/Instruction.h"
#include "hlo/Opcode.h"

#include <optional>

namespace mote::eval {

/// `ROOT r = op(parameter(i), parameter(j))` on two scalars of one type.
struct ScalarBinary {
  hlo::Opcode opcode;
  bool swapped; ///< the root reads parameter(1) first
};

/// The reducer of `reduction` when it is a reduce that folds in
/// f32 as described above; nullopt when it folds in its own type.
std::optional<ScalarBinary> halfReductionInF32(const hlo::Instruction &reduction);

} // namespace mote::eval

#endif // MOTE_EVAL_HALFREDUCTION_H
