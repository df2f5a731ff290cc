//===- ComputationGraph.cpp - motec report --graph: the model as a graph --===//
///
/// \file
/// DOT text for the entry computation after the passes (ReportPictures.h
/// states what is drawn), and the call of Graphviz that renders it.
///
//===----------------------------------------------------------------------===//

#include "ReportPictures.h"

#include "hlo/Opcode.h"
#include "hlo/PrimitiveType.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace mote::tools {

namespace {

using hlo::Instruction;
using hlo::Opcode;

uint64_t shapeBytes(const hlo::Shape &shape) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  shape.collectLeaves(leaves);
  uint64_t bytes = 0;
  for (const hlo::Shape *leaf : leaves)
    if (leaf->isArray())
      bytes += uint64_t(leaf->elementCount()) * hlo::storageBytes(leaf->elementType());
  return bytes;
}

/// Text inside a DOT string: quotes and backslashes escaped, line breaks as \n.
std::string quoted(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

bool isContraction(const Instruction &instruction) {
  return instruction.opcode() == Opcode::Dot || instruction.opcode() == Opcode::Convolution;
}

/// A fusion whose computation holds a dot or a convolution.
bool fusesContraction(const Instruction &fusion) {
  for (const hlo::Computation *callee : fusion.calledComputations())
    for (const auto &member : callee->instructions())
      if (isContraction(*member))
        return true;
  return false;
}

class GraphWriter {
public:
  explicit GraphWriter(const hlo::Module &module) : module_(module) {}

  std::string write() {
    os_ << "digraph " << quoted(module_.name()) << " {\n"
        << "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, labelloc=t, label="
        << quoted(module_.name().str() + " after the passes: fusions are boxes, dots and "
                                         "convolutions orange, edges say what flows")
        << "];\n"
        << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef2f7\", "
           "fontname=\"Helvetica\", fontsize=10];\n"
        << "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n";
    const hlo::Computation &entry = *module_.entry();
    for (const auto &instruction : entry.instructions())
      if (instruction->opcode() == Opcode::Fusion)
        writeFusion(*instruction);
      else
        writeNode(*instruction, "  ");
    for (const auto &instruction : entry.instructions())
      writeOperandEdges(*instruction);
    for (auto [outside, member] : insideEdges_)
      writeEdge(*outside, nodeId(*member));
    os_ << "  " << quoted("result") << " [shape=oval, fillcolor=\"#d9ead3\", label="
        << quoted("result\n" + entry.root()->shape().toString(false)) << "];\n";
    writeEdge(*entry.root(), quoted("result"));
    os_ << "}\n";
    return std::move(os_.str());
  }

private:
  std::string nodeId(const Instruction &instruction) {
    auto [it, inserted] = ids_.try_emplace(&instruction, "");
    if (inserted)
      it->second = "n" + std::to_string(ids_.size());
    return it->second;
  }

  void writeNode(const Instruction &instruction, llvm::StringRef indent) {
    std::string label =
        hlo::opcodeName(instruction.opcode()).str() + "\n" + instruction.name().str();
    os_ << indent << nodeId(instruction) << " [label=" << quoted(label);
    if (instruction.opcode() == Opcode::Parameter)
      os_ << ", shape=oval, fillcolor=\"#d9ead3\"";
    else if (instruction.opcode() == Opcode::Constant)
      os_ << ", fillcolor=\"#f3f3f3\", fontcolor=\"#666666\"";
    else if (isContraction(instruction))
      os_ << ", fillcolor=\"#f6b26b\", penwidth=2";
    os_ << "];\n";
  }

  /// A cluster with the fusion's instructions; its parameters become the
  /// edges from the fusion's operands (writeOperandEdges), its root stands
  /// for the fusion's value.
  void writeFusion(const Instruction &fusion) {
    const hlo::Computation &callee = *fusion.calledComputation(0);
    bool contraction = fusesContraction(fusion);
    os_ << "  subgraph cluster_" << nodeId(fusion) << " {\n"
        << "    label=" << quoted(fusion.name().str() + " (" + fusion.attributes().fusionKind + ")")
        << "; style=\"rounded,filled\"; color=" << (contraction ? "\"#e69138\"" : "\"#6d9eeb\"")
        << "; fillcolor=" << (contraction ? "\"#fdf0e2\"" : "\"#f4f7fd\"") << ";\n";
    for (const auto &member : callee.instructions())
      if (member->opcode() != Opcode::Parameter)
        writeNode(*member, "    ");
    for (const auto &member : callee.instructions())
      for (const Instruction *operand : member->operands()) {
        if (operand->opcode() == Opcode::Parameter) {
          // The value from outside, straight to the member that reads it.
          const Instruction *outside = fusion.operand(operand->attributes().parameterNumber);
          insideEdges_.push_back({outside, member.get()});
          continue;
        }
        os_ << "    ";
        writeEdge(*operand, nodeId(*member));
      }
    os_ << "  }\n";
    fusionRoot_[&fusion] = callee.root();
  }

  /// The node that holds `instruction`'s value: a fusion's root.
  const Instruction &valueNode(const Instruction &instruction) {
    auto it = fusionRoot_.find(&instruction);
    return it == fusionRoot_.end() ? instruction : *it->second;
  }

  void writeOperandEdges(const Instruction &instruction) {
    if (instruction.opcode() == Opcode::Fusion)
      return; // drawn as edges into the cluster
    for (const Instruction *operand : instruction.operands())
      writeEdge(*operand, nodeId(instruction));
  }

  /// Data edges weigh more than constants' (weights, biases), so the layout
  /// keeps the model's main path straight and the constants beside it.
  void writeEdge(const Instruction &from, llvm::StringRef to) {
    const hlo::Shape &shape = from.shape();
    bool constant = from.opcode() == Opcode::Constant;
    os_ << "  " << nodeId(valueNode(from)) << " -> " << to
        << " [label=" << quoted(shape.toString(false) + "\n" + formatBytes(shapeBytes(shape)))
        << (constant ? ", weight=0, style=dashed, color=\"#999999\"" : ", weight=8") << "];\n";
  }

  const hlo::Module &module_;
  std::string text_;
  llvm::raw_string_ostream os_{text_};
  llvm::DenseMap<const Instruction *, std::string> ids_;
  llvm::DenseMap<const Instruction *, const Instruction *> fusionRoot_;
  std::vector<std::pair<const Instruction *, const Instruction *>> insideEdges_;
};

} // namespace

std::string formatBytes(uint64_t bytes) {
  if (bytes >= (1u << 20))
    return llvm::formatv("{0:f1} MB", double(bytes) / (1 << 20)).str();
  if (bytes >= (1u << 10))
    return llvm::formatv("{0:f1} KB", double(bytes) / (1 << 10)).str();
  return std::to_string(bytes) + " B";
}

std::string writeComputationGraph(const hlo::Module &module) { return GraphWriter(module).write(); }

llvm::Error writeGraphFile(llvm::StringRef dot, llvm::StringRef path) {
  if (path.ends_with(".dot")) {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error)
      return llvm::createStringError(error, "cannot write %s: %s", path.str().c_str(),
                                     error.message().c_str());
    os << dot;
    return llvm::Error::success();
  }
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName("dot");
  if (!program)
    return llvm::createStringError(std::errc::no_such_file_or_directory,
                                   "drawing %s needs Graphviz's 'dot' (Debian package graphviz); "
                                   "a .dot path writes the graph without it",
                                   path.str().c_str());
  llvm::SmallString<128> input;
  if (std::error_code error = llvm::sys::fs::createTemporaryFile("mote-graph", "dot", input))
    return llvm::createStringError(error, "cannot create a temporary file");
  {
    std::error_code error;
    llvm::raw_fd_ostream os(input, error);
    os << dot;
  }
  std::string format = path.ends_with(".png") ? "-Tpng" : "-Tsvg";
  llvm::StringRef args[] = {*program, format, "-o", path, input};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, {}, 120, 0, &message);
  llvm::sys::fs::remove(input);
  if (status != 0)
    return llvm::createStringError(std::errc::io_error, "dot could not draw %s%s%s",
                                   path.str().c_str(), message.empty() ? "" : ": ",
                                   message.c_str());
  return llvm::Error::success();
}

} // namespace mote::tools
