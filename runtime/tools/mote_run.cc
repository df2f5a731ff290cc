//===- mote_run.cc - Run a .mote package on this machine ------------------===//
//
//   mote-run model.mote [--input x.npy]... [--output y.npy]...
//            [--bench N] [--threads K] [--features +a,+b] [--verbose]
//
// Opens and verifies the package, loads the code object built for this
// machine into executable memory (no system loader involved), binds the
// .npy inputs to the signature, runs the model on the host port and writes
// the results. Under qemu-aarch64 / qemu-riscv64 it runs any model for those
// machines without relinking anything.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "code_selection.h"
#include "file_io.h"
#include "host_code_memory.h"
#include "mapped_file.h"
#include "mote/mote.h"
#include "mote/package.h"
#include "mote_host.h"
#include "npy.h"

namespace {

using namespace mote::run;

// Exit codes (shared with scripts, keep stable).
constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitBadCommandLine = 2;
constexpr int kExitCannotRunHere = 3; // no code for this machine, or too little memory
constexpr int kExitModelFailed = 4;

// The largest package file: what the format's 32-bit offsets allow.
constexpr uint64_t kMaxPackageBytes = 0x7fffffffu;
// Room for a .npy header beyond the data it describes (numpy.save pads
// headers to 64 bytes; a rank-255 shape still fits in a few KiB).
constexpr uint64_t kNpyHeaderAllowance = 1u << 20;

constexpr const char kUsage[] =
    "usage: mote-run model.mote [--input x.npy]... [--output y.npy]...\n"
    "                [--bench N] [--threads K] [--features +a,+b] [--verbose]\n"
    "                [--weights model.weights] [--unchecked-weights]\n"
    "       mote-run --cpu-features   (what code selection sees on this machine)\n"
    "  --input     a .npy file for the next argument, in order (bf16 reads float32)\n"
    "  --output    where to write the next result (bf16 is written as float32);\n"
    "              without any, a summary of each result is printed\n"
    "  --bench N   run N more times after one warm-up and print\n"
    "              'latency_ms min=<x> median=<y> runs=<N>'\n"
    "  --threads K threads for parallel loops (default 1; 0 = one per CPU)\n"
    "  --features  CPU features to assume instead of the detected ones\n"
    "  --weights   the package's weights file (default: the one it names, next to it)\n"
    "  --unchecked-weights  skip the weights file's SHA-256 check (its size still is)\n"
    "An aliased result (input_output_alias) is written over its input's memory.\n"
    "exit: 0 ok, 1 bad input or package, 2 bad command line, 3 no code for\n"
    "      this machine or not enough memory for the model, 4 the model failed\n";

struct Options {
  const char *package = nullptr;
  std::vector<const char *> inputs, outputs;
  long bench = 0;
  long threads = 1;
  const char *features = nullptr;
  const char *weights = nullptr;
  bool checkWeights = true;
  bool verbose = false;
};

int fail(int code, const std::string &message) {
  fprintf(stderr, "mote-run: %s\n", message.c_str());
  return code;
}

bool parseCount(const char *text, long max, long *out) {
  char *end = nullptr;
  long value = strtol(text, &end, 10);
  if (!*text || *end || value < 0 || value > max)
    return false;
  *out = value;
  return true;
}

// Returns -1 when the options are fine, else the exit code.
int parseOptions(int argc, char **argv, Options *options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&](const char **out) {
      if (has_value) {
        *out = argv[i] + (arg.size() + 1);
        return true;
      }
      if (i + 1 >= argc)
        return false;
      *out = argv[++i];
      return true;
    };
    const char *text = nullptr;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage, stdout);
      return kExitOk;
    } else if (arg == "--cpu-features") {
      // Every feature a code object may require here, and whether this
      // machine has it.
      printf("%s\n", machineTriple());
      for (const FeatureProbe &probe : machineFeatureProbes())
        printf("%s %s\n", probe.name.c_str(), probe.present ? "yes" : "no");
      return kExitOk;
    } else if (arg == "--verbose" || arg == "-v") {
      options->verbose = true;
    } else if (arg == "--input" || arg == "-i") {
      if (!next(&text))
        return fail(kExitBadCommandLine, "--input needs a file");
      options->inputs.push_back(text);
    } else if (arg == "--output" || arg == "-o") {
      if (!next(&text))
        return fail(kExitBadCommandLine, "--output needs a file");
      options->outputs.push_back(text);
    } else if (arg == "--bench") {
      if (!next(&text) || !parseCount(text, 1000000000L, &options->bench) || options->bench == 0)
        return fail(kExitBadCommandLine, "--bench needs a positive count");
    } else if (arg == "--threads") {
      if (!next(&text) || !parseCount(text, MOTE_HOST_MAX_THREADS, &options->threads))
        return fail(kExitBadCommandLine,
                    "--threads needs a count from 0 to " + std::to_string(MOTE_HOST_MAX_THREADS));
    } else if (arg == "--weights") {
      if (!next(&options->weights))
        return fail(kExitBadCommandLine, "--weights needs a file");
    } else if (arg == "--unchecked-weights") {
      options->checkWeights = false;
    } else if (arg == "--features") {
      if (!next(&options->features))
        return fail(kExitBadCommandLine, "--features needs a list such as +v");
    } else if (arg[0] == '-' && arg.size() > 1) {
      return fail(kExitBadCommandLine, "unknown option '" + arg + "'\n" + kUsage);
    } else if (!options->package) {
      options->package = argv[i];
    } else {
      return fail(kExitBadCommandLine, "more than one package given ('" + arg + "')");
    }
  }
  if (!options->package)
    return fail(kExitBadCommandLine, std::string("no package given\n") + kUsage);
  return -1;
}

std::string describeTensor(const mote_tensor_info &info) {
  static const char *const kNames[] = {"?",   "pred", "s8",  "s16", "s32",  "s64", "u8",
                                       "u16", "u32",  "u64", "f16", "bf16", "f32", "f64",
                                       "c64", "c128", "s4",  "u4",  "s2",   "u2"};
  constexpr uint32_t kCount = sizeof kNames / sizeof kNames[0];
  std::string out = info.element_type < kCount ? kNames[info.element_type] : "?";
  out += "[";
  for (uint32_t d = 0; d < info.rank; ++d)
    out += (d ? "," : "") + std::to_string(info.dims[d]);
  return out + "]";
}

std::string describeNpy(const mote::npy::Array &array) {
  std::string out = mote::npy::dtypeName(array.element_type);
  out += "[";
  for (size_t d = 0; d < array.dims.size(); ++d)
    out += (d ? "," : "") + std::to_string(array.dims[d]);
  return out + "]";
}

// Reads input `index` and converts it to the argument's bytes (bf16 from
// float32), or returns false with `error` naming the argument.
bool bindInput(const char *path, uint32_t index, const mote_tensor_info &info,
               std::vector<uint8_t> *out, std::string *error) {
  std::vector<uint8_t> bytes;
  mote::npy::Array array;
  std::string problem;
  // bf16 arrives as float32: twice the bytes the argument holds.
  uint64_t data_bytes = info.byte_size * (info.element_type == MOTE_BF16 ? 2 : 1);
  if (!mote::io::readWholeFile(path, data_bytes + kNpyHeaderAllowance, &bytes, &problem) ||
      !mote::npy::decode(bytes.data(), bytes.size(), &array, &problem)) {
    *error = std::string(path) + ": " + problem;
    if (problem.compare(0, 9, "too large") == 0)
      *error += " for argument " + std::to_string(index) + " ('" + info.name + "', " +
                describeTensor(info) + ")";
    return false;
  }
  bool dims_match =
      array.dims.size() == info.rank && std::equal(array.dims.begin(), array.dims.end(), info.dims);
  // Sub-byte integers come one a byte, as int8/uint8 values in their range.
  const int sub_byte_bits = info.element_type == MOTE_S4 || info.element_type == MOTE_U4   ? 4
                            : info.element_type == MOTE_S2 || info.element_type == MOTE_U2 ? 2
                                                                                           : 0;
  const bool sub_byte_signed = info.element_type == MOTE_S4 || info.element_type == MOTE_S2;
  bool type_match = array.element_type == info.element_type ||
                    (info.element_type == MOTE_BF16 && array.element_type == MOTE_F32) ||
                    (sub_byte_bits && array.element_type == (sub_byte_signed ? MOTE_S8 : MOTE_U8));
  if (!dims_match || !type_match) {
    *error = "input '" + std::string(path) + "' does not fit argument " + std::to_string(index) +
             " ('" + info.name + "', " + describeTensor(info) + "): the file holds " +
             describeNpy(array) +
             (info.element_type == MOTE_BF16 ? " (bf16 is read from float32 files)" : "");
    return false;
  }
  if (sub_byte_bits) {
    const int low = sub_byte_signed ? -(1 << (sub_byte_bits - 1)) : 0;
    const int high = sub_byte_signed ? (1 << (sub_byte_bits - 1)) - 1 : (1 << sub_byte_bits) - 1;
    for (uint8_t byte : array.data) {
      int value = sub_byte_signed ? int(int8_t(byte)) : int(byte);
      if (value < low || value > high) {
        *error = "input '" + std::string(path) + "' does not fit argument " +
                 std::to_string(index) + " ('" + info.name + "', " + describeTensor(info) +
                 "): it holds " + std::to_string(value) + ", outside [" + std::to_string(low) +
                 ", " + std::to_string(high) + "]";
        return false;
      }
    }
  }
  if (info.element_type == MOTE_BF16) {
    out->resize(array.data.size() / 2);
    for (size_t i = 0; i < array.data.size() / 4; ++i) {
      float value;
      memcpy(&value, array.data.data() + 4 * i, 4);
      uint16_t half = mote::npy::bfloat16FromFloat(value);
      memcpy(out->data() + 2 * i, &half, 2);
    }
  } else {
    *out = std::move(array.data);
  }
  return true;
}

// One element of a result as text, for the summary.
std::string formatElement(uint32_t type, const uint8_t *p) {
  char text[64];
  auto load = [p](auto value) {
    memcpy(&value, p, sizeof value);
    return value;
  };
  switch (type) {
  case MOTE_PRED:
    return p[0] ? "true" : "false";
  case MOTE_S8:
  case MOTE_S4:
  case MOTE_S2:
    return std::to_string(load(int8_t()));
  case MOTE_S16:
    return std::to_string(load(int16_t()));
  case MOTE_S32:
    return std::to_string(load(int32_t()));
  case MOTE_S64:
    return std::to_string(load(int64_t()));
  case MOTE_U8:
  case MOTE_U4:
  case MOTE_U2:
    return std::to_string(load(uint8_t()));
  case MOTE_U16:
    return std::to_string(load(uint16_t()));
  case MOTE_U32:
    return std::to_string(load(uint32_t()));
  case MOTE_U64:
    return std::to_string(load(uint64_t()));
  case MOTE_BF16: {
    uint32_t bits = uint32_t(load(uint16_t())) << 16;
    float value;
    memcpy(&value, &bits, 4);
    snprintf(text, sizeof text, "%g", value);
    return text;
  }
  case MOTE_F16:
    snprintf(text, sizeof text, "f16:0x%04x", load(uint16_t()));
    return text;
  case MOTE_F32:
    snprintf(text, sizeof text, "%g", load(float()));
    return text;
  case MOTE_F64:
    snprintf(text, sizeof text, "%g", load(double()));
    return text;
  case MOTE_C64: {
    float parts[2];
    memcpy(parts, p, sizeof parts);
    snprintf(text, sizeof text, "(%g, %g)", parts[0], parts[1]);
    return text;
  }
  case MOTE_C128: {
    double parts[2];
    memcpy(parts, p, sizeof parts);
    snprintf(text, sizeof text, "(%g, %g)", parts[0], parts[1]);
    return text;
  }
  default:
    return "?";
  }
}

void printSummary(uint32_t index, const mote_tensor_info &info, const uint8_t *data) {
  constexpr uint64_t kShown = 8;
  size_t element = mote_element_size(info.element_type);
  std::string values;
  for (uint64_t i = 0; i < info.element_count && i < kShown; ++i)
    values += (i ? ", " : "") + formatElement(info.element_type, data + i * element);
  if (info.element_count > kShown)
    values += ", ... (" + std::to_string(info.element_count) + " elements)";
  printf("result %u '%s': %s = [%s]\n", index, info.name, describeTensor(info).c_str(),
         values.c_str());
}

// Whether a file that is no package is the text of a model: HLO text
// starts with "HloModule", StableHLO's MLIR holds a "module" or "func.func".
bool looksLikeModelText(const uint8_t *bytes, size_t size) {
  std::string head(reinterpret_cast<const char *>(bytes), std::min<size_t>(size, 4096));
  return head.find("HloModule") != std::string::npos ||
         head.find("func.func") != std::string::npos || head.find("module @") != std::string::npos;
}

double nowMs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// Everything that must be released at exit, whatever path leaves main.
struct Resources {
  void *code = nullptr;
  size_t code_size = 0;
  mote_host_thread_pool *pool = nullptr;
  void *memory = nullptr; // the session's arena
  ~Resources() {
    free(memory);
    if (pool) {
      mote_host_thread_pool_deinit(pool);
      delete pool;
    }
    if (code)
      mote_host_code_free(code, code_size);
  }
};

// Sums sizes without wrapping: SIZE_MAX stands for "more than can exist".
size_t addSize(size_t a, uint64_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + size_t(b); }

// The weights file of `package`, by --weights or the name the package gives
// it (relative to the package's folder), mapped and handed to `model`.
int bindWeightsFile(const Options &options, const mote_package &package, uint32_t code_index,
                    MappedFile *file, mote_model *model) {
  mote_package_weights_info info;
  if (mote_package_weights(&package, &info) != MOTE_OK || info.size == 0 || info.in_package)
    return -1;
  std::string path = options.weights ? options.weights : info.file;
  if (!options.weights && path[0] != '/') {
    std::string package_path = options.package;
    size_t slash = package_path.rfind('/');
    if (slash != std::string::npos)
      path = package_path.substr(0, slash + 1) + path;
  }
  std::string error;
  if (!file->open(path.c_str(), &error))
    return fail(kExitBadInput, path + ": " + error +
                                   " (the package's weights; --weights names "
                                   "another place)");
  mote_status status = mote_package_bind_weights(&package, code_index, file->data(), file->size(),
                                                 options.checkWeights, model);
  if (status != MOTE_OK)
    return fail(kExitBadInput, path + ": " + mote_status_message(status));
  return -1;
}

int run(const Options &options) {
  MappedFile package_file, weights_file;
  std::string error;
  if (!package_file.open(options.package, &error))
    return fail(kExitBadInput, std::string(options.package) + ": " + error);
  if (package_file.size() > kMaxPackageBytes)
    return fail(kExitBadInput, std::string(options.package) + ": " +
                                   std::to_string(package_file.size()) +
                                   " bytes, more than a package can hold (2 GiB)");
  mote_package package;
  mote_status status = mote_package_open(package_file.data(), package_file.size(), &package);
  if (status != MOTE_OK && looksLikeModelText(package_file.data(), package_file.size()))
    return fail(kExitBadInput, std::string(options.package) +
                                   ": this is a model's text (HLO or StableHLO), not a .mote "
                                   "package; compile it first: motec compile " +
                                   options.package + " -o model.mote");
  if (status != MOTE_OK)
    return fail(kExitBadInput, std::string(options.package) + ": " + mote_status_message(status));
  // A package file holds one package and nothing else.
  size_t end = size_t(package.buffer + package.buffer_size - package_file.data());
  if (end != package_file.size())
    return fail(kExitBadInput, std::string(options.package) + ": " +
                                   std::to_string(package_file.size() - end) +
                                   " bytes after the end of the package (it is " +
                                   std::to_string(end) + " bytes long)");

  const char *triple = machineTriple();
  std::string features = options.features ? options.features : machineFeatures();
  uint32_t code_index = 0;
  status = selectCode(&package, triple, features, &code_index);
  if (status == MOTE_NO_MATCHING_CODE) {
    std::string have;
    for (uint32_t i = 0; i < mote_package_code_count(&package); ++i) {
      mote_package_code code;
      if (mote_package_code_info(&package, i, &code) == MOTE_OK)
        have += std::string("\n  ") + code.triple + " " + code.cpu + " " + code.features;
    }
    return fail(kExitCannotRunHere, std::string(options.package) + ": no code for this machine (" +
                                        triple + " " + features + "); the package has:" + have);
  }
  if (status != MOTE_OK)
    return fail(kExitBadInput, std::string(options.package) + ": " + mote_status_message(status));
  if (options.verbose) {
    mote_package_code code;
    if (mote_package_code_info(&package, code_index, &code) == MOTE_OK)
      fprintf(stderr, "mote-run: code object %u: %s %s %s (machine: %s)\n", code_index, code.triple,
              code.cpu, code.features, features.c_str());
  }

  Resources resources;
  size_t alignment = 0;
  status = mote_package_code_memory(&package, code_index, &resources.code_size, &alignment);
  if (status == MOTE_OK)
    status = mote_host_code_alloc(resources.code_size, &resources.code);
  mote_model model;
  if (status == MOTE_OK)
    status = mote_package_load(&package, code_index, resources.code, resources.code_size,
                               mote_host_code_make_executable, nullptr, &model);
  if (status != MOTE_OK)
    return fail(kExitBadInput, std::string(options.package) + ": " + mote_status_message(status));
  if (int code = bindWeightsFile(options, package, code_index, &weights_file, &model); code >= 0)
    return code;

  uint32_t arg_count = mote_model_arg_count(&model);
  uint32_t result_count = mote_model_result_count(&model);
  if (options.inputs.size() != arg_count)
    return fail(kExitBadInput, "the model takes " + std::to_string(arg_count) + " inputs, " +
                                   std::to_string(options.inputs.size()) + " given");
  if (!options.outputs.empty() && options.outputs.size() != result_count)
    return fail(kExitBadInput, "the model has " + std::to_string(result_count) + " results, " +
                                   std::to_string(options.outputs.size()) + " outputs given");

  std::vector<std::vector<uint8_t>> inputs(arg_count), results(result_count);
  std::vector<mote_tensor_info> result_info(result_count);
  size_t memory_size = addSize(mote_session_table_size(&model), mote_model_scratch_size(&model));
  memory_size = addSize(memory_size, uint64_t(mote_model_scratch_alignment(&model)) + 64);
  for (uint32_t i = 0; i < arg_count; ++i) {
    mote_tensor_info info;
    if (mote_model_arg_info(&model, i, &info) != MOTE_OK ||
        !bindInput(options.inputs[i], i, info, &inputs[i], &error))
      return fail(kExitBadInput, error);
    memory_size = addSize(addSize(memory_size, info.byte_size), MOTE_HOST_ALIGNMENT);
  }
  for (uint32_t i = 0; i < result_count; ++i) {
    if (mote_model_result_info(&model, i, &result_info[i]) != MOTE_OK)
      return fail(kExitBadInput, "cannot describe result " + std::to_string(i));
    memory_size = addSize(addSize(memory_size, result_info[i].byte_size), MOTE_HOST_ALIGNMENT);
  }

  // Threads first: the env handed to the session points at the pool.
  resources.pool = new mote_host_thread_pool;
  status = mote_host_thread_pool_init(resources.pool, uint32_t(options.threads));
  if (status != MOTE_OK) {
    delete resources.pool;
    resources.pool = nullptr;
    return fail(kExitModelFailed, std::string("thread pool: ") + mote_status_message(status));
  }
  mote_env env;
  mote_host_env(resources.pool, &env);

  // One block for the session: its tables, the scratch, and device copies of
  // tensors that cannot be used in place.
  resources.memory = memory_size == SIZE_MAX ? nullptr : calloc(1, memory_size);
  if (!resources.memory)
    return fail(kExitCannotRunHere, "not enough memory: the model needs " +
                                        mote::io::describeBytes(memory_size) +
                                        " for its scratch arena (" +
                                        mote::io::describeBytes(mote_model_scratch_size(&model)) +
                                        ") and tensors, and this machine cannot give them");
  for (uint32_t i = 0; i < result_count; ++i)
    results[i].resize(result_info[i].byte_size);
  mote_arena arena;
  mote_arena_init(&arena, resources.memory, memory_size);
  mote_direct_transfer storage;
  mote_transfer_manager transfer;
  mote_session session;
  status = mote_host_transfer_init(&storage, &arena, &transfer);
  if (status == MOTE_OK)
    status = mote_session_init(&session, &model, &transfer, &env, &arena);
  for (uint32_t i = 0; i < arg_count && status == MOTE_OK; ++i)
    status = mote_session_set_input(&session, i, inputs[i].data(), inputs[i].size());
  // An aliased result is its input updated in place: it lands in the
  // input's memory, with no second copy of the state.
  std::vector<const uint8_t *> result_data(result_count);
  std::vector<bool> in_place(result_count, false);
  for (uint32_t i = 0; i < result_count; ++i)
    result_data[i] = results[i].data();
  for (uint32_t a = 0; a < mote_model_alias_count(&model) && status == MOTE_OK; ++a) {
    uint32_t result, arg;
    int must;
    status = mote_model_alias(&model, a, &result, &arg, &must);
    if (status == MOTE_OK)
      status = mote_session_set_output_in_place(&session, result);
    if (status == MOTE_OK) {
      result_data[result] = inputs[arg].data();
      in_place[result] = true;
      if (options.verbose)
        fprintf(stderr, "mote-run: result %u updates input %u in place (%s)\n", result, arg,
                must ? "must-alias" : "may-alias");
    }
  }
  for (uint32_t i = 0; i < result_count && status == MOTE_OK; ++i)
    if (!in_place[i])
      status = mote_session_set_output(&session, i, results[i].data(), results[i].size());
  if (status != MOTE_OK)
    return fail(kExitModelFailed,
                std::string("cannot prepare the run: ") + mote_status_message(status));

  status = mote_session_run(&session);
  if (status != MOTE_OK)
    return fail(kExitModelFailed, std::string("the model failed: ") + mote_status_message(status));
  if (options.bench > 0) {
    std::vector<double> times;
    for (long i = 0; i < options.bench && status == MOTE_OK; ++i) {
      double start = nowMs();
      status = mote_session_run(&session);
      times.push_back(nowMs() - start);
    }
    if (status != MOTE_OK)
      return fail(kExitModelFailed,
                  std::string("the model failed: ") + mote_status_message(status));
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    printf("latency_ms min=%.4f median=%.4f runs=%zu\n", times[0], median, n);
  }

  for (uint32_t i = 0; i < result_count; ++i) {
    const mote_tensor_info &info = result_info[i];
    if (options.outputs.empty()) {
      if (options.bench == 0)
        printSummary(i, info, result_data[i]);
      continue;
    }
    std::vector<uint8_t> encoded = mote::npy::encode(info.element_type, info.dims, info.rank,
                                                     result_data[i], size_t(info.byte_size));
    if (!mote::io::writeWholeFile(options.outputs[i], encoded.data(), encoded.size(), &error))
      return fail(kExitBadInput, std::string(options.outputs[i]) + ": " + error);
  }
  return kExitOk;
}

} // namespace

// Any allocation the checks above did not foresee (a result buffer, a
// large input) ends here rather than in std::bad_alloc's abort.
void outOfMemory() {
  fputs("mote-run: not enough memory for this model on this machine\n", stderr);
  _Exit(kExitCannotRunHere);
}

int main(int argc, char **argv) {
  std::set_new_handler(outOfMemory);
  Options options;
  int code = parseOptions(argc, argv, &options);
  if (code >= 0)
    return code;
  code = run(options);
  fflush(stdout);
  return code;
}
