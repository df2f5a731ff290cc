/*===- ports/host/mote_host.h - The Linux / Android port -------------------===
 *
 * What the host port gives a program on Linux or Android (x86-64, aarch64,
 * riscv64): its TransferManager (direct memory, MOTE_HOST_ALIGNMENT) and a
 * thread pool behind mote_env.parallel_for. Both live in caller storage.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_HOST_H
#define MOTE_HOST_H

#include <pthread.h>
#include <stdint.h>

#include "mote/mote.h"

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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_HOST_H */
