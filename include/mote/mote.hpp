// ===- mote/mote.hpp - Thin C++17 wrappers over the C API -----------------===
//
// No exceptions, no RTTI, no heap: each class holds the C struct by value and
// forwards to the C functions, so C and C++ callers share one implementation.
// Ownership of every buffer stays with the caller, as in the C API.
//
// ===--------------------------------------------------------------------===
#ifndef MOTE_MOTE_HPP
#define MOTE_MOTE_HPP

#include "mote/mote.h"
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

// A bump allocator over memory the caller owns and keeps alive.
class Arena {
public:
  explicit Arena(Span<unsigned char> memory) {
    mote_arena_init(&arena_, memory.data(), memory.size());
  }
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
  Status init(const mote_model_desc &desc, mote_entry_fn entry) {
    return mote_model_init(&desc, entry, &model_);
  }
  const char *name() const { return mote_model_name(&model_); }
  uint32_t arg_count() const { return mote_model_arg_count(&model_); }
  uint32_t result_count() const { return mote_model_result_count(&model_); }
  uint64_t scratch_size() const { return mote_model_scratch_size(&model_); }
  uint32_t scratch_alignment() const { return mote_model_scratch_alignment(&model_); }
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
  Status init(const Model &model, const mote_transfer_manager &transfer, Arena &arena,
              const mote_env *env = nullptr) {
    return mote_session_init(&session_, model.get(), &transfer, env, arena.get());
  }
  template <typename T> Status set_input(uint32_t index, Span<const T> data) {
    return mote_session_set_input(&session_, index, data.data(), data.size_bytes());
  }
  template <typename T> Status set_output(uint32_t index, Span<T> data) {
    return mote_session_set_output(&session_, index, data.data(), data.size_bytes());
  }
  Status run() { return mote_session_run(&session_); }
  mote_session *get() { return &session_; }

private:
  mote_session session_ = {};
};

} // namespace mote

#endif // MOTE_MOTE_HPP
