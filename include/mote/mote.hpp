// ===- mote/mote.hpp - C++17 wrappers over the C API ----------------------===
//
// No exceptions, no RTTI, no heap: each class holds the C structs by value
// and forwards to the C functions, so C and C++ callers share one
// implementation. Ownership of every buffer stays with the caller, as in the
// C API; a Session or Package refers to the memory it was given and to
// itself, so it is neither copied nor moved.
//
// What the wrappers add is checking and deduction:
//   - Session::set_input / set_output take an array, a container or a Span,
//     deduce its element type and check it, and the element count, against
//     the tensor (a mismatch is MOTE_SHAPE_MISMATCH, nothing is bound);
//   - Session::init(model, memory) sets up the arena and the runtime's
//     direct-memory TransferManager itself;
//   - Package::load turns package bytes into a Model in one call.
// On Linux, the host port's mote_host.hpp adds PackageFile and ThreadPool.
//
//   mote::Model model;          model.init(mlp_model, mlp_entry);
//   mote::Session session;      session.init(model, memory);
//   session.set_input(0, x);    session.set_output(0, y);    session.run();
//
// ===--------------------------------------------------------------------===
#ifndef MOTE_MOTE_HPP
#define MOTE_MOTE_HPP

#include <stdint.h>

#include "mote/mote.h"
#include "mote/package.h"
#include "mote/span.h"

namespace mote {

// A status that the compiler insists is looked at.
class [[nodiscard]] Status {
public:
  constexpr Status(mote_status code = MOTE_OK) : code_(code) {}
  constexpr bool ok() const { return code_ == MOTE_OK; }
  constexpr explicit operator bool() const { return ok(); }
  constexpr mote_status code() const { return code_; }
  const char *message() const { return mote_status_message(code_); }
  friend constexpr bool operator==(Status a, Status b) { return a.code_ == b.code_; }
  friend constexpr bool operator!=(Status a, Status b) { return a.code_ != b.code_; }

private:
  mote_status code_;
};

// Element types without a C++ type of their own: raw bits of the 16-bit
// floats, (real, imaginary) pairs of the complex types.
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};
struct c64 {
  float real, imag;
};
struct c128 {
  double real, imag;
};

// Which mote_element_type a C++ element type may hold. The integer types
// also hold the sub-byte types (one element a byte) and bool holds pred.
template <uint32_t... Types> struct ElementTypes {
  static constexpr bool matches(uint32_t type) { return ((type == Types) || ...); }
};
template <typename T> struct ElementType : ElementTypes<> {};
template <typename T> struct ElementType<const T> : ElementType<T> {};
template <> struct ElementType<bool> : ElementTypes<MOTE_PRED> {};
template <> struct ElementType<int8_t> : ElementTypes<MOTE_S8, MOTE_S4, MOTE_S2> {};
template <> struct ElementType<uint8_t> : ElementTypes<MOTE_U8, MOTE_U4, MOTE_U2, MOTE_PRED> {};
template <> struct ElementType<int16_t> : ElementTypes<MOTE_S16> {};
template <> struct ElementType<uint16_t> : ElementTypes<MOTE_U16> {};
template <> struct ElementType<int32_t> : ElementTypes<MOTE_S32> {};
template <> struct ElementType<uint32_t> : ElementTypes<MOTE_U32> {};
template <> struct ElementType<int64_t> : ElementTypes<MOTE_S64> {};
template <> struct ElementType<uint64_t> : ElementTypes<MOTE_U64> {};
template <> struct ElementType<f16> : ElementTypes<MOTE_F16> {};
template <> struct ElementType<bf16> : ElementTypes<MOTE_BF16> {};
template <> struct ElementType<float> : ElementTypes<MOTE_F32> {};
template <> struct ElementType<double> : ElementTypes<MOTE_F64> {};
template <> struct ElementType<c64> : ElementTypes<MOTE_C64> {};
template <> struct ElementType<c128> : ElementTypes<MOTE_C128> {};

// MOTE_OK when `count` elements of T are exactly the tensor `info`.
template <typename T> Status check_tensor(const mote_tensor_info &info, size_t count) {
  if (!ElementType<T>::matches(info.element_type) || count != info.element_count ||
      sizeof(T) * count != info.byte_size)
    return MOTE_SHAPE_MISMATCH;
  return MOTE_OK;
}

// A bump allocator over memory the caller owns and keeps alive.
class Arena {
public:
  Arena() { mote_arena_init(&arena_, nullptr, 0); }
  explicit Arena(Span<unsigned char> memory) { reset(memory); }
  void reset(Span<unsigned char> memory) { mote_arena_init(&arena_, memory.data(), memory.size()); }
  Status allocate(size_t size, size_t alignment, void **out_memory) {
    return mote_arena_allocate(&arena_, size, alignment, out_memory);
  }
  void reset() { mote_arena_reset(&arena_); }
  size_t used() const { return mote_arena_used(&arena_); }
  mote_arena *get() { return &arena_; }

private:
  mote_arena arena_;
};

// A verified model; the descriptor and code must outlive it.
class Model {
public:
  Model() = default;
  // A model already verified, e.g. one a package loaded.
  explicit Model(const mote_model &model) : model_(model) {}
  Status init(const mote_model_desc &desc, mote_entry_fn entry) {
    return mote_model_init(&desc, entry, &model_);
  }
  const char *name() const { return mote_model_name(&model_); }
  const char *triple() const { return mote_model_triple(&model_); }
  uint32_t arg_count() const { return mote_model_arg_count(&model_); }
  uint32_t result_count() const { return mote_model_result_count(&model_); }
  uint64_t scratch_size() const { return mote_model_scratch_size(&model_); }
  uint32_t scratch_alignment() const { return mote_model_scratch_alignment(&model_); }
  // The memory Session::init(model, memory) needs at most.
  size_t arena_size(size_t alignment = 16) const {
    return mote_session_arena_size(&model_, alignment);
  }
  Status arg_info(uint32_t index, mote_tensor_info *out_info) const {
    return mote_model_arg_info(&model_, index, out_info);
  }
  Status result_info(uint32_t index, mote_tensor_info *out_info) const {
    return mote_model_result_info(&model_, index, out_info);
  }
  // Runs on buffers already in the compiled layouts.
  Status run(Span<const void *const> args, Span<void *const> results, Span<unsigned char> scratch,
             const mote_env *env = nullptr) const {
    if (args.size() != arg_count() || results.size() != result_count())
      return MOTE_INVALID_ARGUMENT;
    return mote_model_run(&model_, args.data(), results.data(), scratch.data(), scratch.size(),
                          env);
  }
  const mote_model *get() const { return &model_; }

private:
  mote_model model_ = {nullptr, nullptr, nullptr};
};

// Binds row-major host data, runs, leaves row-major results in host memory.
class Session {
public:
  Session() = default;
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Runs `model` in `memory` (model.arena_size(alignment) bytes suffice)
  // through the runtime's direct-memory TransferManager at `alignment`.
  // `model` and `memory` must outlive the session.
  Status init(const Model &model, Span<unsigned char> memory, const mote_env *env = nullptr,
              size_t alignment = 16) {
    arena_.reset(memory);
    Status status = mote_direct_transfer_init(&direct_, arena_.get(), alignment, &own_transfer_);
    return status ? init(model, own_transfer_, arena_, env) : status;
  }
  // The session keeps a pointer to the model: not to a temporary one.
  Status init(const Model &&, Span<unsigned char>, const mote_env * = nullptr,
              size_t = 16) = delete;
  // Runs `model` through a port's TransferManager, tables from `arena`.
  Status init(const Model &model, const mote_transfer_manager &transfer, Arena &arena,
              const mote_env *env = nullptr) {
    return mote_session_init(&session_, model.get(), &transfer, env, arena.get());
  }

  // Binds argument `index` to an array, container or Span of its element
  // type holding exactly its elements (row-major).
  template <typename T> Status set_input(uint32_t index, Span<const T> data) {
    mote_tensor_info info;
    Status status = mote_model_arg_info(session_.model, index, &info);
    if (status)
      status = check_tensor<T>(info, data.size());
    return status ? Status(mote_session_set_input(&session_, index, data.data(), data.size_bytes()))
                  : status;
  }
  template <typename C> Status set_input(uint32_t index, const C &data) {
    return set_input(index,
                     Span<const typename decltype(make_span(data))::element_type>(make_span(data)));
  }
  // Says where run() leaves result `index`: an array, container or Span of
  // its element type with room for exactly its elements.
  template <typename T> Status set_output(uint32_t index, Span<T> data) {
    mote_tensor_info info;
    Status status = mote_model_result_info(session_.model, index, &info);
    if (status)
      status = check_tensor<T>(info, data.size());
    return status
               ? Status(mote_session_set_output(&session_, index, data.data(), data.size_bytes()))
               : status;
  }
  template <typename C> Status set_output(uint32_t index, C &data) {
    return set_output(index, make_span(data));
  }
  // Untyped: `size` bytes, at least the tensor's (mote_session_set_input).
  Status set_input_bytes(uint32_t index, const void *data, size_t size) {
    return mote_session_set_input(&session_, index, data, size);
  }
  Status set_output_bytes(uint32_t index, void *data, size_t size) {
    return mote_session_set_output(&session_, index, data, size);
  }
  Status run() { return mote_session_run(&session_); }
  mote_session *get() { return &session_; }

private:
  mote_session session_ = {};
  Arena arena_;
  mote_direct_transfer direct_ = {};
  mote_transfer_manager own_transfer_ = {};
};

// A package whose code for this machine is loaded from bytes in memory
// (mote_package_load_memory): the bytes and the code memory must outlive it.
class Package {
public:
  Package() = default;
  Package(const Package &) = delete;
  Package &operator=(const Package &) = delete;

  // The code memory `bytes` needs on this machine, before loading.
  static Status requirements(Span<const unsigned char> bytes, mote_package_requirements *out) {
    return mote_package_requirements_for(bytes.data(), bytes.size(), out);
  }
  Status load(Span<const unsigned char> bytes, Span<unsigned char> code_memory,
              mote_make_executable_fn make_executable = nullptr, void *user = nullptr) {
    Status status = mote_package_load_memory(bytes.data(), bytes.size(), code_memory.data(),
                                             code_memory.size(), make_executable, user, &loaded_);
    model_ = status ? Model(loaded_.model) : Model();
    return status;
  }
  const Model &model() const { return model_; }
  // The memory Session::init(model(), memory) needs at most.
  size_t arena_size() const { return loaded_.arena_size; }
  const mote_package *get() const { return &loaded_.package; }

private:
  mote_loaded_package loaded_ = {};
  Model model_;
};

} // namespace mote

#endif // MOTE_MOTE_HPP
