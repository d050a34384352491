/* Arena allocation, growable pointer vectors and die(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

struct ArenaChunk {
  ArenaChunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK_MIN = 64 * 1024 };

_Noreturn void die_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "tpucc: internal error at %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(EXIT_INTERNAL);
}

/* Ends the process: out of memory for n bytes. */
static _Noreturn void out_of_memory(size_t n) {
  fflush(stdout);
  fprintf(stderr, "%s: out of memory (%zu bytes)\n", program_invocation_short_name, n);
  exit(EXIT_INTERNAL);
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) out_of_memory(n);
  return q;
}

void *xcalloc(size_t n, size_t size) {
  void *q = calloc(n ? n : 1, size ? size : 1);
  if (!q) out_of_memory(n * size);
  return q;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaChunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > ARENA_CHUNK_MIN ? n : ARENA_CHUNK_MIN;
    if (c && c->size * 2 > size && c->size < (64u << 20)) size = c->size * 2 > n ? c->size * 2 : n;
    c = xcalloc(1, sizeof(ArenaChunk) + size); /* fresh chunks are zero: no memset */
    c->size = size;
    c->used = 0;
    c->next = a->head;
    a->head = c;
    a->bytes_allocated += size;
  }
  void *p = c->data + c->used;
  c->used += n;
  return p;
}

void *arena_dup(Arena *a, const void *p, size_t n) {
  void *q = arena_alloc(a, n ? n : 1);
  if (n) memcpy(q, p, n);
  return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *q = arena_alloc(a, n + 1);
  memcpy(q, s, n);
  q[n] = 0;
  return q;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = arena_alloc(a, (size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

void arena_free_all(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
  a->bytes_allocated = 0;
}

void vec_push(PtrVec *v, void *item) {
  if (v->len == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 8;
    v->items = xrealloc(v->items, sizeof(void *) * (size_t)v->cap);
  }
  v->items[v->len++] = item;
}

void vec_free(PtrVec *v) {
  free(v->items);
  v->items = NULL;
  v->len = v->cap = 0;
}
