// ===- ports/host/thread_pool.cc - parallel_for on a fixed set of threads -===
//
// One job at a time: the caller publishes (body, context, count), wakes the
// workers, takes chunks of indices itself, and returns once every index has
// run. Chunks are claimed with a compare-and-swap on one word holding the
// job's number and the next index, so each index runs exactly once, and a
// worker that wakes late can claim nothing of a job that has moved on. The
// caller waits for indices to finish, never for a worker to show up: a worker
// the system has not scheduled yet costs nothing, the others take its share.
// Before it rewrites the job's fields the caller closes the word (an odd job
// number, no index left), so a worker still holding the old word cannot
// claim indices it would check against the new job's count. Nothing is
// allocated after init.
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

uint32_t job_of(uint64_t claim) { return static_cast<uint32_t>(claim >> 32); }

/// Index part of a closed claim word: more than any count a job may have.
constexpr uint64_t kClosed = 0xffffffffu;

/// Open jobs have even numbers; odd ones mark the fields being rewritten.
bool is_open(uint32_t job) { return (job & 1u) == 0; }

/// Runs chunks of job `job` until none is left to claim.
void run_chunks(mote_host_thread_pool *pool, uint32_t job) {
  uint64_t claim = __atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE);
  for (;;) {
    if (job_of(claim) != job)
      return;
    // A successful claim proves `count` and `chunk` were this job's: the
    // caller closes the word before it rewrites them.
    const int64_t begin = static_cast<int64_t>(claim & 0xffffffffu);
    const int64_t count = __atomic_load_n(&pool->count, __ATOMIC_RELAXED);
    if (begin >= count)
      return;
    const int64_t chunk = __atomic_load_n(&pool->chunk, __ATOMIC_RELAXED);
    const int64_t end = count - begin > chunk ? begin + chunk : count;
    const uint64_t next = (claim & ~uint64_t{0xffffffffu}) | static_cast<uint64_t>(end);
    if (!__atomic_compare_exchange_n(&pool->claim, &claim, next, /*weak=*/false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      continue; // `claim` now holds the current word
    mote_task_fn body = __atomic_load_n(&pool->body, __ATOMIC_RELAXED);
    void *context = __atomic_load_n(&pool->context, __ATOMIC_RELAXED);
    for (int64_t i = begin; i < end; ++i)
      body(context, i);
    if (__atomic_add_fetch(&pool->completed, end - begin, __ATOMIC_ACQ_REL) == count) {
      pthread_mutex_lock(&pool->mutex);
      if (pool->caller_sleeping)
        pthread_cond_signal(&pool->idle);
      pthread_mutex_unlock(&pool->mutex);
    }
    claim = next;
  }
}

/// Waits until an open job other than `seen` is published or the pool
/// stops; returns the job's number.
uint32_t wait_for_job(mote_host_thread_pool *pool, uint32_t seen) {
  auto waiting = [&](uint32_t job) { return job == seen || !is_open(job); };
  for (int spin = 0; spin < kSpins; ++spin) {
    uint32_t job = job_of(__atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE));
    if (!waiting(job) || __atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      return job;
    cpu_relax();
  }
  pthread_mutex_lock(&pool->mutex);
  ++pool->sleeping;
  while (!__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE) &&
         waiting(job_of(__atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE))))
    pthread_cond_wait(&pool->wake, &pool->mutex);
  --pool->sleeping;
  pthread_mutex_unlock(&pool->mutex);
  return job_of(__atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE));
}

void *worker_main(void *argument) {
  mote_host_thread_pool *pool = static_cast<mote_host_thread_pool *>(argument);
  uint32_t seen = 0;
  for (;;) {
    seen = wait_for_job(pool, seen);
    if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE))
      break;
    run_chunks(pool, seen);
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
  pool->claim = 0;
  pool->completed = 0;
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
  // Indices live in the low half of the claim word, below kClosed.
  if (!pool || pool->started == 0 || count == 1 || count >= int64_t{kClosed} ||
      pthread_mutex_trylock(&pool->submit) != 0) {
    run_inline(body, context, count);
    return;
  }
  // A few chunks per thread balances uneven work without a claim per index.
  int64_t threads = pool->started + 1;
  int64_t chunk = count / (threads * 4);
  // Every index of the previous job has run. Close its word before touching
  // the fields: a worker that read the old count can no longer claim with it
  // (the exchange also keeps the writes below after it).
  const uint32_t previous = job_of(__atomic_load_n(&pool->claim, __ATOMIC_RELAXED));
  __atomic_exchange_n(&pool->claim, uint64_t{previous + 1} << 32 | kClosed, __ATOMIC_ACQ_REL);
  // Relaxed atomics: a worker holding the old word may read them while they
  // change, though it can no longer claim anything with what it reads.
  __atomic_store_n(&pool->body, body, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->context, context, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->count, count, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->chunk, chunk < 1 ? 1 : chunk, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->completed, 0, __ATOMIC_RELAXED);
  pthread_mutex_lock(&pool->mutex);
  const uint32_t job = previous + 2;
  __atomic_store_n(&pool->claim, uint64_t{job} << 32, __ATOMIC_RELEASE);
  if (pool->sleeping)
    pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);

  run_chunks(pool, job);

  // Only chunks other threads are running remain.
  bool done = false;
  for (int spin = 0; spin < kSpins && !done; ++spin) {
    done = __atomic_load_n(&pool->completed, __ATOMIC_ACQUIRE) == count;
    if (!done)
      cpu_relax();
  }
  if (!done) {
    pthread_mutex_lock(&pool->mutex);
    pool->caller_sleeping = 1;
    while (__atomic_load_n(&pool->completed, __ATOMIC_ACQUIRE) != count)
      pthread_cond_wait(&pool->idle, &pool->mutex);
    pool->caller_sleeping = 0;
    pthread_mutex_unlock(&pool->mutex);
  }
  pthread_mutex_unlock(&pool->submit);
}

extern "C" void mote_host_env(mote_host_thread_pool *pool, mote_env *out_env) {
  out_env->user = pool;
  // A pool of one thread has nothing to share out: generated code then
  // knows it runs alone and schedules for one core (convolution chains
  // depth-first) rather than for tasks.
  out_env->parallel_for = mote_host_thread_pool_size(pool) > 1 ? mote_host_parallel_for : nullptr;
}
