//===- CorpusPipelineTest.cpp - Passes and memory plans on real modules ---===//
//
// Runs over ../shared/hlo-corpus/files (or $MOTE_HLO_CORPUS/files) when it
// exists: the compile pipeline with verification after every pass, the
// schedule and buffer assignment, the independent checker on every plan, and
// on modules small enough for the evaluator, the values before and after the
// pipeline compared bit for bit.
//
//===----------------------------------------------------------------------===//

#include "AssignmentChecker.h"
#include "PassTestUtil.h"
#include "SourceTree.h"

#include "passes/BufferAssignment.h"
#include "passes/Schedule.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace mote::passes::test {
namespace {

std::filesystem::path corpusFiles() {
  if (const char *override = std::getenv("MOTE_HLO_CORPUS"))
    return std::filesystem::path(override) / "files";
  return mote::test::sharedCorpusFiles();
}

/// Small, deterministic and quick enough to evaluate twice.
bool worthEvaluating(const hlo::Module &module) {
  if (module.instructionCount() > 3000)
    return false;
  for (const auto &computation : module.computations())
    for (const auto &instruction : computation->instructions()) {
      hlo::Opcode opcode = instruction->opcode();
      if (opcode == hlo::Opcode::Rng || opcode == hlo::Opcode::RngGetAndUpdateState ||
          opcode == hlo::Opcode::While || opcode == hlo::Opcode::CustomCall ||
          opcode == hlo::Opcode::Convolution || opcode == hlo::Opcode::Dot)
        return false;
      llvm::SmallVector<const hlo::Shape *, 4> leaves;
      instruction->shape().collectLeaves(leaves);
      for (const hlo::Shape *leaf : leaves)
        if (leaf->isArray() && leaf->elementCount() > (1 << 16))
          return false;
    }
  return true;
}

TEST_CASE("hlo-corpus: pipeline, schedule and buffer assignment on every module") {
  std::filesystem::path files = corpusFiles();
  if (!std::filesystem::is_directory(files)) {
    MESSAGE("hlo-corpus not found at " << files.string() << ": skipped");
    return;
  }
  std::vector<std::filesystem::path> paths;
  for (const auto &entry : std::filesystem::directory_iterator(files))
    if (entry.path().extension() == ".hlo")
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());

  size_t loaded = 0, planned = 0, evaluated = 0;
  // All modules, and those of at least 4 KiB live (below that, 16-byte
  // alignment of a few scalars dominates the ratio).
  double worst = 0, sum = 0, worstLarge = 0, sumLarge = 0;
  size_t large = 0;
  uint64_t totalArena = 0, totalBound = 0;
  std::string worstName, worstLargeName;
  for (const auto &path : paths) {
    auto original = hlo::loadModule(path.string());
    if (!original) {
      llvm::consumeError(original.takeError()); // the parser's tests report these
      continue;
    }
    ++loaded;
    auto module = hlo::loadModule(path.string());
    REQUIRE(bool(module));
    hlo::Module &m = **module;
    Pipeline pipeline;
    PipelineOptions options;
    options.verifyEachPass = true;
    buildCompilePipeline(pipeline, options);
    if (llvm::Error error = pipeline.run(m)) {
      FAIL_CHECK(path.filename().string()
                 << ": " << hlo::errorToString(std::move(error), m.sourceManager().get()));
      continue;
    }
    Schedule schedule = scheduleModule(m);
    auto assignment = assignBuffers(m, schedule, {});
    if (!assignment) {
      FAIL_CHECK(path.filename().string()
                 << ": " << hlo::errorToString(assignment.takeError(), m.sourceManager().get()));
      continue;
    }
    ++planned;
    std::string problems = checkAssignment(m, schedule, *assignment);
    CHECK_MESSAGE(problems.empty(), path.filename().string() << problems);
    if (assignment->lowerBound()) {
      double ratio = double(assignment->arenaSize()) / double(assignment->lowerBound());
      sum += ratio;
      totalArena += assignment->arenaSize();
      totalBound += assignment->lowerBound();
      if (ratio > worst) {
        worst = ratio;
        worstName = path.filename().string();
      }
      if (assignment->lowerBound() >= 4096) {
        ++large;
        sumLarge += ratio;
        if (ratio > worstLarge) {
          worstLarge = ratio;
          worstLargeName = path.filename().string();
        }
      }
    } else {
      sum += 1;
    }

    if (!worthEvaluating(**original))
      continue;
    auto args = randomArguments(**original);
    eval::Evaluator before(**original);
    auto expected = before.run(args);
    if (!expected) { // the evaluator's own tests cover what it cannot run
      llvm::consumeError(expected.takeError());
      continue;
    }
    std::vector<hlo::Literal> physicalArgs;
    const auto &callerView = m.entryComputationLayout();
    for (size_t i = 0; i < args.size(); ++i)
      physicalArgs.push_back(callerView ? physicalOfTree(args[i], callerView->parameters[i])
                                        : args[i]);
    eval::Evaluator after(m);
    auto actual = after.run(physicalArgs);
    if (!actual) {
      FAIL_CHECK(path.filename().string()
                 << ": after the pipeline: " << hlo::errorToString(actual.takeError(), nullptr));
      continue;
    }
    hlo::Literal want =
        callerView ? physicalOfTree(*expected, callerView->result) : std::move(*expected);
    CHECK_MESSAGE(actual->bitwiseEqual(want), path.filename().string() << " changed its value");
    ++evaluated;
  }
  MESSAGE("hlo-corpus: " << loaded << " loaded, " << planned << " planned, " << evaluated
                         << " compared before/after\n  arena/lower bound, all modules: worst "
                         << worst << " (" << worstName << "), mean "
                         << (planned ? sum / double(planned) : 0.0) << ", total "
                         << (totalBound ? double(totalArena) / double(totalBound) : 0.0)
                         << "\n  modules with >= 4 KiB live (" << large << "): worst " << worstLarge
                         << " (" << worstLargeName << "), mean "
                         << (large ? sumLarge / double(large) : 0.0));
  // The plan is within 10% of what no plan can beat, on every module.
  CHECK(worst <= 1.1);
  CHECK(worstLarge <= 1.1);
}

} // namespace
} // namespace mote::passes::test
