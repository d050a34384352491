/* A libtpurun client for an MPI job (testsuite/tools/mpi_runtime.sh):
 * every process of `mpirun -np P mpi_client [CACHE_DIR]` creates a 4-chip
 * client, compiles a 4-chip all_reduce program through the API (and one
 * with an unbounded dimension, compiled at its run), runs them twice on
 * per-chip inputs and checks that it gets every chip's results.
 * It prints "rank R: ok, compiles N, disk hits H, disk filled F" (R from
 * OMPI_COMM_WORLD_RANK, 0 outside mpirun; N, H and F the client's
 * metrics) and exits 0, or prints what differs and exits 1.
 * `mpi_client CACHE_DIR bad` compiles a program the verifier rejects
 * instead and prints "rank R: rejected: MESSAGE" when tpu_program_compile
 * refuses it with TPU_ERR_REJECTED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tpurun.h"

static const char program[] =
    "module attributes {mhlo.num_replicas = 4 : i32} {\n"
    "func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>) {\n"
    "  %y = stablehlo.multiply %x, %w : tensor<4xf32>\n"
    "  %0 = \"stablehlo.all_reduce\"(%y) ({\n"
    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "    %t = stablehlo.add %a, %b : tensor<f32>\n"
    "    stablehlo.return %t : tensor<f32>\n"
    "  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %r = stablehlo.replica_id : tensor<ui32>\n"
    "  return %0, %r : tensor<4xf32>, tensor<ui32>\n"
    "}\n"
    "}\n";

/* The same collective with an unbounded dimension: compiled at its first
 * run for the argument's type. */
static const char deferred[] =
    "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
    "  %0 = \"stablehlo.all_reduce\"(%x) ({\n"
    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "    %t = stablehlo.add %a, %b : tensor<f32>\n"
    "    stablehlo.return %t : tensor<f32>\n"
    "  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<?xf32>) -> tensor<?xf32>\n"
    "  return %0 : tensor<?xf32>\n"
    "}\n";

/* Prints the client's last failure and returns 1. */
static int failed(const char *rank, const char *what) {
  printf("rank %s: %s failed: %s\n", rank, what, tpu_error(NULL));
  return 1;
}

/* Compiles and runs the deferred program on a 3xf32 every chip gets; 0
 * when every chip's sum is 4 times it. */
static int run_deferred(TpuClient *c, const char *rank) {
  float x[3] = {1, 2, 3}, sum[12];
  TpuProgram *p;
  TpuTensor *arg = NULL, *res = NULL;
  int bad = 0;
  if (tpu_program_compile(c, deferred, sizeof deferred - 1, &p)) return failed(rank, "tpu_program_compile (deferred)");
  if (tpu_tensor_from_host(c, "3xf32", x, sizeof x, &arg)) bad = failed(rank, "tpu_tensor_from_host");
  else if (tpu_program_run(p, NULL, &arg, 1, &res, 1)) bad = failed(rank, "tpu_program_run (deferred)");
  else if (tpu_tensor_to_host(res, sum, sizeof sum)) bad = failed(rank, "tpu_tensor_to_host (deferred)");
  for (int i = 0; !bad && i < 12; i++)
    if (sum[i] != 4 * x[i % 3]) {
      printf("rank %s: the deferred program's chip %d sum[%d] is %g, expected %g\n", rank, i / 3, i % 3, sum[i],
             4 * x[i % 3]);
      bad = 1;
    }
  tpu_tensor_release(arg), tpu_tensor_release(res);
  tpu_program_release(p);
  return bad;
}

/* Compiles and runs the programs on the client's 4 chips; 0 when every
 * chip's results are the expected ones. */
static int run(TpuClient *c, const char *rank) {
  float x[16], w[4] = {1, 1, 1, 2}, sum[16], want[16];
  unsigned ids[4];
  for (int i = 0; i < 16; i++) x[i] = (float)(i + 1);
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 4; j++) want[k * 4 + j] = w[j] * (x[j] + x[4 + j] + x[8 + j] + x[12 + j]);
  TpuProgram *p;
  TpuTensor *args[2] = {NULL, NULL}, *res[2] = {NULL, NULL};
  int bad = 0;
  if (tpu_program_compile(c, program, sizeof program - 1, &p)) return failed(rank, "tpu_program_compile");
  if (tpu_tensor_from_host(c, "4x4xf32", x, sizeof x, &args[0]) || tpu_tensor_from_host(c, "4xf32", w, sizeof w, &args[1]))
    bad = failed(rank, "tpu_tensor_from_host");
  else if (tpu_program_run(p, NULL, args, 2, res, 2))
    bad = failed(rank, "tpu_program_run");
  else if (tpu_tensor_to_host(res[0], sum, sizeof sum) || tpu_tensor_to_host(res[1], ids, sizeof ids))
    bad = failed(rank, "tpu_tensor_to_host");
  for (int i = 0; !bad && i < 16; i++)
    if (sum[i] != want[i]) {
      printf("rank %s: chip %d's sum[%d] is %g, expected %g\n", rank, i / 4, i % 4, sum[i], want[i]);
      bad = 1;
    }
  for (int k = 0; !bad && k < 4; k++)
    if (ids[k] != (unsigned)k) {
      printf("rank %s: chip %d's replica id is %u\n", rank, k, ids[k]);
      bad = 1;
    }
  for (int i = 0; i < 2; i++) tpu_tensor_release(args[i]), tpu_tensor_release(res[i]);
  tpu_program_release(p);
  return bad ? bad : run_deferred(c, rank);
}

/* The counter named key in the client's metrics, or -1. */
static long metric(TpuClient *c, const char *key) {
  char json[4096], quoted[64];
  int need = tpu_metrics_json(c, json, sizeof json);
  if (need < 0 || (size_t)need > sizeof json) return -1;
  snprintf(quoted, sizeof quoted, "\"%s\": ", key);
  const char *at = strstr(json, quoted);
  return at ? strtol(at + strlen(quoted), NULL, 10) : -1;
}

/* Compiles a program that uses an undefined value: 0 when it is refused
 * with TPU_ERR_REJECTED and a diagnostic. */
static int rejected(TpuClient *c, const char *rank) {
  static const char bad[] = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                            "  %0 = stablehlo.add %x, %nope : tensor<4xf32>\n"
                            "  return %0 : tensor<4xf32>\n"
                            "}\n";
  TpuProgram *p = NULL;
  int rc = tpu_program_compile(c, bad, sizeof bad - 1, &p);
  const char *msg = tpu_error(c), *nl = strchr(msg, '\n');
  printf("rank %s: %s: %.*s\n", rank, rc == TPU_ERR_REJECTED ? "rejected" : "not rejected", nl ? (int)(nl - msg) : (int)strlen(msg), msg);
  tpu_program_release(p);
  return rc == TPU_ERR_REJECTED && strstr(msg, "error:") ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = "0";
  TpuClientOptions o = {.struct_size = sizeof o, .chips = 4, .threads = 1};
  if (argc > 1) o.cache_dir = argv[1];
  TpuClient *c;
  if (tpu_client_create(&o, &c)) return failed(rank, "tpu_client_create");
  if (argc > 2 && strcmp(argv[2], "bad") == 0) {
    int bad = rejected(c, rank);
    tpu_client_destroy(c);
    return bad;
  }
  int bad = run(c, rank);
  /* Twice: the second run of the same program takes the memory tier. */
  if (!bad) bad = run(c, rank);
  if (!bad)
    printf("rank %s: ok, compiles %ld, disk hits %ld, disk filled %ld\n", rank, metric(c, "compiles"),
           metric(c, "disk_hits"), metric(c, "disk_filled"));
  tpu_client_destroy(c);
  return bad;
}
