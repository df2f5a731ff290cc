//===- ReportPictures.h - motec report's pictures of a model ----*- C++ -*-===//
///
/// \file
/// Two pictures `motec report` draws after the pass pipeline.
///
/// The computation graph (--graph): every instruction of the entry
/// computation is a node and every operand an edge, labelled with the
/// value's shape and bytes; a fusion is a cluster holding the instructions
/// it computes in one loop nest, its parameters replaced by edges from the
/// values outside; dots and convolutions, and the fusions built around one,
/// are highlighted, since they do nearly all the arithmetic. Graphviz's `dot`
/// lays it out (a .dot path gets the text itself).
///
/// The memory plan (--memory): the arena over the schedule, written as SVG
/// directly. The x axis is the schedule's steps, the y axis the arena's
/// bytes; each buffer is a bar from the step that writes it to the last
/// that reads it, at its offset and as tall as its size, so bars never
/// overlap. A dashed line marks the lower bound (the most bytes live at
/// once), which no plan can go below; the arena's top is the plan's size.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_REPORTPICTURES_H
#define MOTE_TOOLS_REPORTPICTURES_H

#include "hlo/Module.h"
#include "passes/BufferAssignment.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mote::tools {

/// "128 B", "3.5 KB", "1.2 MB": sizes as the pictures label them.
std::string formatBytes(uint64_t bytes);

/// The entry computation of `module` (after the passes) in Graphviz's DOT.
std::string writeComputationGraph(const hlo::Module &module);

/// Renders DOT text to `path` with Graphviz (`dot -Tsvg`, or -Tpng for a
/// .png path); a .dot path gets the text as it is. An error names the
/// missing program and its Debian package.
llvm::Error writeGraphFile(llvm::StringRef dot, llvm::StringRef path);

/// The memory plan of `module`'s arena as an SVG document.
std::string writeMemoryPlanSvg(const hlo::Module &module,
                               const passes::BufferAssignment &assignment);

} // namespace mote::tools

#endif // MOTE_TOOLS_REPORTPICTURES_H
