/* Internals shared by the loader, the interpreter and the control-op
 * validators of the VM. */
#ifndef VM_INTERNAL_H
#define VM_INTERNAL_H

#include "vm/kernels.h"

/* A bump allocator for the loaded program: blocks freed together. */
typedef struct PoolBlock {
  struct PoolBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} PoolBlock;

typedef struct Pool {
  PoolBlock *head;
  size_t total;
} Pool;

void *pool_alloc(Pool *p, size_t n); /* zeroed, 16-byte aligned; NULL when out of memory */
void pool_free(Pool *p);

/* What a loaded program keeps besides the public VmProgram fields. */
typedef struct VmProgramImpl {
  VmProgram pub;
  Pool pool;
  const uint8_t *consts;
  uint64_t consts_size;
  const char *strtab;
  uint64_t strtab_size;
} VmProgramImpl;

#endif
