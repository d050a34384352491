/* vm_parallel_for: tasks claimed in order from an atomic counter by the
 * calling thread and the helper threads of the exec's pool.
 *
 * The pool (one per VmExec, started by its first parallel call, ended by
 * vm_exec_free) keeps threads-1 helpers parked between calls: starting
 * and joining a thread per call cost ~60 us, more than many kernels take.
 * A call publishes its run under the pool's mutex and bumps a generation
 * counter; helpers spin on the counter briefly, then sleep on a condition
 * variable.  The caller works as worker 0 and waits for the helpers it
 * asked for to finish before returning, so a run's context lives on the
 * caller's stack. */
#include "vm/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define VM_MAX_THREADS 64
/* Polls of the generation counter before a helper sleeps (~10-20 us). */
#define POOL_SPIN 4000

typedef struct ParallelRun {
  VmTaskFn fn;
  void *ctx;
  int64_t ntasks;
  atomic_llong next;
  atomic_int failed;
} ParallelRun;

typedef struct PoolHelper {
  struct VmPool *pool;
  int id; /* worker number, 1.. */
  pthread_t thread;
} PoolHelper;

struct VmPool {
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  atomic_ullong generation; /* bumped by every call (and by shutdown) */
  ParallelRun *run;         /* the current call's run */
  int wanted;               /* workers of the current call, the caller included */
  int busy;                 /* helpers of the current call not finished */
  bool shutdown;
  int nhelpers;
  PoolHelper helpers[VM_MAX_THREADS];
};

/* Claims and runs tasks of r until none is left or one failed. */
static void work(ParallelRun *r, int id) {
  for (;;) {
    int64_t t = atomic_fetch_add(&r->next, 1);
    if (t >= r->ntasks || atomic_load(&r->failed)) break;
    if (r->fn(r->ctx, id, t) != VM_OK) atomic_store(&r->failed, 1);
  }
}

/* A helper: waits for a generation it has not seen, works on the run if
 * its id is among the workers wanted, reports, and waits again. */
static void *helper_main(void *arg) {
  PoolHelper *h = arg;
  VmPool *p = h->pool;
  unsigned long long seen = 0;
  for (;;) {
    for (int i = 0; i < POOL_SPIN && atomic_load_explicit(&p->generation, memory_order_acquire) == seen; i++) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&p->lock);
    while (atomic_load(&p->generation) == seen && !p->shutdown) pthread_cond_wait(&p->wake, &p->lock);
    seen = atomic_load(&p->generation);
    if (p->shutdown) {
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    ParallelRun *r = h->id < p->wanted ? p->run : NULL;
    pthread_mutex_unlock(&p->lock);
    if (!r) continue;
    work(r, h->id);
    pthread_mutex_lock(&p->lock);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}

/* A pool with up to n-1 helpers (fewer if threads cannot start); NULL when
 * none could start or memory is short. */
static VmPool *pool_new(int n) {
  VmPool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->generation, 0);
  for (int i = 1; i < n; i++) {
    PoolHelper *h = &p->helpers[p->nhelpers];
    *h = (PoolHelper){.pool = p, .id = p->nhelpers + 1};
    if (pthread_create(&h->thread, NULL, helper_main, h) != 0) break;
    p->nhelpers++;
  }
  if (p->nhelpers == 0) {
    vm_pool_free(p);
    return NULL;
  }
  return p;
}

void vm_pool_free(VmPool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->shutdown = true;
  atomic_fetch_add(&p->generation, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->nhelpers; i++) pthread_join(p->helpers[i].thread, NULL);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
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
  if (nworkers > 1 && !*slot) *slot = pool_new(vm_parallel_workers(x, VM_MAX_THREADS));
  VmPool *p = *slot;
  /* Without a pool the caller does every task: fewer workers, same bits. */
  int helpers = p ? (nworkers - 1 < p->nhelpers ? nworkers - 1 : p->nhelpers) : 0;
  if (helpers > 0) {
    pthread_mutex_lock(&p->lock);
    p->run = &run;
    p->wanted = helpers + 1;
    p->busy = helpers;
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
  }
  work(&run, 0);
  if (helpers > 0) {
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->lock);
    p->run = NULL;
    pthread_mutex_unlock(&p->lock);
  }
  return atomic_load(&run.failed) ? VM_TRAP : VM_OK;
}
