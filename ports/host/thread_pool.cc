// ===- ports/host/thread_pool.cc - parallel_for on a fixed set of threads -===
//
// One job at a time: the caller publishes (body, context, count), wakes the
// workers, takes chunks of indices itself, and waits until every worker has
// left the job. Indices are handed out with an atomic counter, so each runs
// exactly once whatever the scheduling. Nothing is allocated after init.
//
// A model's ops come one after another, each a job of a few microseconds to
// milliseconds: waking a sleeping thread costs tens of microseconds, more
// than a small job. So workers and the caller first spin for a while on the
// atomics (as XNNPACK's pthreadpool does) and only then sleep on a
// condition variable; the mutex orders sleeping against waking, so no wake
// is lost.
#include <unistd.h>

#include "mote_host.h"

namespace {

void run_chunks(mote_host_thread_pool *pool) {
  for (;;) {
    int64_t begin = __atomic_fetch_add(&pool->next, pool->chunk, __ATOMIC_RELAXED);
    if (begin >= pool->count)
      return;
    int64_t end = begin + pool->chunk < pool->count ? begin + pool->chunk : pool->count;
    for (int64_t i = begin; i < end; ++i)
      pool->body(pool->context, i);
  }
}

/// Polls of a flag before sleeping: about 100 microseconds.
constexpr int kSpins = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#else
  __asm__ __volatile__("" ::: "memory");
#endif
}

/// Waits until the pool's generation differs from `seen` or it stops;
/// returns the generation.
uint64_t wait_for_job(mote_host_thread_pool *pool, uint64_t seen) {
  for (int spin = 0; spin < kSpins; ++spin) {
    uint64_t generation = __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
    if (generation != seen || __atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      return generation;
    cpu_relax();
  }
  pthread_mutex_lock(&pool->mutex);
  ++pool->sleeping;
  while (!__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE) &&
         __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) == seen)
    pthread_cond_wait(&pool->wake, &pool->mutex);
  --pool->sleeping;
  pthread_mutex_unlock(&pool->mutex);
  return __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
}

void *worker_main(void *argument) {
  mote_host_thread_pool *pool = static_cast<mote_host_thread_pool *>(argument);
  uint64_t seen = 0;
  for (;;) {
    seen = wait_for_job(pool, seen);
    if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      break;
    run_chunks(pool);
    if (__atomic_sub_fetch(&pool->active, 1, __ATOMIC_ACQ_REL) == 0) {
      pthread_mutex_lock(&pool->mutex);
      if (pool->caller_sleeping)
        pthread_cond_signal(&pool->idle);
      pthread_mutex_unlock(&pool->mutex);
    }
  }
  return nullptr;
}

void run_inline(mote_task_fn body, void *context, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    body(context, i);
}

} // namespace

extern "C" mote_status mote_host_thread_pool_init(mote_host_thread_pool *pool,
                                                  uint32_t thread_count) {
  if (!pool)
    return MOTE_INVALID_ARGUMENT;
  if (thread_count == 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    thread_count = online < 1                             ? 1
                   : online > long{MOTE_HOST_MAX_THREADS} ? MOTE_HOST_MAX_THREADS
                                                          : static_cast<uint32_t>(online);
  }
  if (thread_count > MOTE_HOST_MAX_THREADS)
    return MOTE_INVALID_ARGUMENT;
  pool->thread_count = thread_count;
  pool->started = 0;
  pool->body = nullptr;
  pool->context = nullptr;
  pool->count = 0;
  pool->chunk = 1;
  pool->next = 0;
  pool->generation = 0;
  pool->active = 0;
  pool->sleeping = 0;
  pool->caller_sleeping = 0;
  pool->stop = 0;
  pthread_mutex_init(&pool->mutex, nullptr);
  pthread_mutex_init(&pool->submit, nullptr);
  pthread_cond_init(&pool->wake, nullptr);
  pthread_cond_init(&pool->idle, nullptr);
  for (uint32_t i = 0; i + 1 < thread_count; ++i) {
    if (pthread_create(&pool->workers[i], nullptr, worker_main, pool) != 0) {
      mote_host_thread_pool_deinit(pool);
      return MOTE_DEVICE_ERROR;
    }
    ++pool->started;
  }
  return MOTE_OK;
}

extern "C" void mote_host_thread_pool_deinit(mote_host_thread_pool *pool) {
  if (!pool)
    return;
  pthread_mutex_lock(&pool->mutex);
  __atomic_store_n(&pool->stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (uint32_t i = 0; i < pool->started; ++i)
    pthread_join(pool->workers[i], nullptr);
  pool->started = 0;
  pool->thread_count = 1;
  pthread_cond_destroy(&pool->idle);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->submit);
  pthread_mutex_destroy(&pool->mutex);
}

extern "C" uint32_t mote_host_thread_pool_size(const mote_host_thread_pool *pool) {
  return pool ? pool->started + 1 : 1;
}

extern "C" void mote_host_parallel_for(void *user, mote_task_fn body, void *context,
                                       int64_t count) {
  mote_host_thread_pool *pool = static_cast<mote_host_thread_pool *>(user);
  if (count <= 0)
    return;
  if (!pool || pool->started == 0 || count == 1 || pthread_mutex_trylock(&pool->submit) != 0) {
    run_inline(body, context, count);
    return;
  }
  // A few chunks per thread balances uneven work without an atomic per index.
  int64_t threads = pool->started + 1;
  int64_t chunk = count / (threads * 4);
  // Workers only read the job after seeing the new generation, and the
  // previous job ended with every worker out of it.
  pool->body = body;
  pool->context = context;
  pool->count = count;
  pool->chunk = chunk < 1 ? 1 : chunk;
  __atomic_store_n(&pool->next, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->active, pool->started, __ATOMIC_RELAXED);
  pthread_mutex_lock(&pool->mutex);
  __atomic_add_fetch(&pool->generation, 1, __ATOMIC_RELEASE);
  if (pool->sleeping)
    pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);

  run_chunks(pool);

  bool done = false;
  for (int spin = 0; spin < kSpins && !done; ++spin) {
    done = __atomic_load_n(&pool->active, __ATOMIC_ACQUIRE) == 0;
    if (!done)
      cpu_relax();
  }
  if (!done) {
    pthread_mutex_lock(&pool->mutex);
    pool->caller_sleeping = 1;
    while (__atomic_load_n(&pool->active, __ATOMIC_ACQUIRE) != 0)
      pthread_cond_wait(&pool->idle, &pool->mutex);
    pool->caller_sleeping = 0;
    pthread_mutex_unlock(&pool->mutex);
  }
  pthread_mutex_unlock(&pool->submit);
}

extern "C" void mote_host_env(mote_host_thread_pool *pool, mote_env *out_env) {
  out_env->user = pool;
  out_env->parallel_for = mote_host_parallel_for;
}
