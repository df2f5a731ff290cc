//===- ReportCommand.cpp - motec report -----------------------------------===//
//
// What the compiler will make of a module: instruction counts by op before
// and after the pass pipeline, the fusions it formed, the memory plan (every arena buffer, the
// arena size against the lower bound no plan can beat), read-only constant bytes, and, for each
// target given, the code and data sizes of the object.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ModuleFile.h"
#include "ReportPictures.h"
#include "RunCompile.h"

#include "output/ObjectEmitter.h"
#include "passes/BufferAssignment.h"
#include "passes/Pass.h"
#include "passes/Schedule.h"

#include "hlo/Diagnostics.h"
#include "hlo/Opcode.h"
#include "hlo/Verifier.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

namespace mote::tools {

namespace {

/// The computations fusion instructions call.
llvm::SmallPtrSet<const hlo::Computation *, 16> fusedComputations(const hlo::Module &module) {
  llvm::SmallPtrSet<const hlo::Computation *, 16> fused;
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions())
      if (instruction->opcode() == hlo::Opcode::Fusion)
        for (const hlo::Computation *callee : instruction->calledComputations())
          fused.insert(callee);
  return fused;
}

/// Instructions by opcode; the parameters of fused computations are not
/// instructions that run, so they are not counted.
std::map<std::string, int64_t> countOpcodes(const hlo::Module &module) {
  std::map<std::string, int64_t> counts;
  auto fused = fusedComputations(module);
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions())
      if (!(fused.contains(computation.get()) && instruction->opcode() == hlo::Opcode::Parameter))
        ++counts[hlo::opcodeName(instruction->opcode()).str()];
  return counts;
}

/// Fusion instructions, and the instructions inside them (parameters aside).
std::pair<int64_t, int64_t> countFusions(const hlo::Module &module) {
  auto fused = fusedComputations(module);
  int64_t members = 0;
  for (const hlo::Computation *computation : fused)
    for (const auto &instruction : computation->instructions())
      members += instruction->opcode() != hlo::Opcode::Parameter;
  return {int64_t(fused.size()), members};
}

llvm::json::Object toJson(const std::map<std::string, int64_t> &counts) {
  llvm::json::Object object;
  for (const auto &[name, count] : counts)
    object[name] = count;
  return object;
}

struct SectionSizes {
  uint64_t text = 0, rodata = 0, data = 0, bss = 0;
};

/// Sizes by section kind of an ELF object, as `size` would count them.
llvm::Expected<SectionSizes> measureObject(llvm::StringRef bytes) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, "object", false);
  auto object = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!object)
    return object.takeError();
  SectionSizes sizes;
  for (const llvm::object::SectionRef &section : (*object)->sections()) {
    if (section.isText())
      sizes.text += section.getSize();
    else if (section.isBSS())
      sizes.bss += section.getSize();
    else if (section.isData()) {
      llvm::Expected<llvm::StringRef> name = section.getName();
      if (name && name->starts_with(".rodata"))
        sizes.rodata += section.getSize();
      else
        sizes.data += section.getSize();
      if (!name)
        llvm::consumeError(name.takeError());
    }
  }
  return sizes;
}

/// How a target's dots and convolutions add products, for the report.
std::string describe(eval::ContractionArithmetic contraction) {
  if (contraction.fusedF32 && contraction.fusedF64)
    return "fused multiply-add (f32, f64)";
  if (contraction.fusedF32)
    return "fused multiply-add (f32; f64 multiply then add)";
  if (contraction.fusedF64)
    return "fused multiply-add (f64; f32 multiply then add)";
  return "multiply then add";
}

} // namespace

ExitCode runReport(const ReportOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  passes::InterfaceChanges interface;
  LoadedModule loaded =
      loadModelWithInterface(options.modulePath, options.interface, errs, &interface);
  if (!loaded.module)
    return loaded.failure;
  std::unique_ptr<hlo::Module> &module = loaded.module;
  if (llvm::Error error = hlo::checkConstantsHaveValues(*module)) {
    hlo::printError(std::move(error), module->sourceManager().get(), errs);
    return ExitUnsupported;
  }
  std::map<std::string, int64_t> before = countOpcodes(*module);
  size_t instructionsBefore = module->instructionCount();

  passes::Pipeline pipeline;
  passes::PipelineOptions pipelineOptions;
  pipelineOptions.fusion = options.target.fusion;
  passes::buildCompilePipeline(pipeline, pipelineOptions);
  if (llvm::Error error = pipeline.run(*module)) {
    std::string text = llvm::toString(std::move(error));
    errs << text << '\n';
    return llvm::StringRef(text).contains("internal error") ? ExitInternalError : ExitUnsupported;
  }
  std::map<std::string, int64_t> after = countOpcodes(*module);
  auto [fusions, fusedInstructions] = countFusions(*module);
  passes::Schedule schedule = passes::scheduleModule(*module);
  passes::BufferAssignmentOptions bufferOptions;
  llvm::Expected<passes::BufferAssignment> assignment =
      passes::assignBuffers(*module, schedule, bufferOptions);
  if (!assignment) {
    errs << llvm::toString(assignment.takeError()) << '\n';
    return ExitUnsupported;
  }
  if (!options.graphPath.empty())
    if (llvm::Error error = writeGraphFile(writeComputationGraph(*module), options.graphPath)) {
      errs << "motec: error: " << llvm::toString(std::move(error)) << '\n';
      return ExitUnsupported;
    }
  if (!options.memoryPath.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream file(options.memoryPath, error);
    if (error) {
      errs << "motec: error: cannot write " << options.memoryPath << ": " << error.message()
           << '\n';
      return ExitInvalidInput;
    }
    file << writeMemoryPlanSvg(*module, *assignment);
  }

  // Per-target sizes come from a fresh compile of the original module.
  struct TargetSizes {
    std::string triple, cpu;
    SectionSizes sizes;
    uint64_t arena = 0;
    eval::ContractionArithmetic contraction;
    uint64_t argumentBytes = 0, resultBytes = 0; ///< the caller's buffers
    /// Where each byte lives on a microcontroller: code, constants and the
    /// initial values of data in flash; data, bss and the arena in RAM.
    uint64_t flash() const { return sizes.text + sizes.rodata + sizes.data; }
    uint64_t ram() const { return sizes.data + sizes.bss + arena; }
  };
  std::vector<TargetSizes> targets;
  if (!options.target.triples.empty()) {
    auto resolved = resolveTargetOptions(options.target, errs);
    if (auto *code = std::get_if<ExitCode>(&resolved))
      return *code;
    for (const target::TargetSpec &spec : std::get<std::vector<target::TargetSpec>>(resolved)) {
      LoadedModule reloaded = loadModelWithInterface(options.modulePath, options.interface, errs);
      if (!reloaded.module)
        return reloaded.failure;
      std::unique_ptr<hlo::Module> &fresh = reloaded.module;
      auto compiled = compileForTarget(*fresh, spec, "", errs, options.target);
      if (auto *code = std::get_if<ExitCode>(&compiled))
        return *code;
      auto &model = std::get<output::CompiledModel>(compiled);
      auto bytes = output::emitModule(*model.module, *model.machine, output::EmitKind::Object);
      if (!bytes) {
        errs << "error: " << llvm::toString(bytes.takeError()) << '\n';
        return ExitInternalError;
      }
      llvm::Expected<SectionSizes> sizes = measureObject(*bytes);
      if (!sizes) {
        errs << "error: " << llvm::toString(sizes.takeError()) << '\n';
        return ExitInternalError;
      }
      TargetSizes target{spec.triple, spec.cpu, *sizes, model.stats.arenaBytes,
                         model.stats.contraction};
      for (const codegen::TensorSignature &tensor : model.signature.args)
        target.argumentBytes += tensor.byteSize;
      for (const codegen::TensorSignature &tensor : model.signature.results)
        target.resultBytes += tensor.byteSize;
      // An aliased result shares its argument's buffer.
      for (const codegen::ModelSignature::Alias &alias : model.signature.aliases)
        target.resultBytes -= model.signature.results[alias.result].byteSize;
      targets.push_back(std::move(target));
    }
  }

  uint64_t constantBytes = 0;
  for (const auto &computation : module->computations())
    for (const auto &instruction : computation->instructions())
      if (instruction->opcode() == hlo::Opcode::Constant && instruction->attributes().literal)
        constantBytes += instruction->attributes().literal->bytes().size();
  const uint64_t arena = assignment->arenaSize(), bound = assignment->lowerBound();
  const double ratio = bound ? double(arena) / double(bound) : 1.0;

  if (options.json) {
    llvm::json::Object report;
    report["module"] = module->name();
    report["instructions"] = int64_t(instructionsBefore);
    report["instructions_after_passes"] = int64_t(module->instructionCount());
    report["opcodes"] = toJson(before);
    report["opcodes_after_passes"] = toJson(after);
    report["fusions"] = fusions;
    report["fused_instructions"] = fusedInstructions;
    llvm::json::Array buffers;
    for (const passes::ArenaBuffer &buffer : assignment->buffers()) {
      llvm::json::Array values;
      for (const auto &[instruction, leaf] : buffer.values)
        values.push_back(instruction->name().str() +
                         (leaf ? "{" + std::to_string(leaf) + "}" : ""));
      buffers.push_back(llvm::json::Object{{"offset", int64_t(buffer.offset)},
                                           {"size", int64_t(buffer.size)},
                                           {"start", int64_t(buffer.start)},
                                           {"end", int64_t(buffer.end)},
                                           {"values", std::move(values)}});
    }
    report["buffers"] = std::move(buffers);
    report["arena_bytes"] = int64_t(arena);
    report["arena_lower_bound"] = int64_t(bound);
    report["arena_ratio"] = ratio;
    report["constant_bytes"] = int64_t(constantBytes);
    llvm::json::Array targetArray;
    for (const TargetSizes &t : targets)
      targetArray.push_back(llvm::json::Object{{"triple", t.triple},
                                               {"cpu", t.cpu},
                                               {"text", int64_t(t.sizes.text)},
                                               {"rodata", int64_t(t.sizes.rodata)},
                                               {"data", int64_t(t.sizes.data)},
                                               {"bss", int64_t(t.sizes.bss)},
                                               {"arena_bytes", int64_t(t.arena)},
                                               {"flash_bytes", int64_t(t.flash())},
                                               {"ram_bytes", int64_t(t.ram())},
                                               {"argument_bytes", int64_t(t.argumentBytes)},
                                               {"result_bytes", int64_t(t.resultBytes)},
                                               {"fused_f32", t.contraction.fusedF32},
                                               {"fused_f64", t.contraction.fusedF64}});
    report["targets"] = std::move(targetArray);
    addInterfaceChanges(interface, report);
    llvm::json::Array aliases;
    for (const passes::AliasReport &alias : passes::describeAliases(*module, *assignment))
      aliases.push_back(llvm::json::Object{{"result", alias.result},
                                           {"parameter", alias.parameter},
                                           {"must_alias", alias.mustAlias},
                                           {"in_place", alias.inPlace}});
    report["aliases"] = std::move(aliases);
    out << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << '\n';
    return ExitOk;
  }

  out << "module " << module->name() << '\n';
  out << "  instructions: " << instructionsBefore << " (" << module->instructionCount()
      << " after the pass pipeline)\n";
  out << "  opcodes:      ";
  llvm::ListSeparator comma;
  for (const auto &[name, count] : before) {
    auto kept = after.find(name);
    out << comma << name << ' ' << count << " (" << (kept == after.end() ? 0 : kept->second)
        << " after)";
  }
  out << '\n';
  out << "  fusions:      " << fusions << " (" << fusedInstructions << " instructions)\n";
  out << "  constants:    " << constantBytes << " bytes of read-only data\n";
  out << "  arena:        " << arena << " bytes, lower bound " << bound << " bytes (ratio "
      << llvm::format("%.3f", ratio) << "), alignment " << assignment->alignment() << ", "
      << assignment->buffers().size() << " buffers\n";
  printInterfaceChanges(interface, out);
  for (const passes::AliasReport &alias : passes::describeAliases(*module, *assignment))
    out << "  aliased:      result " << alias.result << " is parameter " << alias.parameter
        << " updated " << (alias.inPlace ? "in place" : "in the arena, copied over it at the end")
        << " (" << (alias.mustAlias ? "must-alias" : "may-alias") << ")\n";
  if (!assignment->buffers().empty())
    out << passes::describeArenaBuffers(*assignment, "    ");
  for (const TargetSizes &t : targets)
    out << "  " << t.triple << " (" << t.cpu << "): text " << t.sizes.text << " B, rodata "
        << t.sizes.rodata << " B, data " << t.sizes.data << " B, bss " << t.sizes.bss
        << " B, arena " << t.arena << " B, dot sums: " << describe(t.contraction) << '\n'
        << "    flash " << t.flash() << " B (code " << t.sizes.text << " B, constants "
        << t.sizes.rodata << " B), RAM " << t.ram() << " B (arena " << t.arena
        << " B), caller buffers " << t.argumentBytes << " B in, " << t.resultBytes << " B out\n";
  return ExitOk;
}

} // namespace mote::tools
