//===- IntegerContraction.h - Tiled integer dots and convolutions -*- C++ -*-===//
///
/// \file
/// Internal to code generation: the kernels of integer contractions (8-, 16-
/// or 32-bit operands and results in any signedness mix, sums in s32), a
/// quantized model's dots and convolutions. The sums wrap modulo 2^32 like
/// the evaluator's, so every order of the products gives the same bits: the
/// kernels are free to add several products per instruction.
///
/// The model. A tile is MR rows x a few vectors of L s32 sums (columns), kept
/// in registers for the whole contracting loop, as for floats
/// (ContractionTiling.h chooses the shape). Each step of the loop consumes
/// a group of G consecutive values of the innermost contracting dimension,
/// and one instruction adds G products into each of the L lanes (the
/// IntegerDotForm):
///
///   form            L       G   instruction
///   x86 VNNI        16/8/4  4   vpdpbusd (u8 x s8)
///   x86 SSE2..BW    16/8/4  2   vpmaddwd on operands sign- or zero-extended to s16
///   AArch64 i8mm    2x2     8   smmla / ummla / usmmla: a pair of rows by a
///                               pair of columns (below)
///   AArch64 dotprod 4       4   sdot / udot (usdot with +i8mm)
///   AArch64 NEON    4       2   smull + sadalp (8-bit x 8-bit into s16 is exact)
///   AArch64 NEON    1       16  smull + smlal2 + sadalp into four partial sums
///                               a column, added up at the end, four columns
///                               by two rounds of addp (smull2 and a second
///                               sadalp where the weights hold -128; a last
///                               group of 8 takes half the instructions)
///   Cortex-M DSP    1       4   sxtb16 / uxtb16 + 2 x smlad
///   Cortex-M55 MVE  1       16  vmladava (16 products into one s32)
///   widening        any     1   products widened to s32 (LLVM picks the
///                               instructions: vwmul/vwadd on RISC-V V,
///                               smull/saddw on NEON, scalar on RV32; on
///                               AArch64 two indices' s8 products add in 16
///                               bits first, smlal, where the weights are
///                               free of -128)
///
/// A grouped form (G > 1) reads, for each row, G consecutive lhs values as
/// one scalar and broadcasts it (L = 1: as a vector of G), and for each
/// vector of columns the G values of each column next to each other. The
/// rhs is therefore laid out at compile time, as
///   packed[outer k][group][column][G]   (zeros past the end of the group)
/// which needs the rhs to be a constant (weights), shared by every row and
/// outer index, and the lhs contiguous along the innermost contracting
/// dimension. The last group of a dimension whose size G does not divide
/// reads only the lhs values that exist.
///
/// The matrix form (AArch64 +i8mm, tiles of two rows or more) multiplies
/// a 2x8 block of the lhs (two rows' groups, one register) by an 8x2 block
/// of the rhs (two columns' groups, next to each other in the layout above)
/// into four sums [r0c0 r0c1 r1c0 r1c1]: 32 products an instruction where
/// sdot does 16. Its sums are kept per row pair and column pair, and each
/// row's are picked out of them when the tile is stored. A tile's odd last
/// row pairs with a copy of itself, an odd last column with zeros; their
/// sums are dropped.
///
/// Where the instruction wants other signedness than the operands have
/// (vpdpbusd multiplies u8 by s8, sdot s8 by s8), the kernel flips the lhs's
/// top bit, which turns an s8 value v into the u8 value v + 128 (and a u8
/// value into v - 128): each sum then gains 128 (or -128) times the sum of
/// its column's rhs values, which the tile's sums start from the negation
/// of (a constant per column, computed with the packing). Exact, like
/// every other s32 sum here.
///
/// Everything else, a depthwise convolution (lhs and rhs both move along the
/// columns), an rhs that is not a constant, 16- and 32-bit operands, takes
/// the widening form, tiled the same way.
///
/// With an output fusion, each tile's sums go to a small s32 buffer (one
/// tile) and the fusion's elementwise code (a quantized model's rescale,
/// round, zero point, clamp and convert to s8) writes the result from it,
/// row by row, so the contraction's s32 result never exists in the arena.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_INTEGERCONTRACTION_H
#define MOTE_CODEGEN_INTEGERCONTRACTION_H

#include "codegen/ContractionKernel.h"
#include "codegen/ContractionTiling.h"

namespace mote::codegen {

/// How one step of an integer tile adds its products (see the table above).
enum class IntegerDotForm {
  Widening,
  X86Vnni,
  X86MaddWords,
  ArmDot,
  ArmMatrix,
  ArmMultiplyPairs,
  ArmPartialSums,
  ArmDsp,
  MveReduce,
};

/// The form's name, for reports and tests ("x86-vnni", ...).
llvm::StringRef integerDotFormName(IntegerDotForm form);

/// Whether `plan` sums integers (its type is s32).
bool isIntegerContraction(const ContractionPlan &plan);

/// The form `plan` is computed with for the target (`spec` may be null:
/// the triple's baseline).
IntegerDotForm chooseIntegerDotForm(const ContractionPlan &plan, const llvm::Triple &triple,
                                    const target::TargetSpec *spec);

/// The tiling of an integer plan (what chooseContractionTiling returns for
/// one).
ContractionTiling chooseIntegerTiling(const ContractionPlan &plan, const llvm::Triple &triple,
                                      const target::TargetSpec *spec);

/// Whether both operands of `plan` are rows along the columns (a vector or
/// one value broadcast): the widening form multiplies a whole tile row at
/// once.
bool rowsAlongColumns(const ContractionPlan &plan);

/// emitContraction for an integer plan.
void emitIntegerContraction(llvm::IRBuilderBase &builder, llvm::Type *indexType,
                            const ContractionPlan &plan, const llvm::Triple &triple,
                            const target::TargetSpec *spec, llvm::Value *lhs, llvm::Value *rhs,
                            llvm::Value *out,
                            llvm::function_ref<llvm::AllocaInst *(llvm::Type *)> local,
                            llvm::Value *splitBegin, llvm::Value *splitEnd,
                            ContractionEpilogue epilogue);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_INTEGERCONTRACTION_H
