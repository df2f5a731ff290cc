//===- RunModelTest.cpp - The run driver on every runnable target ---------===//
///
/// \file
/// A hand-written C model implementing the ABI (entry function and a full
/// descriptor) is compiled with each target's own C compiler, then linked
/// with the run driver and run natively or under QEMU by runModelObject.
/// Targets whose tools are missing are reported and skipped.
///
//===----------------------------------------------------------------------===//

#include "tools/lib/RunModel.h"
#include "SourceTree.h"
#include "tools/lib/Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace mote;
using namespace mote::tools;
using namespace std::string_literals;

namespace {

/// sum = a + b (f32[2,3]); count = number of positive elements of a (s32[]).
/// Entry status 5 when a[0] is 1234, and an endless loop when it is -1234, to
/// test failures. The scratch pointer must honour the descriptor's alignment.
constexpr const char *kModelSource = R"(#include <mote/abi.h>
#include <stddef.h>
#include <stdint.h>
struct blob {
  mote_model_desc model;
  mote_tensor_desc args[2];
  mote_tensor_desc results[2];
};
const struct blob hand_model = {
  {MOTE_MODEL_MAGIC, MOTE_ABI_VERSION, sizeof(struct blob), 0, 0, 0, 2, 2,
   offsetof(struct blob, args), offsetof(struct blob, results), 96, 32, 0},
  {{0, 0, 0, MOTE_F32, 2, 0, 24}, {0, 0, 0, MOTE_F32, 2, 0, 24}},
  {{0, 0, 0, MOTE_F32, 2, 0, 24}, {0, 0, 0, MOTE_S32, 0, 0, 4}},
};
int32_t hand_entry(const mote_call *call) {
  const float *a = (const float *)call->args[0];
  const float *b = (const float *)call->args[1];
  float *sum = (float *)call->results[0];
  int32_t *count = (int32_t *)call->results[1];
  float *scratch = (float *)call->scratch;
  volatile int forever = 1;
  int i;
  if (((uintptr_t)scratch) % 32 != 0) return 7;
  if (a[0] == 1234.0f) return 5;
  if (a[0] == -1234.0f) while (forever) {}
  for (i = 0; i < 24; ++i) scratch[i] = 0; /* scratch_size 96 bytes */
  *count = 0;
  for (i = 0; i < 6; ++i) {
    sum[i] = a[i] + b[i];
    *count += a[i] > 0;
  }
  return 0;
}
)";

std::vector<uint8_t> floatBytes(std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

std::string includeDir() { return (mote::test::sourceTree() / "include").string(); }

/// The hand model compiled for `spec`, or empty when the tools are missing.
std::string compileHandModel(const target::TargetSpec &spec) {
  auto toolchain = findToolchain(spec);
  if (!toolchain) {
    MESSAGE("skipping " << spec.triple << ": " << llvm::toString(toolchain.takeError()));
    return "";
  }
  llvm::SmallString<128> dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("mote-hand-model", dir));
  std::string source = (dir + "/model.c").str(), object = (dir + "/model.o").str();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(source, error);
    REQUIRE(!error);
    os << kModelSource;
  }
  std::vector<std::string> command = {toolchain->compiler};
  command.insert(command.end(), toolchain->compileFlags.begin(), toolchain->compileFlags.end());
  for (const std::string &arg : {"-I" + includeDir(), "-c"s, source, "-o"s, object})
    command.push_back(arg);
  std::vector<llvm::StringRef> argv(command.begin(), command.end());
  REQUIRE(llvm::sys::ExecuteAndWait(command.front(), argv) == 0);
  auto buffer = llvm::MemoryBuffer::getFile(object, false, false);
  REQUIRE(bool(buffer));
  std::string bytes = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove_directories(dir);
  return bytes;
}

RunRequest handRequest(const target::TargetSpec &spec, std::string object) {
  RunRequest request;
  request.target = spec;
  request.symbolPrefix = "hand";
  request.object = std::move(object);
  request.arguments = {floatBytes({1, -2, 3, -4, 5, 0.5f}), floatBytes({10, 20, 30, 40, 50, 60})};
  request.resultBytes = {24, 4};
  request.timeoutSeconds = 60;
  return request;
}

ExitCode codeOf(llvm::Error error, std::string &message) {
  ExitCode code = ExitOk;
  message.clear();
  llvm::handleAllErrors(std::move(error), [&](const ToolError &tool) {
    code = tool.code();
    llvm::raw_string_ostream os(message);
    tool.log(os);
  });
  return code;
}

} // namespace

TEST_CASE("the run driver runs a hand-written model on every target with tools") {
  struct Case {
    const char *triple, *cpu, *features;
  } cases[] = {{"x86_64-linux-gnu", "", ""},
               {"aarch64-linux-gnu", "", ""},
               {"riscv64-linux-gnu", "", ""},
               {"riscv64-linux-gnu", "", "+v"},
               {"thumbv7em-none-eabihf", "cortex-m4", ""},
               {"thumbv7em-none-eabihf", "cortex-m7", ""},
               {"thumbv8.1m.main-none-eabihf", "", ""},
               {"riscv32-unknown-elf", "", ""},
               {"riscv32-unknown-elf", "", "+f"}};
  for (const Case &c : cases) {
    CAPTURE(std::string(c.triple) + " " + c.cpu + " " + c.features);
    auto spec = target::resolveTarget(c.triple, c.cpu, c.features);
    REQUIRE(bool(spec));
    std::string object = compileHandModel(*spec);
    if (object.empty())
      continue;
    auto results = runModelObject(handRequest(*spec, object));
    REQUIRE_MESSAGE(bool(results), llvm::toString(results.takeError()));
    REQUIRE(results->size() == 2);
    CHECK((*results)[0] == floatBytes({11, 18, 33, 36, 55, 60.5f}));
    int32_t count = 0;
    REQUIRE((*results)[1].size() == 4);
    std::memcpy(&count, (*results)[1].data(), 4);
    CHECK(count == 4);
  }
}

TEST_CASE("run failures are ToolErrors with the right exit codes") {
  auto spec = target::resolveTarget("x86_64-linux-gnu", "", "");
  REQUIRE(bool(spec));
  std::string object = compileHandModel(*spec);
  REQUIRE(!object.empty());
  std::string message;

  RunRequest status = handRequest(*spec, object);
  status.arguments[0] = floatBytes({1234, 0, 0, 0, 0, 0});
  auto failed = runModelObject(status);
  REQUIRE_FALSE(bool(failed));
  CHECK(codeOf(failed.takeError(), message) == ExitInternalError);
  CHECK(message.find("the model's entry function returned an error status") != std::string::npos);
  CHECK(message.find("returned status 5") != std::string::npos);

  RunRequest shortInput = handRequest(*spec, object);
  shortInput.arguments[1].resize(20);
  failed = runModelObject(shortInput);
  REQUIRE_FALSE(bool(failed));
  CHECK(codeOf(failed.takeError(), message) == ExitInternalError);
  CHECK(message.find("does not hold exactly 24 bytes") != std::string::npos);

  RunRequest wrongResult = handRequest(*spec, object);
  wrongResult.resultBytes[1] = 8;
  failed = runModelObject(wrongResult);
  REQUIRE_FALSE(bool(failed));
  CHECK(codeOf(failed.takeError(), message) == ExitInternalError);
  CHECK(message.find("result 1 has 4 bytes, expected 8") != std::string::npos);

  RunRequest endless = handRequest(*spec, object);
  endless.arguments[0] = floatBytes({-1234, 0, 0, 0, 0, 0});
  endless.timeoutSeconds = 1;
  failed = runModelObject(endless);
  REQUIRE_FALSE(bool(failed));
  CHECK(codeOf(failed.takeError(), message) == ExitInternalError);
  CHECK(message.find("did not finish within 1 s") != std::string::npos);

  RunRequest badObject = handRequest(*spec, "not an object");
  failed = runModelObject(badObject);
  REQUIRE_FALSE(bool(failed));
  CHECK(codeOf(failed.takeError(), message) == ExitInternalError);
  CHECK(message.find("linking the run driver for x86_64-linux-gnu failed") != std::string::npos);
}

TEST_CASE("compile-only targets cannot run") {
  auto spec = target::resolveTarget("aarch64-linux-android", "", "");
  REQUIRE(bool(spec));
  auto failed = runModelObject(handRequest(*spec, ""));
  REQUIRE_FALSE(bool(failed));
  std::string message;
  CHECK(codeOf(failed.takeError(), message) == ExitUnsupported);
  CHECK(message.find("compile only") != std::string::npos);
}

TEST_CASE("the embedded driver and ABI header are the sources") {
  CHECK(runDriverSource().contains("MOTE_MODEL_PREFIX"));
  CHECK(abiHeaderSource().contains("#define MOTE_ABI_VERSION"));
}
