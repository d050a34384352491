/* vm_parallel_for: tasks claimed in order from an atomic counter by the
 * calling thread and the helper threads of the exec's pool.
 *
 * The pool (one per VmExec, ended by vm_exec_free) keeps up to threads-1
 * helpers parked between calls: starting and joining a thread per call
 * cost ~60 us here, more than many kernels take.  A call publishes its
 * run under the pool's mutex and bumps a generation counter; helpers spin
 * on the counter briefly, then sleep on a condition variable.  A helper
 * idle for POOL_IDLE_NS exits, and the next call that wants it starts it
 * again, so execs that stopped running (the runtime caches many) hold no
 * threads.  The caller works as worker 0 and waits for the helpers it
 * asked for before returning, so a run's context lives on its stack. */
#include "vm/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define VM_MAX_THREADS 64
/* Polls of the generation counter before a helper sleeps (~10 us: a
 * pause is ~25 ns on Zen 4; spinning longer costs an oversubscribed host
 * more than a condition-variable wake-up saves). */
#define POOL_SPIN 400
/* A helper asleep this long without work exits. */
#define POOL_IDLE_NS 200000000L

typedef struct ParallelRun {
  VmTaskFn fn;
  void *ctx;
  int64_t ntasks;
  atomic_llong next;
  atomic_int failed;
} ParallelRun;

typedef struct PoolHelper {
  struct VmPool *pool;
  int id;                  /* worker number, 1.. */
  pthread_t thread;
  bool started, exited;    /* under the pool's lock */
  unsigned long long seen; /* the generation it last handled (its own) */
} PoolHelper;

struct VmPool {
  pid_t pid; /* the process the helpers live in (a fork's child has none) */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  atomic_ullong generation; /* bumped by every call (and by shutdown) */
  ParallelRun *run;         /* the current call's run */
  int wanted;               /* workers of the current call, the caller included */
  int busy;                 /* helpers of the current call not finished */
  bool shutdown;
  PoolHelper helpers[VM_MAX_THREADS]; /* helpers[i] is worker i + 1 */
};

/* Claims and runs tasks of r until none is left or one failed. */
static void work(ParallelRun *r, int id) {
  for (;;) {
    int64_t t = atomic_fetch_add(&r->next, 1);
    if (t >= r->ntasks || atomic_load(&r->failed)) break;
    if (r->fn(r->ctx, id, t) != VM_OK) atomic_store(&r->failed, 1);
  }
}

/* Waits (lock held) for a generation h has not seen; false when h should
 * exit instead: the pool shuts down, or no work came for POOL_IDLE_NS. */
static bool wait_for_work(VmPool *p, PoolHelper *h) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += POOL_IDLE_NS;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  while (atomic_load(&p->generation) == h->seen && !p->shutdown)
    if (pthread_cond_timedwait(&p->wake, &p->lock, &until) == ETIMEDOUT &&
        atomic_load(&p->generation) == h->seen)
      return false;
  return !p->shutdown;
}

/* A helper: waits for a generation it has not seen, works on the run if
 * its id is among the workers wanted, reports, and waits again. */
static void *helper_main(void *arg) {
  PoolHelper *h = arg;
  VmPool *p = h->pool;
  for (;;) {
    for (int i = 0; i < POOL_SPIN && atomic_load_explicit(&p->generation, memory_order_acquire) == h->seen; i++) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&p->lock);
    if (!wait_for_work(p, h)) {
      h->exited = true;
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    h->seen = atomic_load(&p->generation);
    ParallelRun *r = h->id < p->wanted ? p->run : NULL;
    pthread_mutex_unlock(&p->lock);
    if (!r) continue;
    work(r, h->id);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}

/* Makes helpers 1..n-1 run (lock held), starting those never started or
 * exited; returns how many of them run, in order (a helper that cannot
 * start ends the count: its tasks go to the others). */
static int ready_helpers(VmPool *p, int n) {
  int ready = 0;
  for (; ready < n - 1; ready++) {
    PoolHelper *h = &p->helpers[ready];
    if (h->started && !h->exited) continue;
    if (h->started) pthread_join(h->thread, NULL);
    *h = (PoolHelper){.pool = p, .id = ready + 1, .seen = atomic_load(&p->generation)};
    if (pthread_create(&h->thread, NULL, helper_main, h) != 0) break;
    h->started = true;
  }
  return ready;
}

/* An empty pool; NULL when memory is short. */
static VmPool *pool_new(void) {
  VmPool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->pid = getpid();
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->generation, 0);
  return p;
}

void vm_pool_free(VmPool *p) {
  if (!p || p->pid != getpid()) return;
  pthread_mutex_lock(&p->lock);
  p->shutdown = true;
  atomic_fetch_add(&p->generation, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < VM_MAX_THREADS; i++)
    if (p->helpers[i].started) pthread_join(p->helpers[i].thread, NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

int vm_default_threads(void) {
  cpu_set_t set;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int n = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set)
          : online > 0                                                      ? (int)online
                                                                            : 1;
  /* Processes of an MPI job that mpirun did not bind to cores share the
   * host's: each takes its part. */
  const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int procs = local ? atoi(local) : 1;
  if (procs > 1 && n >= online) n = n / procs > 1 ? n / procs : 1;
  return n;
}

int vm_parallel_workers(const VmExec *x, int64_t ntasks) {
  int threads = vm_exec_options(x)->threads;
  if (threads < 1) threads = 1;
  if (threads > VM_MAX_THREADS) threads = VM_MAX_THREADS;
  return ntasks < threads ? (int)(ntasks < 1 ? 1 : ntasks) : threads;
}

int vm_parallel_for(VmExec *x, int64_t ntasks, VmTaskFn fn, void *ctx) {
  int nworkers = vm_parallel_workers(x, ntasks);
  ParallelRun run = {.fn = fn, .ctx = ctx, .ntasks = ntasks};
  atomic_init(&run.next, 0);
  atomic_init(&run.failed, 0);
  VmPool **slot = vm_exec_pool(x);
  /* In a fork's child the parent's helpers do not exist: the pool is
   * abandoned (its memory stays with the child) and a new one started. */
  if (*slot && (*slot)->pid != getpid()) *slot = NULL;
  if (nworkers > 1 && !*slot) *slot = pool_new();
  VmPool *p = nworkers > 1 ? *slot : NULL;
  /* Without a pool or helpers the caller does every task: same bits. */
  int helpers = 0;
  if (p) {
    pthread_mutex_lock(&p->lock);
    helpers = ready_helpers(p, nworkers);
    p->run = &run;
    p->wanted = helpers + 1;
    p->busy = helpers;
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
  }
  work(&run, 0);
  if (p) {
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
    p->run = NULL;
    pthread_mutex_unlock(&p->lock);
  }
  return atomic_load(&run.failed) ? VM_TRAP : VM_OK;
}
