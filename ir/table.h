/* One open-addressing hash table for the whole compiler: keys are byte
 * strings (len > 0) or pointers (len == 0, compared by address); values are
 * pointers.  Used for SSA scopes, symbol tables, memos and printer caches. */
#ifndef TPUCC_TABLE_H
#define TPUCC_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct TableSlot {
  const void *key;
  size_t len;
  void *value;
} TableSlot;

typedef struct Table {
  TableSlot *slots;
  uint32_t cap, count;
} Table;

/* The value slot of key, or NULL when absent. */
void **table_get(const Table *t, const void *key, size_t len);
/* The value slot of key, created (value NULL) when absent.  The key memory
 * must outlive the table. */
void **table_put(Table *t, const void *key, size_t len);
/* Call fn on every value (e.g. free), then release the table. */
void table_free(Table *t, void (*fn)(void *value));

#endif
