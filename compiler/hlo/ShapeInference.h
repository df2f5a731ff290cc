//===- ShapeInference.h - Result shapes of HLO ops --------------*- C++ -*-===//
///
/// \file
/// Computes an instruction's result shape from its operands' shapes, its
/// attributes and its called computations, following XLA's operation
/// semantics, and says precisely what is wrong when they do not fit.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_SHAPEINFERENCE_H
#define MOTE_HLO_SHAPEINFERENCE_H

#include "hlo/Instruction.h"

#include "llvm/Support/Error.h"

namespace mote::hlo {

/// The result shape `instruction` must have (layouts not included). Where the
/// operands do not determine the element type (convert, bitcast-convert, dot
/// and convolution with a preferred type, iota, rng, constant, parameter,
/// custom-call, ...) the element type (or whole shape) is taken from
/// `instruction.shape()` when it is valid, and otherwise a sensible default is
/// used or a LocatedError asks for an explicit shape. Errors are located at the
/// instruction and say what was expected.
llvm::Expected<Shape> inferShape(const Instruction &instruction);

} // namespace mote::hlo

#endif // MOTE_HLO_SHAPEINFERENCE_H
