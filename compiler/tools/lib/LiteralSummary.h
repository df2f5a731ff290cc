//===- LiteralSummary.h - Print values, summarising large ones --*- C++ -*-===//
///
/// \file
/// Prints a Literal in HLO literal syntax, as Literal::toString does, but
/// shortens large arrays the way NumPy does: along each dimension longer than
/// 2 * edgeItems only the first and last edgeItems entries appear, with "..."
/// between, and a trailing comment gives the element count.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_LITERALSUMMARY_H
#define MOTE_TOOLS_LITERALSUMMARY_H

#include "hlo/Literal.h"

#include <cstdint>
#include <string>

namespace mote::tools {

struct LiteralPrintOptions {
  /// Print every element, however many.
  bool full = false;
  /// Arrays with more elements than this are summarised (NumPy's default).
  int64_t threshold = 1000;
  /// Entries kept at each end of a summarised dimension.
  int64_t edgeItems = 3;
};

/// `f32[2,2] {{1, 2}, {3, 4}}`; a large array as
/// `f32[1000] {0.5, 0.25, 1, ..., 2, 3, 4} /*1000 elements*/`.
std::string formatLiteral(const hlo::Literal &literal, const LiteralPrintOptions &options = {});

} // namespace mote::tools

#endif // MOTE_TOOLS_LITERALSUMMARY_H
