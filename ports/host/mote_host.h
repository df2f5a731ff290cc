/*===- ports/host/mote_host.h - The Linux / Android port -------------------===
 *
 * What the host port gives a program on Linux or Android (x86-64, aarch64,
 * riscv64): its TransferManager (direct memory, MOTE_HOST_ALIGNMENT), a
 * thread pool behind mote_env.parallel_for (both in caller storage), and
 * packages loaded from a file in one call.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_HOST_H
#define MOTE_HOST_H

#include <pthread.h>
#include <stdint.h>

#include "mote/mote.h"
#include "mote/package.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Alignment of device buffers, and what host memory needs to be used in
 * place: what malloc and new give on 64-bit Linux, so most user buffers are
 * used without a copy. */
#define MOTE_HOST_ALIGNMENT 16u

/* The most threads a pool runs (including the caller's). */
#define MOTE_HOST_MAX_THREADS 64u

/* Fills `out_transfer` with the host's TransferManager: device buffers come
 * from `arena`. `storage` and `arena` must outlive `out_transfer`. */
mote_status mote_host_transfer_init(mote_direct_transfer *storage, mote_arena *arena,
                                    mote_transfer_manager *out_transfer);

/* A fixed set of worker threads sharing parallel_for work with the calling
 * thread. The fields are the port's. */
typedef struct mote_host_thread_pool {
  pthread_t workers[MOTE_HOST_MAX_THREADS];
  uint32_t thread_count; /* workers + the calling thread */
  uint32_t started;      /* workers running */
  pthread_mutex_t mutex;
  pthread_cond_t wake;    /* a new job (or stop) for workers */
  pthread_cond_t idle;    /* the last worker left the job */
  pthread_mutex_t submit; /* held while a job runs; others run inline */
  mote_task_fn body;
  void *context;
  int64_t count;
  int64_t chunk;
  uint64_t claim;      /* job number << 32 | next index to hand out (atomic) */
  int64_t completed;   /* indices of the current job that have run (atomic) */
  uint32_t sleeping;   /* workers waiting on `wake` (under `mutex`) */
  int caller_sleeping; /* the caller waits on `idle` (under `mutex`) */
  int stop;            /* (atomic) */
} mote_host_thread_pool;

/* Starts `thread_count` - 1 workers (`thread_count` 0 means one per online
 * CPU; 1 means no threads: parallel_for runs inline). MOTE_INVALID_ARGUMENT
 * beyond MOTE_HOST_MAX_THREADS, MOTE_DEVICE_ERROR when a thread cannot be
 * created (the pool is then deinitialized). `pool` must not move and must
 * be deinitialized before its storage goes. */
mote_status mote_host_thread_pool_init(mote_host_thread_pool *pool, uint32_t thread_count);

/* Stops and joins the workers. Not while a parallel_for runs. */
void mote_host_thread_pool_deinit(mote_host_thread_pool *pool);

/* Threads the pool uses, the caller's included. */
uint32_t mote_host_thread_pool_size(const mote_host_thread_pool *pool);

/* Runs body(context, i) for every i in [0, count) on the pool and returns
 * when all have returned. A call made while the pool is busy (from inside a
 * body, or from another thread) runs inline. */
void mote_host_parallel_for(void *pool, mote_task_fn body, void *context, int64_t count);

/* Fills `out_env` so generated code uses `pool` (which must outlive it); a
 * pool of one thread leaves parallel_for null (the code runs sequentially). */
void mote_host_env(mote_host_thread_pool *pool, mote_env *out_env);

/* A package file loaded for this machine by mote_package_load_file. `loaded`
 * holds the model and the arena size a session needs (mote/package.h); the
 * other fields are the port's. */
typedef struct mote_host_package {
  mote_loaded_package loaded;
  void *file; /* the file, mapped read-only */
  size_t file_size;
  void *code; /* executable memory holding the loaded code */
  size_t code_size;
} mote_host_package;

/* Maps the package file at `path`, verifies it, picks the code object for
 * this machine (mote/machine.h) and loads it into executable memory:
 * everything but the session, in one call. MOTE_FILE_ERROR when the file
 * cannot be read, otherwise the statuses of mote_package_load_memory. On
 * failure nothing is left to release; on success release the file and the
 * code with mote_package_unload once the model is no longer used. */
mote_status mote_package_load_file(const char *path, mote_host_package *out);

/* The same for package bytes already in memory (`size` bytes at `bytes`,
 * which must outlive `out`): only the code memory is taken. */
mote_status mote_package_load_bytes(const void *bytes, size_t size, mote_host_package *out);

/* Releases what mote_package_load_file or _bytes took (nothing for a
 * zeroed struct). */
void mote_package_unload(mote_host_package *package);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_HOST_H */
