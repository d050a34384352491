/* The hash table of ir/table.h: XXH3 over string keys, a multiplicative mix
 * of pointer keys, linear probing. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "ir/ir.h"
#include "ir/table.h"

static uint32_t key_hash(const void *key, size_t len) {
  if (len) return (uint32_t)XXH3_64bits(key, len);
  uint64_t x = (uint64_t)(uintptr_t)key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static TableSlot *find(const Table *t, const void *key, size_t len) {
  uint32_t h = key_hash(key, len) & (t->cap - 1);
  for (;;) {
    TableSlot *s = &t->slots[h];
    if (!s->key) return s;
    if (len ? (s->len == len && memcmp(s->key, key, len) == 0) : (s->len == 0 && s->key == key)) return s;
    h = (h + 1) & (t->cap - 1);
  }
}

void **table_get(const Table *t, const void *key, size_t len) {
  if (!t->cap) return NULL;
  TableSlot *s = find(t, key, len);
  return s->key ? &s->value : NULL;
}

void **table_put(Table *t, const void *key, size_t len) {
  if ((t->count + 1) * 2 > t->cap) {
    Table grown = {xcalloc(t->cap ? t->cap * 2 : 64, sizeof(TableSlot)), t->cap ? t->cap * 2 : 64, t->count};
    for (uint32_t i = 0; i < t->cap; i++)
      if (t->slots[i].key) *find(&grown, t->slots[i].key, t->slots[i].len) = t->slots[i];
    free(t->slots);
    *t = grown;
  }
  TableSlot *s = find(t, key, len);
  if (!s->key) {
    *s = (TableSlot){key, len, NULL};
    t->count++;
  }
  return &s->value;
}

void table_free(Table *t, void (*fn)(void *value)) {
  for (uint32_t i = 0; fn && i < t->cap; i++)
    if (t->slots[i].key) fn(t->slots[i].value);
  free(t->slots);
  *t = (Table){0};
}
