//===- ElementTypes.h - HLO element types as LLVM types ---------*- C++ -*-===//
///
/// \file
/// Every element type has a storage type (how it sits in memory) and a value
/// type (how generated code holds it in registers):
///   pred       storage i8 (0 or 1)   value i1
///   sN / uN    storage iN            value iN (signedness lives in the HLO type)
///   s2 s4 u2 u4 storage i8 (one element a byte, sign- or zero-extended, as
///              the evaluator's literals and .npy files hold them)
///              value iN, so arithmetic wraps at N bits by itself
///   f32 / f64  float / double        same
///   f16 / bf16 storage i16           value i16 (the bits); arithmetic widens to
///                                    f32 and rounds back after every op, as XLA
///                                    does, with the target's conversion
///                                    instructions or integer-only code, so no
///                                    runtime helper is needed.
///   f4, f6, f8 storage and value i8 (the bits); arithmetic widens to f32
///              and rounds back after every op, through tables
///              (NarrowFloats.cpp)
///   c64/c128   storage and value { float, float } / { double, double }:
///              (real, imag), XLA's layout; ComplexOps.h works on the parts.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_ELEMENTTYPES_H
#define MOTE_CODEGEN_ELEMENTTYPES_H

#include "hlo/PrimitiveType.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace mote::codegen {

/// Whether code generation handles arrays of `type`.
bool isCodegenElementType(hlo::PrimitiveType type);

llvm::Type *storageType(llvm::LLVMContext &context, hlo::PrimitiveType type);
llvm::Type *valueType(llvm::LLVMContext &context, hlo::PrimitiveType type);
/// The type arithmetic on `type` runs in: float for f16/bf16 and the narrow
/// floats, else valueType.
llvm::Type *computeType(llvm::LLVMContext &context, hlo::PrimitiveType type);

bool isHalfType(hlo::PrimitiveType type); ///< f16 or bf16
/// f16, bf16, f4, f6 and f8: held as bits, computed in f32.
bool computesInF32(hlo::PrimitiveType type);
/// s2, s4, u2, u4: held in a byte of storage.
bool isSubByteInteger(hlo::PrimitiveType type);

llvm::Value *loadElement(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                         llvm::Value *address);
void storeElement(llvm::IRBuilderBase &builder, hlo::PrimitiveType type, llvm::Value *value,
                  llvm::Value *address);

/// A value of `type` (scalar or vector) widened to its compute type, and
/// back (rounding to nearest even for f16/bf16 and the narrow floats). bf16 widens by a shift and
/// rounds in integer code; f16 converts with the target's instructions in a
/// module marked by markHardwareF16Conversions (one instruction a vector),
/// in integer code otherwise. Both give the same bits.
llvm::Value *toCompute(llvm::IRBuilderBase &builder, hlo::PrimitiveType type, llvm::Value *value);
llvm::Value *fromCompute(llvm::IRBuilderBase &builder, hlo::PrimitiveType type, llvm::Value *value);

/// fromCompute for a `value` that is exactly one of the widened values of
/// `type` (what maximum, minimum and clamp select), the same bits: for
/// bf16 its top half, quieted if a NaN as rounding does, instead of the
/// rounding's integer code (LLVM then selects between the bf16 operands
/// themselves); fromCompute for every other type. `operands` are the bits
/// `value` was selected from: when each is known to hold no signalling NaN
/// (a bf16 rounding's result, a constant) the quieting is left out.
llvm::Value *fromComputeSelected(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                                 llvm::Value *value, llvm::ArrayRef<llvm::Value *> operands = {});

/// `value`, or the constant it loads from a read-only global (a fused
/// constant operand is read from its global).
llvm::Value *foldConstantLoad(llvm::Value *value);
/// Whether `predicate` holds for `constant` (a scalar) or every element of
/// it (a fixed vector).
bool allConstantElements(llvm::Constant *constant,
                         llvm::function_ref<bool(llvm::Constant *)> predicate);

/// Whether the module being built converts f16 with the target's
/// instructions (markHardwareF16Conversions).
bool convertsF16WithInstructions(llvm::IRBuilderBase &builder);
bool convertsF16WithInstructions(const llvm::Module &module);
/// f16 bits of an f32 `value` that is exactly an f16 value (a constant
/// widened at compile time), marked so that toCompute gives `value` back
/// instead of widening the bits; only where convertsF16WithInstructions.
llvm::Value *exactF16Bits(llvm::IRBuilderBase &builder, llvm::Value *value);
/// exactF16Bits for f16; for bf16, the top half of an f32 `value` whose low
/// half is zero (a bf16 value widened at compile time), marked the same way.
llvm::Value *exactHalfBits(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                           llvm::Value *value);

/// f16 bits (i16, scalar or vector) as f32, and f32 rounded to f16 bits:
/// fpext and fptrunc of half when `hardware` (only for targets that have
/// the instructions: elsewhere they become library calls), integer code
/// otherwise.
llvm::Value *widenF16(llvm::IRBuilderBase &builder, llvm::Value *bits, bool hardware);
llvm::Value *narrowToF16(llvm::IRBuilderBase &builder, llvm::Value *value, bool hardware);

/// Marks `module` for elementwise code that converts f16 with instructions
/// (target::convertsHalfElementwise). LLVM narrows fptrunc(fadd(fpext a,
/// fpext b)) and the like to arithmetic on half (exact: f32 holds twice the
/// bits), so this is only for targets whose half vectors LLVM handles well
/// or output/ puts back on f32 vectors.
void markHardwareF16Conversions(llvm::Module &module);

/// The bits of a narrow float (f4, f6, f8) as the f32 they stand for, and an
/// f32 or f64 rounded to the nearest value of the narrow `type` (ties to
/// even, the encoding's overflow), as its bits in an i8 (NarrowFloats.cpp).
llvm::Value *emitNarrowToFloat(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                               llvm::Value *bits);
llvm::Value *emitFloatToNarrow(llvm::IRBuilderBase &builder, hlo::PrimitiveType type,
                               llvm::Value *value);

/// The constant 0 / 1 of `type` as a value.
llvm::Value *zeroValue(llvm::IRBuilderBase &builder, hlo::PrimitiveType type);

/// One element of a literal (its storage bytes, little-endian) as a
/// constant of the value type.
llvm::Constant *constantElement(llvm::LLVMContext &context, hlo::PrimitiveType type,
                                llvm::ArrayRef<uint8_t> bytes);

} // namespace mote::codegen

#endif // MOTE_CODEGEN_ELEMENTTYPES_H
