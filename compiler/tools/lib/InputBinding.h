//===- InputBinding.h - Match user arrays to entry parameters ---*- C++ -*-===//
///
/// \file
/// Checks that a value read from a .npy file fits an entry parameter and
/// converts it where the .npy format forces a different dtype: a float32
/// array feeds a bf16 parameter (rounded to nearest even), NumPy having no
/// bf16. Everything else must match exactly in element type and dimensions.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_INPUTBINDING_H
#define MOTE_TOOLS_INPUTBINDING_H

#include "hlo/Instruction.h"
#include "hlo/Literal.h"

#include "llvm/Support/Error.h"

namespace mote::tools {

/// "parameter 0 (%x, f32[2,3])": how messages name a parameter.
std::string describeParameter(const hlo::Instruction &parameter);

/// `value` (read from `source`) converted to the type of `parameter` and
/// given its layout, or an error naming the parameter, its expected shape and
/// what the file holds.
llvm::Expected<hlo::Literal> bindInput(hlo::Literal value, const hlo::Instruction &parameter,
                                       llvm::StringRef source);

/// The same for one array of shape `expected` (a leaf of a tuple parameter),
/// named in messages by `description`.
llvm::Expected<hlo::Literal> bindInput(hlo::Literal value, const hlo::Shape &expected,
                                       llvm::StringRef description, llvm::StringRef source);

} // namespace mote::tools

#endif // MOTE_TOOLS_INPUTBINDING_H
