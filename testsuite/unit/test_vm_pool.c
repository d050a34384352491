/* vm/parallel.c: every task runs once, on a worker number below the
 * workers asked for, over many calls of one exec; a failing task ends the
 * call with VM_TRAP; helpers idle past their timeout exit (the exec holds
 * no threads) and the next call starts them again; a fork's child starts
 * helpers of its own instead of waiting for its parent's. */
#include <dirent.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit_tests.h"
#include "vm/parallel.h"

enum { TASKS = 257, THREADS = 3 };

typedef struct Counts {
  atomic_int runs[TASKS];
  atomic_int bad_worker;
  int fail_at; /* task that fails, or -1 */
} Counts;

static int count_task(void *ctx, int worker, int64_t t) {
  Counts *c = ctx;
  if (worker < 0 || worker >= THREADS) atomic_store(&c->bad_worker, 1);
  atomic_fetch_add(&c->runs[t], 1);
  return t == c->fail_at ? VM_TRAP : VM_OK;
}

/* The threads of this process (Linux: /proc/self/task). */
static int thread_count(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* Each test's exec (a trivial program, THREADS host threads) and counts. */
typedef struct Fixture {
  uint8_t *img;
  VmProgram *prog;
  VmExec *x;
  Counts *c;
} Fixture;

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof *f);
  size_t n;
  char err[256];
  f->img = compile_text("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n", &n);
  f->prog = vm_program_load(f->img, n, err, sizeof err);
  if (!f->prog) fail_msg("load failed: %s", err);
  VmOptions o = {.threads = THREADS};
  f->x = vm_exec_new(f->prog, &o);
  f->c = calloc(1, sizeof *f->c);
  f->c->fail_at = -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  vm_exec_free(f->x);
  vm_program_free(f->prog);
  free(f->img);
  free(f->c);
  free(f);
  return 0;
}

static void each_task_once(void **state) {
  Fixture *f = *state;
  VmExec *x = f->x;
  Counts *c = f->c;
  for (int call = 0; call < 500; call++) assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_OK);
  for (int t = 0; t < TASKS; t++) assert_int_equal(atomic_load(&c->runs[t]), 500);
  assert_int_equal(atomic_load(&c->bad_worker), 0);
}

static void failing_task_traps(void **state) {
  Fixture *f = *state;
  VmExec *x = f->x;
  Counts *c = f->c;
  c->fail_at = 10;
  assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_TRAP);
  c->fail_at = -1;
  assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_OK);
}

static void idle_helpers_exit(void **state) {
  Fixture *f = *state;
  VmExec *x = f->x;
  Counts *c = f->c;
  int base = thread_count();
  if (base < 0) skip();
  assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_OK);
  assert_true(thread_count() > base); /* the helpers, unless already idle for 0.2 s */
  /* The helpers time out after 0.2 s idle; a loaded machine may take longer. */
  struct timespec tick = {0, 50000000L};
  for (int i = 0; i < 200 && thread_count() != base; i++) nanosleep(&tick, NULL);
  assert_int_equal(thread_count(), base);
  assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_OK);
  for (int t = 0; t < TASKS; t++) assert_int_equal(atomic_load(&c->runs[t]), 2);
}

static void child_of_fork(void **state) {
  Fixture *f = *state;
  VmExec *x = f->x;
  Counts *c = f->c;
  assert_int_equal(vm_parallel_for(x, TASKS, count_task, c), VM_OK);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    alarm(20); /* a hang ends the child with SIGALRM */
    int rc = vm_parallel_for(x, TASKS, count_task, c);
    _exit(rc == VM_OK && atomic_load(&c->runs[TASKS - 1]) == 2 ? 0 : 1);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

int run_vm_pool_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(each_task_once, setup, teardown),
      cmocka_unit_test_setup_teardown(failing_task_traps, setup, teardown),
      cmocka_unit_test_setup_teardown(idle_helpers_exit, setup, teardown),
      cmocka_unit_test_setup_teardown(child_of_fork, setup, teardown),
  };
  return cmocka_run_group_tests_name("vm_pool", tests, NULL, NULL);
}
