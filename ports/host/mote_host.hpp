// ===- ports/host/mote_host.hpp - The host port for C++ programs ----------===
//
// RAII over the host port's resources (mote_host.h): a package loaded from a
// file, released with the object, and a thread pool, stopped with it.
//
//   mote::PackageFile package;
//   if (mote::Status status = package.load("model.mote"); !status) ...
//   std::vector<unsigned char> memory(package.arena_size());
//   mote::Session session;
//   session.init(package.model(), memory);
//
// ===--------------------------------------------------------------------===
#ifndef MOTE_HOST_HPP
#define MOTE_HOST_HPP

#include "mote/mote.hpp"
#include "mote_host.h"

namespace mote {

// A package file with its code for this machine loaded (mote_package_load_file).
class PackageFile {
public:
  PackageFile() = default;
  PackageFile(const PackageFile &) = delete;
  PackageFile &operator=(const PackageFile &) = delete;
  ~PackageFile() { mote_package_unload(&package_); }

  // Loads `path`, releasing what was loaded before.
  Status load(const char *path) {
    mote_package_unload(&package_);
    Status status = mote_package_load_file(path, &package_);
    model_ = status ? Model(package_.loaded.model) : Model();
    return status;
  }
  const Model &model() const { return model_; }
  // The memory Session::init(model(), memory) needs at most.
  size_t arena_size() const { return package_.loaded.arena_size; }
  const mote_package *get() const { return &package_.loaded.package; }

private:
  mote_host_package package_ = {};
  Model model_;
};

// Worker threads for parallel_for; a model runs on them through env().
class ThreadPool {
public:
  ThreadPool() = default;
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool() {
    if (started_)
      mote_host_thread_pool_deinit(&pool_);
  }
  // `threads` in all, the caller's included (0: one per CPU).
  Status init(uint32_t threads) {
    if (started_)
      mote_host_thread_pool_deinit(&pool_);
    Status status = mote_host_thread_pool_init(&pool_, threads);
    started_ = status.ok();
    if (started_)
      mote_host_env(&pool_, &env_);
    return status;
  }
  const mote_env *env() const { return started_ ? &env_ : nullptr; }

private:
  mote_host_thread_pool pool_;
  mote_env env_ = {nullptr, nullptr};
  bool started_ = false;
};

} // namespace mote

#endif // MOTE_HOST_HPP
