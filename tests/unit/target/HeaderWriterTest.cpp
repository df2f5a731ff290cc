//===- HeaderWriterTest.cpp - The generated model header ------------------===//
///
/// \file
/// Checks the header's text, then compiles it with the host's C and C++
/// compilers (C99; C++17 without exceptions or RTTI) and runs a program that
/// drives a hand-written model (with the descriptor codegen encodes) through
/// the generated class and the runtime.
///
//===----------------------------------------------------------------------===//

#include "output/HeaderWriter.h"
#include "SourceTree.h"

#include "codegen/ModelDescriptor.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace mote;
using codegen::ModelSignature;
using codegen::TensorSignature;
using hlo::PrimitiveType;

namespace {

std::string includeDir() { return (mote::test::sourceTree() / "include").string(); }

TensorSignature tensor(std::string name, PrimitiveType type, llvm::ArrayRef<int64_t> dims,
                       llvm::ArrayRef<int64_t> minorToMajor, uint64_t byteSize) {
  TensorSignature t;
  t.name = std::move(name);
  t.elementType = type;
  t.dims.assign(dims.begin(), dims.end());
  t.minorToMajor.assign(minorToMajor.begin(), minorToMajor.end());
  t.byteSize = byteSize;
  return t;
}

/// y = 2 * x (f32[2,3]), flags = x > 0 (pred[2,3]), bias unused (s8[4]).
ModelSignature demoSignature() {
  ModelSignature s;
  s.name = "demo";
  s.triple = "x86_64-linux-gnu";
  s.cpu = "x86-64";
  s.args.push_back(tensor("x", PrimitiveType::F32, {2, 3}, {1, 0}, 24));
  s.args.push_back(tensor("bias", PrimitiveType::S8, {4}, {0}, 4));
  s.results.push_back(tensor("y", PrimitiveType::F32, {2, 3}, {1, 0}, 24));
  s.results.push_back(tensor("flags", PrimitiveType::Pred, {2, 3}, {0, 1}, 6));
  s.scratchSize = 64;
  s.scratchAlignment = 32;
  return s;
}

/// The model side: the ABI entry by hand, the descriptor as codegen encodes
/// it (bytes aliased as the mote_model_desc symbol).
std::string modelSource(const ModelSignature &signature) {
  std::string bytes = codegen::encodeModelDescriptor(signature);
  std::string source = R"(#include <mote/abi.h>
#include <stdint.h>
int32_t demo_entry(const mote_call *call) {
  const float *x = (const float *)call->args[0];
  float *y = (float *)call->results[0];
  uint8_t *flags = (uint8_t *)call->results[1];
  float *scratch = (float *)call->scratch;
  if (((uintptr_t)scratch) % 32 != 0) return 7;
  for (int i = 0; i < 6; ++i) { scratch[i] = 2.0f * x[i]; y[i] = scratch[i]; }
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      flags[c * 2 + r] = x[r * 3 + c] > 0;
  return 0;
}
__attribute__((aligned(8))) const unsigned char demo_model_bytes[] = {)";
  for (unsigned char byte : bytes)
    source += std::to_string(byte) + ",";
  return source + "};\nextern const mote_model_desc demo_model "
                  "__attribute__((alias(\"demo_model_bytes\")));\n";
}

/// The caller side, through the generated class only: typed accessors take
/// arrays and containers, and refuse the wrong element type or count.
constexpr const char *kMainSource = R"(#include "demo.h"
#include <stdio.h>
#include <vector>
static_assert(demo::kScratchBytes == 64, "scratch bytes");
static_assert(demo::kScratchAlignment == 32, "scratch alignment");
static_assert(demo::kArgCount == 2 && demo::kResultCount == 2, "counts");
static_assert(DEMO_RESULT_FLAGS_INDEX == 1 && DEMO_ARG_BIAS_BYTES == 4, "macros");
static_assert(demo::kArenaBytes >= 64 + 24 + 4 + 24 + 6, "arena holds scratch and tensors");
int main() {
  alignas(16) static unsigned char memory[demo::kArenaBytes];
  float x[6] = {1, -2, 3, -4, 5, -6}, y[6] = {0};
  std::vector<int8_t> bias(4);
  bool flags[6] = {false};
  demo model(memory);
  if (!model.status()) return 10;
  if (demo::descriptor().magic != MOTE_MODEL_MAGIC) return 11;
  if (!model.set_x(x) || !model.set_bias(bias) || !model.set_y(y) || !model.set_flags(flags))
    return 12;
  if (!model.run()) return 13;
  for (int i = 0; i < 6; ++i) printf("%g ", y[i]);
  for (int i = 0; i < 6; ++i) printf("%d", flags[i]);
  printf("\n");
  // The wrong element type or count is refused by the session.
  int32_t wrong_type[6] = {0};
  float too_few[5] = {0};
  printf("%s %s\n", model.session().set_input(0, wrong_type).message(),
         model.session().set_input(0, too_few).message());
  return 0;
}
)";

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { REQUIRE(!llvm::sys::fs::createUniqueDirectory("mote-header", path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
};

void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  REQUIRE(!error);
  os << text;
}

/// Runs `program args...`; returns its exit status, its stdout in `output`.
int run(llvm::StringRef program, std::vector<std::string> args, const TempDir &dir,
        std::string *output = nullptr) {
  auto found = llvm::sys::findProgramByName(program);
  REQUIRE_MESSAGE(bool(found), "not found: " << program.str());
  std::vector<llvm::StringRef> argv = {*found};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::string outPath = dir.file("stdout.txt");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(outPath),
                                                std::nullopt};
  int status = llvm::sys::ExecuteAndWait(*found, argv, std::nullopt, redirects, 60);
  if (output) {
    auto buffer = llvm::MemoryBuffer::getFile(outPath);
    REQUIRE(bool(buffer));
    *output = (*buffer)->getBuffer().str();
  }
  return status;
}

} // namespace

TEST_CASE("the header declares the ABI symbols and size constants") {
  std::string text = output::writeHeader(demoSignature());
  CHECK(text.find("#ifndef MOTE_MODEL_DEMO_H") != std::string::npos);
  CHECK(text.find("#include <mote/mote.h>") != std::string::npos);
  CHECK(text.find("#include <mote/mote.hpp>") != std::string::npos);
  CHECK(text.find("int32_t demo_entry(const mote_call *call);") != std::string::npos);
  CHECK(text.find("extern const mote_model_desc demo_model;") != std::string::npos);
  CHECK(text.find("#define DEMO_SCRATCH_BYTES 64ull") != std::string::npos);
  CHECK(text.find("#define DEMO_ARG_X_BYTES 24ull") != std::string::npos);
  CHECK(text.find("#define DEMO_RESULT_FLAGS_INDEX 1") != std::string::npos);
  CHECK(text.find("flags pred[2,3]{0,1}, 6 bytes of uint8_t") != std::string::npos);
  CHECK(
      text.find("#define DEMO_ARENA_BYTES MOTE_SESSION_ARENA_BYTES(4u, 58ull, 64ull, 32u, 16u)") !=
      std::string::npos);
  CHECK(text.find("class demo {") != std::string::npos);
  CHECK(text.find("mote::Status set_x(mote::Span<const float> data)") != std::string::npos);
  CHECK(text.find("mote::Status set_bias(mote::Span<const int8_t> data)") != std::string::npos);
  CHECK(text.find("mote::Status set_flags(mote::Span<bool> data)") != std::string::npos);
}

TEST_CASE("accessors take the parameters' readable names, unique across the class") {
  ModelSignature s = demoSignature();
  s.args[0].readableName = "arg_0";  // from Arg_0.1
  s.args[1].readableName = "result"; // an argument named like the result
  s.results[0].readableName = "result";
  s.results[1].readableName = ""; // none: the identifier
  std::string text = output::writeHeader(s);
  CHECK(text.find("set_arg_0(mote::Span<const float>") != std::string::npos);
  CHECK(text.find("set_result(mote::Span<const int8_t>") != std::string::npos);
  CHECK(text.find("set_result_2(mote::Span<float>") != std::string::npos);
  CHECK(text.find("set_flags(mote::Span<bool>") != std::string::npos);
}

TEST_CASE("a model named like a C++ keyword gets a usable class name") {
  ModelSignature s = demoSignature();
  s.name = "delete";
  std::string text = output::writeHeader(s);
  CHECK(text.find("class delete_ {") != std::string::npos);
  CHECK(text.find("int32_t delete_entry(") != std::string::npos);
}

TEST_CASE("the header compiles as C99 and as C++17 without exceptions or RTTI") {
  TempDir dir;
  ModelSignature empty;
  empty.name = "nothing"; // no arguments, no results: zero-length arrays must not appear
  writeFile(dir.file("demo.h"), output::writeHeader(demoSignature()));
  writeFile(dir.file("nothing.h"), output::writeHeader(empty));
  writeFile(dir.file("use.c"), "#include \"demo.h\"\n#include \"nothing.h\"\n"
                               "int f(const mote_call *c) { return demo_entry(c) + "
                               "DEMO_ARG_COUNT + (int)demo_model.magic + nothing_entry(c); }\n");
  writeFile(dir.file("use.cpp"), "#include \"demo.h\"\n#include \"nothing.h\"\n"
                                 "int g() { nothing n({}); return n.run().code(); }\n");
  std::string include = "-I" + includeDir();
  CHECK(run("gcc",
            {"-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", include, "-c",
             dir.file("use.c"), "-o", dir.file("use.o")},
            dir) == 0);
  CHECK(run("g++",
            {"-std=c++17", "-fno-exceptions", "-fno-rtti", "-pedantic", "-Wall", "-Wextra",
             "-Werror", include, "-c", dir.file("use.cpp"), "-o", dir.file("usecpp.o")},
            dir) == 0);
}

TEST_CASE("a C++ program runs a model through the generated class") {
  TempDir dir;
  writeFile(dir.file("demo.h"), output::writeHeader(demoSignature()));
  writeFile(dir.file("model.c"), modelSource(demoSignature()));
  writeFile(dir.file("main.cpp"), kMainSource);
  std::string include = "-I" + includeDir();
  REQUIRE(run("gcc",
              {"-std=c99", "-O1", include, "-c", dir.file("model.c"), "-o", dir.file("model.o")},
              dir) == 0);
  std::vector<std::string> link = {"-std=c++17",
                                   "-fno-exceptions",
                                   "-fno-rtti",
                                   "-Wall",
                                   "-Werror",
                                   include,
                                   dir.file("main.cpp"),
                                   dir.file("model.o"),
                                   MOTE_TEST_RUNTIME_LIBRARY,
                                   "-o",
                                   dir.file("main")};
  if (std::string flags = MOTE_TEST_LINK_FLAGS; !flags.empty())
    link.push_back(flags);
  REQUIRE(run(MOTE_TEST_LINK_DRIVER, link, dir) == 0);
  std::string output;
  REQUIRE(run(dir.file("main"), {}, dir, &output) == 0);
  // y = 2x; flags (x > 0) come back row-major although the model stores them
  // column-major ({0,1} layout): the session relayouts them.
  CHECK(output == "2 -4 6 -8 10 -12 101010\nshape mismatch shape mismatch\n");
}
