/* vm_parallel_for: tasks claimed in order from an atomic counter by the
 * calling thread and up to threads-1 helper threads started per call. */
#include "vm/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#define VM_MAX_THREADS 64

typedef struct ParallelRun {
  VmTaskFn fn;
  void *ctx;
  int64_t ntasks;
  atomic_llong next;
  atomic_int failed;
} ParallelRun;

typedef struct Worker {
  ParallelRun *run;
  int id;
} Worker;

static void *worker_main(void *arg) {
  Worker *w = arg;
  ParallelRun *r = w->run;
  for (;;) {
    int64_t t = atomic_fetch_add(&r->next, 1);
    if (t >= r->ntasks || atomic_load(&r->failed)) break;
    if (r->fn(r->ctx, w->id, t) != VM_OK) atomic_store(&r->failed, 1);
  }
  return NULL;
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
  Worker workers[VM_MAX_THREADS];
  pthread_t threads[VM_MAX_THREADS];
  int started = 0;
  /* A helper thread that cannot start only means fewer workers: the
   * counter hands its tasks to the others. */
  for (int i = 1; i < nworkers; i++) {
    workers[i] = (Worker){&run, i};
    if (pthread_create(&threads[started + 1], NULL, worker_main, &workers[i]) != 0) break;
    started++;
  }
  workers[0] = (Worker){&run, 0};
  worker_main(&workers[0]);
  for (int i = 1; i <= started; i++) pthread_join(threads[i], NULL);
  return atomic_load(&run.failed) ? VM_TRAP : VM_OK;
}
