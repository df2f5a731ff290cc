//===- BufferAssignmentReport.cpp - The memory plan as text ---------------===//

#include "passes/BufferAssignment.h"

#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace mote::passes {

std::string describeArenaBuffers(const BufferAssignment &assignment, llvm::StringRef indent) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::vector<const ArenaBuffer *> buffers;
  for (const ArenaBuffer &buffer : assignment.buffers())
    buffers.push_back(&buffer);
  std::sort(buffers.begin(), buffers.end(), [](const ArenaBuffer *a, const ArenaBuffer *b) {
    return a->offset != b->offset ? a->offset < b->offset : a->start < b->start;
  });
  os << indent
     << "[    offset,       +size)  live steps     values   (bytes in the arena; steps from "
        "the op that writes it to the last that reads it)\n";
  for (const ArenaBuffer *buffer : buffers) {
    os << indent
       << llvm::format("[%10llu, +%10llu)  %6u..%-6u  ", (unsigned long long)buffer->offset,
                       (unsigned long long)buffer->size, buffer->start, buffer->end);
    for (auto [index, value] : llvm::enumerate(buffer->values)) {
      if (index)
        os << ", ";
      os << '%' << value.first->name();
      if (value.first->shape().isTuple())
        os << '#' << value.second;
    }
    os << '\n';
  }
  return text;
}

std::string describeBufferAssignment(const BufferAssignment &assignment) {
  std::string text;
  llvm::raw_string_ostream os(text);
  uint64_t arena = assignment.arenaSize(), bound = assignment.lowerBound();
  os << "arena " << arena << " bytes (alignment " << assignment.alignment() << "), lower bound "
     << bound << " bytes";
  if (bound)
    os << llvm::format(", ratio %.3f", double(arena) / double(bound));
  os << ", " << assignment.buffers().size() << " buffers\n";
  os << describeArenaBuffers(assignment, "  ");
  return text;
}

std::vector<AliasReport> describeAliases(const hlo::Module &module,
                                         const BufferAssignment &assignment) {
  std::vector<AliasReport> reports;
  auto entries = hlo::inputOutputAlias(module);
  if (!entries) {
    llvm::consumeError(entries.takeError());
    return reports;
  }
  const hlo::Instruction *root = module.entry()->root();
  for (const hlo::AliasEntry &alias : *entries) {
    AliasReport report;
    report.result = hlo::flatLeafIndex(root->shape(), alias.output);
    report.parameter = alias.parameter;
    report.mustAlias = alias.mustAlias;
    // In place when the result's value lives in its own result buffer,
    // where the parameter was.
    const BufferSlice &slice =
        assignment.slice(root, uint32_t(std::max<int64_t>(report.result, 0)));
    report.inPlace =
        slice.kind == BufferSlice::Kind::Result && int64_t(slice.index) == report.result;
    reports.push_back(report);
  }
  return reports;
}

} // namespace mote::passes
