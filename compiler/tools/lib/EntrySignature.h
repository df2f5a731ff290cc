//===- EntrySignature.h - Named leaves of parameters and results -*- C++ -*-===//
///
/// \file
/// What a caller passes and gets back, as flat lists of arrays: tuples are
/// flattened in order, and each leaf gets a name a user can recognise in the
/// HLO text (`%param{1}` for a tuple parameter's leaf, the defining
/// instruction's name for a leaf of a `tuple` root).
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_ENTRYSIGNATURE_H
#define MOTE_TOOLS_ENTRYSIGNATURE_H

#include "hlo/Computation.h"

#include <string>
#include <vector>

namespace mote::tools {

struct NamedLeaf {
  std::string name; ///< e.g. "%Arg_0.1", "%p{1,0}"
  hlo::Shape shape;
};

/// The leaves of the parameters, in parameter order.
std::vector<NamedLeaf> parameterLeaves(const hlo::Computation &computation);
/// The leaves of the root's shape, in flattened tuple order.
std::vector<NamedLeaf> resultLeaves(const hlo::Computation &computation);

} // namespace mote::tools

#endif // MOTE_TOOLS_ENTRYSIGNATURE_H
