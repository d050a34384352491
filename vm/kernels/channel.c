/* The chip's identity and its point-to-point traffic (vm/opcodes.def
 * "collectives"): replica_id, partition_id, send and recv.
 *
 * send queues copies of its operands on a channel and never waits; recv
 * takes the oldest message of its channel, waiting for one (vm/chips/chips.h).
 * A host transfer, or a send / recv without source_target_pairs, uses the
 * channel handle itself, as StableHLO's interpreter does: any chip's send
 * feeds any chip's recv of the same handle, in order.  A device transfer
 * with pairs travels on a key of its own per (handle, source chip, target
 * chip), so each target hears only its source; a recv that no pair
 * targets gives zeros, a send whose chip sources no pair sends nothing.
 * Tokens are values without bytes. */
#include <inttypes.h>
#include <string.h>

#include "vm/chips/chips.h"
#include "vm/kernels/collective.h"
#include "vm/opinfo.h"

enum { F_PAIRS, F_MODE, F_CHANNEL, F_HOST };

int exec_replica_id(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins, (void)in;
  uint32_t v = (uint32_t)vm_chip_id(x).replica;
  memcpy(out[0].data, &v, 4);
  return VM_OK;
}

int exec_partition_id(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins, (void)in;
  uint32_t v = (uint32_t)vm_chip_id(x).partition;
  memcpy(out[0].data, &v, 4);
  return VM_OK;
}

/* The channel key of a pair's traffic: negative, so it never meets a plain
 * handle of a program's usual (non-negative) channel ids; chips take 12
 * bits each (VM_MAX_CHIPS is 4096). */
static int64_t pair_key(int64_t channel, int src, int dst) {
  uint64_t k = ((uint64_t)channel & ((1ull << 38) - 1)) << 24 | (uint64_t)src << 12 | (uint64_t)dst;
  return INT64_MIN + (int64_t)k;
}

/* Whether the instruction's traffic follows its pairs. */
static bool by_pairs(const VmInstr *ins) { return !vm_field_int(ins, F_HOST) && ins->fields[F_PAIRS].n > 0; }

/* The chips the executing chip's pairs receive from and send to (-1: none). */
static int peers(VmExec *x, const VmInstr *ins, int *from, int *to) {
  const VmField *p = &ins->fields[F_PAIRS];
  return coll_pair_peers(x, p->v, p->n, (int)vm_field_int(ins, F_MODE), from, to);
}

int exec_send(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)out;
  int n = (int)ins->n_in - 1;
  int64_t channel = vm_field_int(ins, F_CHANNEL);
  if (!by_pairs(ins)) return vm_channel_send(x, channel, in, n);
  int from, to;
  if (peers(x, ins, &from, &to) != VM_OK) return VM_TRAP;
  if (to < 0) return VM_OK;
  return vm_channel_send(x, pair_key(channel, vm_chip_id(x).chip, to), in, n);
}

int exec_recv(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)in;
  int n = (int)ins->n_out - 1;
  int64_t channel = vm_field_int(ins, F_CHANNEL);
  if (!by_pairs(ins)) return vm_channel_recv(x, channel, out, n);
  int from, to;
  if (peers(x, ins, &from, &to) != VM_OK) return VM_TRAP;
  if (from < 0) {
    for (int i = 0; i < n; i++)
      if (out[i].type->nbytes) memset(out[i].data, 0, (size_t)out[i].type->nbytes);
    return VM_OK;
  }
  return vm_channel_recv(x, pair_key(channel, from, vm_chip_id(x).chip), out, n);
}

/* ------------------------------------------------------------------ */
/* Validators */

bool check_chip_id(VmCheck *c) {
  const VmType *t = vm_check_out(c, 0);
  if (!vm_type_is_scalar(t) || t->elem != TPUB_U32)
    return vm_check_fail(c, "%s: the result must be tensor<ui32>", vm_op_rows[c->ins->opcode].name);
  return true;
}

/* Registers [0, n) of types (operands or results) are tensors and
 * register n is a token. */
static bool payload_then_token(VmCheck *c, const char *op, bool operands, uint32_t n) {
  for (uint32_t i = 0; i <= n; i++) {
    const VmType *t = operands ? vm_check_in(c, i) : vm_check_out(c, i);
    if (i == n ? t->kind != TPUB_TY_TOKEN : !vm_type_is_tensor(t))
      return vm_check_fail(c, "%s: %s %u must be a %s", op, operands ? "operand" : "result", i,
                           i == n ? "token" : "tensor");
  }
  return true;
}

/* The fields of send and recv: pairs, mode, and a 0/1 host flag. */
static bool check_traffic(VmCheck *c, const char *op) {
  int64_t host = vm_field_int(c->ins, F_HOST);
  if (host != 0 && host != 1) return vm_check_fail(c, "%s: host flag %" PRId64, op, host);
  return coll_check_pairs(c, F_PAIRS);
}

bool check_send(VmCheck *c) {
  if (c->ins->n_in < 1) return vm_check_fail(c, "send without a token operand");
  return payload_then_token(c, "send", true, c->ins->n_in - 1) && payload_then_token(c, "send", false, 0) &&
         check_traffic(c, "send");
}

bool check_recv(VmCheck *c) {
  if (c->ins->n_out < 1) return vm_check_fail(c, "recv without a token result");
  return payload_then_token(c, "recv", true, 0) && payload_then_token(c, "recv", false, c->ins->n_out - 1) &&
         check_traffic(c, "recv");
}
