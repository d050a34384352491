/* The MPI transport of a process in an Open MPI job (DESIGN.md §10).
 *
 * libmpi is loaded with dlopen on the first vm_mpi_open of a process that
 * mpirun started (OMPI_COMM_WORLD_SIZE > 1), so tpurun outside a job never
 * pays for it; the header gives the prototypes and the ABI, dlsym the
 * functions and Open MPI's predefined handles.
 *
 * One transport thread per process does every point-to-point call: it
 * starts the sends chip threads queue (vm_mpi_post), completes them, and
 * receives whatever comes, handing each packet to the fabric of the slice
 * run it belongs to (vm_mpi_attach; packets of a run not yet attached wait
 * in order).  Host collectives (vm_mpi_bcast, ...) use a communicator of
 * their own from the calling thread.
 *
 * Liveness: MPI 4.1 without ULFM does not report a dead peer, so rank 0
 * keeps a TCP connection to every other rank.  A connection that closes
 * without a goodbye byte is a dead process: rank 0 tells the others which
 * one, and every survivor prints it and exits with status 4.
 *
 * MPI can be initialised once per process, so the transport is the one
 * process-wide context (the_mpi below), reference counted by the clients
 * and finalised at exit. */
#include "vm/chips/mpi.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes before a packet's payload: run (8), kind (4), padding. */
#define PACKET_HEAD 16
/* Where a received message lands in its buffer: the payload 64-aligned. */
#define RECV_AT (64 - PACKET_HEAD)
#define MPI_TAG_PACKET 1

/* A message on the liveness connections. */
enum { LIVE_BYE = 'B', LIVE_DIED = 'D' };

/* The libmpi functions and handles the transport uses (dlsym). */
typedef struct MpiLib {
  void *handle;
  __typeof__(MPI_Init_thread) *Init_thread;
  __typeof__(MPI_Finalize) *Finalize;
  __typeof__(MPI_Abort) *Abort;
  __typeof__(MPI_Comm_rank) *Comm_rank;
  __typeof__(MPI_Comm_size) *Comm_size;
  __typeof__(MPI_Comm_dup) *Comm_dup;
  __typeof__(MPI_Comm_free) *Comm_free;
  __typeof__(MPI_Comm_set_errhandler) *Comm_set_errhandler;
  __typeof__(MPI_Isend) *Isend;
  __typeof__(MPI_Iprobe) *Iprobe;
  __typeof__(MPI_Get_count) *Get_count;
  __typeof__(MPI_Recv) *Recv;
  __typeof__(MPI_Test) *Test;
  __typeof__(MPI_Bcast) *Bcast;
  __typeof__(MPI_Allgather) *Allgather;
  __typeof__(MPI_Allgatherv) *Allgatherv;
  __typeof__(MPI_Allreduce) *Allreduce;
  MPI_Comm world;
  MPI_Datatype byte, int_;
  MPI_Op max;
  MPI_Errhandler errors_return;
} MpiLib;

/* A packet on its way out: one buffer for every destination. */
typedef struct Outgoing {
  struct Outgoing *next;
  unsigned char *buf; /* vm_mpi_packet's allocation */
  size_t len;         /* head and payload */
  int *to, nto, pending;
  MPI_Request *req;
  bool *active; /* req[i] is a send in progress (MPI_REQUEST_NULL is a libmpi symbol) */
} Outgoing;

/* A packet received for a run not attached yet. */
typedef struct Incoming {
  struct Incoming *next;
  uint64_t run;
  int from, kind;
  unsigned char *payload;
  size_t len;
} Incoming;

struct VmMpi {
  MpiLib lib;
  int refs, rank, size;
  char who[32], host[64];
  MPI_Comm p2p, coll;
  uint64_t runs; /* slice runs started (vm_mpi_next_run) */
  /* Everything below mu guards is shared with the transport thread. */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  bool thread_up, stop, in_handler;
  Outgoing *queue, **queue_tail; /* not started yet, oldest first */
  Outgoing *sending;             /* started */
  Incoming *early, **early_tail; /* for a later run, oldest first */
  uint64_t run;                  /* attached run */
  VmMpiHandler handler;
  void *ud;
  int wake_fd; /* eventfd: a post wakes the thread's poll */
  /* Liveness: rank 0 holds a socket per rank (live[0] unused), the
   * others one to rank 0 in live[0]; closed[r]: r said goodbye. */
  int *live;
  bool *closed;
  int *pids;
  char (*hosts)[64];
  struct pollfd *pollfds; /* the transport thread's, size + 1 */
  int *pollranks;
};

/* The process's transport (MPI is initialised once per process). */
static VmMpi *the_mpi;
static pthread_mutex_t the_mpi_mu = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ */
/* Loading libmpi. */

/* Resolves every function and handle; false with a message. */
static bool lib_load(MpiLib *l, char *err, size_t errlen) {
  /* RTLD_GLOBAL: Open MPI's plugins resolve libmpi's symbols. */
  l->handle = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
  if (!l->handle) {
    snprintf(err, errlen, "cannot load Open MPI's libmpi.so.40 (%s); install openmpi-bin and libopenmpi-dev", dlerror());
    return false;
  }
  const char *missing = NULL;
#define SYM(field, name)                                        \
  if (!(*(void **)(&l->field) = dlsym(l->handle, name))) missing = name;
  SYM(Init_thread, "MPI_Init_thread")
  SYM(Finalize, "MPI_Finalize")
  SYM(Abort, "MPI_Abort")
  SYM(Comm_rank, "MPI_Comm_rank")
  SYM(Comm_size, "MPI_Comm_size")
  SYM(Comm_dup, "MPI_Comm_dup")
  SYM(Comm_free, "MPI_Comm_free")
  SYM(Comm_set_errhandler, "MPI_Comm_set_errhandler")
  SYM(Isend, "MPI_Isend")
  SYM(Iprobe, "MPI_Iprobe")
  SYM(Get_count, "MPI_Get_count")
  SYM(Recv, "MPI_Recv")
  SYM(Test, "MPI_Test")
  SYM(Bcast, "MPI_Bcast")
  SYM(Allgather, "MPI_Allgather")
  SYM(Allgatherv, "MPI_Allgatherv")
  SYM(Allreduce, "MPI_Allreduce")
#undef SYM
#define HANDLE(field, type, name)                                  \
  {                                                                \
    void *p = dlsym(l->handle, name);                              \
    if (!p) missing = name;                                        \
    l->field = (type)p;                                            \
  }
  HANDLE(world, MPI_Comm, "ompi_mpi_comm_world")
  HANDLE(byte, MPI_Datatype, "ompi_mpi_byte")
  HANDLE(int_, MPI_Datatype, "ompi_mpi_int")
  HANDLE(max, MPI_Op, "ompi_mpi_op_max")
  HANDLE(errors_return, MPI_Errhandler, "ompi_mpi_errors_return")
#undef HANDLE
  if (missing) {
    snprintf(err, errlen, "libmpi.so.40 lacks %s: not Open MPI 4?", missing);
    return false;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Liveness. */

/* Says that rank r died and ends this process. */
static _Noreturn void peer_died(VmMpi *m, int r) {
  if (r >= 0 && r < m->size)
    fprintf(stderr, "%s: rank %d (pid %d on %s) died; ending the job\n", m->who, r, m->pids[r], m->hosts[r]);
  else
    fprintf(stderr, "%s: a process of the job died; ending the job\n", m->who);
  fflush(stderr);
  _exit(4);
}

static bool write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

static bool read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

/* Rank 0 listens, tells the others where, and accepts one connection from
 * each (which names its rank); false with a message. */
static bool live_connect(VmMpi *m, char *err, size_t errlen) {
  struct {
    char host[64];
    int port;
  } where = {{0}, 0};
  int lfd = -1;
  if (m->rank == 0) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof a;
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, m->size) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
      snprintf(err, errlen, "rank 0 cannot listen for the liveness connections: %s", strerror(errno));
      if (lfd >= 0) close(lfd);
      return false;
    }
    snprintf(where.host, sizeof where.host, "%s", m->host);
    where.port = ntohs(a.sin_port);
  }
  if (!vm_mpi_bcast(m, &where, sizeof where, 0)) {
    snprintf(err, errlen, "cannot share the liveness address");
    if (lfd >= 0) close(lfd);
    return false;
  }
  if (m->rank == 0) {
    for (int k = 1; k < m->size; k++) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), r = -1;
      if (fd < 0 || !read_all(fd, &r, sizeof r) || r < 1 || r >= m->size || m->live[r] >= 0) {
        snprintf(err, errlen, "a liveness connection failed");
        if (fd >= 0) close(fd);
        close(lfd);
        return false;
      }
      m->live[r] = fd;
    }
    close(lfd);
    return true;
  }
  char port[16];
  snprintf(port, sizeof port, "%d", where.port);
  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
  const char *host = strcmp(where.host, m->host) == 0 ? "127.0.0.1" : where.host;
  int fd = -1;
  if (getaddrinfo(host, port, &hints, &res) == 0) {
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
      fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) close(fd), fd = -1;
    }
    freeaddrinfo(res);
  }
  if (fd < 0 || !write_all(fd, &m->rank, sizeof m->rank)) {
    snprintf(err, errlen, "cannot reach rank 0 at %s:%s for the liveness connection", where.host, port);
    if (fd >= 0) close(fd);
    return false;
  }
  m->live[0] = fd;
  return true;
}

/* Reads what socket of rank r says: a goodbye, or (from rank 0) a death;
 * end of file without a goodbye is r's own death. */
static void live_read(VmMpi *m, int r) {
  unsigned char msg[1 + sizeof(int)];
  ssize_t k = read(m->live[r], msg, 1);
  if (k < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (k == 1 && msg[0] == LIVE_BYE) {
    m->closed[r] = true;
    return;
  }
  int dead = r;
  if (k == 1 && msg[0] == LIVE_DIED && r == 0 && read_all(m->live[0], msg + 1, sizeof(int)))
    memcpy(&dead, msg + 1, sizeof dead);
  if (m->rank == 0) {
    /* Tell the others before going. */
    msg[0] = LIVE_DIED;
    memcpy(msg + 1, &dead, sizeof dead);
    for (int q = 1; q < m->size; q++)
      if (q != dead && !m->closed[q]) (void)write_all(m->live[q], msg, sizeof msg);
  }
  peer_died(m, dead);
}

/* ------------------------------------------------------------------ */
/* The transport thread. */

unsigned char *vm_mpi_packet(size_t len) {
  size_t total = (RECV_AT + PACKET_HEAD + len + 63) & ~(size_t)63;
  unsigned char *b = aligned_alloc(64, total);
  return b ? b + RECV_AT + PACKET_HEAD : NULL;
}

void vm_mpi_packet_free(unsigned char *payload) {
  if (payload) free(payload - RECV_AT - PACKET_HEAD);
}

void vm_mpi_post(VmMpi *m, const int *to, int nto, uint64_t run, int kind, unsigned char *payload, size_t len) {
  Outgoing *o = calloc(1, sizeof *o);
  if (o) {
    o->to = malloc(sizeof(int) * (size_t)(nto + 1));
    o->req = calloc((size_t)nto + 1, sizeof *o->req);
    o->active = calloc((size_t)nto + 1, sizeof *o->active);
  }
  if (!o || !o->to || !o->req || !o->active) {
    /* The job cannot go on without its packets. */
    fprintf(stderr, "%s: out of host memory sending to other processes; ending the job\n", m->who);
    vm_mpi_abort(m, 4);
  }
  unsigned char *head = payload - PACKET_HEAD;
  uint32_t k = (uint32_t)kind;
  memcpy(head, &run, 8);
  memcpy(head + 8, &k, 4);
  memset(head + 12, 0, 4);
  o->buf = payload - RECV_AT - PACKET_HEAD;
  o->len = PACKET_HEAD + len;
  memcpy(o->to, to, sizeof(int) * (size_t)nto);
  o->nto = nto;
  pthread_mutex_lock(&m->mu);
  *m->queue_tail = o;
  m->queue_tail = &o->next;
  pthread_mutex_unlock(&m->mu);
  uint64_t one = 1;
  (void)!write(m->wake_fd, &one, sizeof one);
}

/* Hands a packet to the attached handler, or keeps it for a later run. */
static void deliver(VmMpi *m, uint64_t run, int from, int kind, unsigned char *payload, size_t len) {
  pthread_mutex_lock(&m->mu);
  if (!m->handler || run != m->run) {
    /* m->run is the attached run, or the last one, which is over. */
    Incoming *in = run > m->run ? calloc(1, sizeof *in) : NULL;
    if (in) {
      *in = (Incoming){NULL, run, from, kind, payload, len};
      *m->early_tail = in;
      m->early_tail = &in->next;
    } else {
      vm_mpi_packet_free(payload); /* of a run that is over */
    }
    pthread_mutex_unlock(&m->mu);
    return;
  }
  VmMpiHandler h = m->handler;
  void *ud = m->ud;
  m->in_handler = true;
  pthread_mutex_unlock(&m->mu);
  bool kept = h(ud, from, kind, payload, len);
  pthread_mutex_lock(&m->mu);
  m->in_handler = false;
  pthread_cond_broadcast(&m->cv);
  pthread_mutex_unlock(&m->mu);
  if (!kept) vm_mpi_packet_free(payload);
}

/* Delivers the early packets of the attached run, oldest first. */
static void deliver_early(VmMpi *m) {
  for (;;) {
    pthread_mutex_lock(&m->mu);
    Incoming **pi = &m->early;
    while (*pi && !(m->handler && (*pi)->run <= m->run)) pi = &(*pi)->next;
    Incoming *in = *pi;
    if (in) {
      *pi = in->next;
      if (m->early_tail == &in->next) m->early_tail = pi;
    }
    pthread_mutex_unlock(&m->mu);
    if (!in) return;
    deliver(m, in->run, in->from, in->kind, in->payload, in->len);
    free(in);
  }
}

/* Receives every message that has come; true when there was one. */
static bool receive_all(VmMpi *m) {
  bool any = false;
  for (;;) {
    int flag = 0, count = 0;
    MPI_Status st;
    if (m->lib.Iprobe(MPI_ANY_SOURCE, MPI_TAG_PACKET, m->p2p, &flag, &st) != MPI_SUCCESS || !flag) return any;
    m->lib.Get_count(&st, m->lib.byte, &count);
    size_t len = count > PACKET_HEAD ? (size_t)count - PACKET_HEAD : 0;
    unsigned char *payload = vm_mpi_packet(len);
    if (!payload) {
      fprintf(stderr, "%s: out of host memory receiving %d bytes from rank %d; ending the job\n", m->who, count,
              st.MPI_SOURCE);
      vm_mpi_abort(m, 4);
    }
    unsigned char *head = payload - PACKET_HEAD;
    m->lib.Recv(head, count, m->lib.byte, st.MPI_SOURCE, MPI_TAG_PACKET, m->p2p, MPI_STATUS_IGNORE);
    uint64_t run;
    uint32_t kind;
    memcpy(&run, head, 8);
    memcpy(&kind, head + 8, 4);
    deliver(m, run, st.MPI_SOURCE, (int)kind, payload, len);
    any = true;
  }
}

/* Starts the queued sends (to this process: delivered at once) and
 * completes started ones; true when there is still something to send. */
static bool send_all(VmMpi *m) {
  pthread_mutex_lock(&m->mu);
  Outgoing *q = m->queue;
  m->queue = NULL;
  m->queue_tail = &m->queue;
  pthread_mutex_unlock(&m->mu);
  while (q) {
    Outgoing *o = q;
    q = q->next;
    for (int i = 0; i < o->nto; i++) {
      if (o->to[i] == m->rank) {
        size_t len = o->len - PACKET_HEAD;
        unsigned char *copy = vm_mpi_packet(len), *payload = o->buf + RECV_AT + PACKET_HEAD;
        uint64_t run;
        uint32_t kind;
        memcpy(&run, payload - PACKET_HEAD, 8);
        memcpy(&kind, payload - PACKET_HEAD + 8, 4);
        if (!copy) {
          fprintf(stderr, "%s: out of host memory; ending the job\n", m->who);
          vm_mpi_abort(m, 4);
        }
        memcpy(copy, payload, len);
        deliver(m, run, m->rank, (int)kind, copy, len);
        continue;
      }
      m->lib.Isend(o->buf + RECV_AT, (int)o->len, m->lib.byte, o->to[i], MPI_TAG_PACKET, m->p2p, &o->req[i]);
      o->active[i] = true;
      o->pending++;
    }
    o->next = m->sending;
    m->sending = o;
  }
  for (Outgoing **po = &m->sending; *po;) {
    Outgoing *o = *po;
    for (int i = 0; i < o->nto; i++) {
      int done = 0;
      if (!o->active[i]) continue;
      m->lib.Test(&o->req[i], &done, MPI_STATUS_IGNORE);
      if (done) o->active[i] = false, o->pending--;
    }
    if (o->pending > 0) {
      po = &o->next;
      continue;
    }
    *po = o->next;
    free(o->buf);
    free(o->to);
    free(o->req);
    free(o->active);
    free(o);
  }
  return m->sending != NULL;
}

/* Gives the attached fabric its tick. */
static void tick(VmMpi *m) {
  pthread_mutex_lock(&m->mu);
  VmMpiHandler h = m->handler;
  void *ud = m->ud;
  m->in_handler = h != NULL;
  pthread_mutex_unlock(&m->mu);
  if (!h) return;
  h(ud, m->rank, VM_MPI_TICK, NULL, 0);
  pthread_mutex_lock(&m->mu);
  m->in_handler = false;
  pthread_cond_broadcast(&m->cv);
  pthread_mutex_unlock(&m->mu);
}

/* Waits for the liveness sockets, a post, or `ms` milliseconds. */
static void wait_events(VmMpi *m, int ms) {
  struct pollfd *fds = m->pollfds;
  int n = 0, *ranks = m->pollranks;
  fds[n] = (struct pollfd){m->wake_fd, POLLIN, 0};
  ranks[n++] = -1;
  for (int r = 0; r < m->size; r++) {
    if (m->live[r] < 0 || m->closed[r]) continue;
    fds[n] = (struct pollfd){m->live[r], POLLIN, 0};
    ranks[n++] = r;
  }
  if (poll(fds, (nfds_t)n, ms) <= 0) return;
  for (int i = 0; i < n; i++) {
    if (!fds[i].revents) continue;
    if (ranks[i] < 0) {
      uint64_t v;
      (void)!read(m->wake_fd, &v, sizeof v);
    } else {
      live_read(m, ranks[i]);
    }
  }
}

/* The transport thread: sends, receives, ticks and watches; it polls MPI
 * busily for a few milliseconds after traffic, then every millisecond. */
static void *transport_main(void *arg) {
  VmMpi *m = arg;
  struct timespec last = {0, 0};
  for (;;) {
    pthread_mutex_lock(&m->mu);
    bool stop = m->stop && !m->queue;
    pthread_mutex_unlock(&m->mu);
    if (stop && !m->sending) break;
    deliver_early(m);
    bool busy = send_all(m);
    busy |= receive_all(m);
    tick(m);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (busy) last = now;
    double idle = (double)(now.tv_sec - last.tv_sec) + 1e-9 * (double)(now.tv_nsec - last.tv_nsec);
    if (idle < 0.005) {
      wait_events(m, 0);
      struct timespec nap = {0, 20000};
      nanosleep(&nap, NULL);
    } else {
      wait_events(m, 1);
    }
  }
  return NULL;
}

uint64_t vm_mpi_next_run(VmMpi *m) { return ++m->runs; }

void vm_mpi_attach(VmMpi *m, uint64_t run, VmMpiHandler h, void *ud) {
  pthread_mutex_lock(&m->mu);
  m->run = run;
  m->handler = h;
  m->ud = ud;
  pthread_mutex_unlock(&m->mu);
  uint64_t one = 1;
  (void)!write(m->wake_fd, &one, sizeof one);
}

void vm_mpi_detach(VmMpi *m) {
  pthread_mutex_lock(&m->mu);
  m->handler = NULL;
  m->ud = NULL;
  while (m->in_handler) pthread_cond_wait(&m->cv, &m->mu);
  pthread_mutex_unlock(&m->mu);
}

/* ------------------------------------------------------------------ */
/* Opening and closing. */

/* Stops the transport thread after its last sends, says goodbye on the
 * liveness connections and finalises MPI (at exit). */
static void finish_at_exit(void) {
  VmMpi *m = the_mpi;
  if (!m) return;
  pthread_mutex_lock(&m->mu);
  m->stop = true;
  pthread_mutex_unlock(&m->mu);
  uint64_t one = 1;
  (void)!write(m->wake_fd, &one, sizeof one);
  if (m->thread_up) pthread_join(m->thread, NULL);
  unsigned char bye = LIVE_BYE;
  for (int r = 0; r < m->size; r++)
    if (m->live[r] >= 0) (void)write_all(m->live[r], &bye, 1);
  /* Every process says goodbye before any leaves: a goodbye seen after
   * a close would otherwise read as a death. */
  vm_mpi_max(m, 0);
  m->lib.Comm_free(&m->p2p);
  m->lib.Comm_free(&m->coll);
  m->lib.Finalize();
  for (int r = 0; r < m->size; r++)
    if (m->live[r] >= 0) close(m->live[r]);
  close(m->wake_fd);
  free(m->live);
  free(m->closed);
  free(m->pids);
  free(m->hosts);
  free(m->pollfds);
  free(m->pollranks);
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->cv);
  /* m itself stays, the_mpi, until the process ends. */
}

/* Initialises MPI and the transport; NULL with a message. */
static VmMpi *mpi_start(const char *who, char *err, size_t errlen) {
  VmMpi *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(err, errlen, "out of host memory");
    return NULL;
  }
  snprintf(m->who, sizeof m->who, "%s", who ? who : "tpurun");
  if (gethostname(m->host, sizeof m->host - 1) != 0) snprintf(m->host, sizeof m->host, "localhost");
  if (!lib_load(&m->lib, err, errlen)) return NULL; /* m stays: dlopen'd code may point into it */
  int provided = 0;
  if (m->lib.Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    snprintf(err, errlen, "MPI_Init_thread failed");
    return NULL;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    snprintf(err, errlen, "this Open MPI does not support MPI_THREAD_MULTIPLE");
    return NULL;
  }
  m->lib.Comm_rank(m->lib.world, &m->rank);
  m->lib.Comm_size(m->lib.world, &m->size);
  m->lib.Comm_dup(m->lib.world, &m->p2p);
  m->lib.Comm_dup(m->lib.world, &m->coll);
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  m->queue_tail = &m->queue;
  m->early_tail = &m->early;
  m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  m->live = malloc(sizeof(int) * (size_t)m->size);
  m->closed = calloc((size_t)m->size, sizeof(bool));
  m->pids = calloc((size_t)m->size, sizeof(int));
  m->hosts = calloc((size_t)m->size, sizeof *m->hosts);
  m->pollfds = calloc((size_t)m->size + 1, sizeof *m->pollfds);
  m->pollranks = calloc((size_t)m->size + 1, sizeof *m->pollranks);
  if (m->wake_fd < 0 || !m->live || !m->closed || !m->pids || !m->hosts || !m->pollfds || !m->pollranks) {
    snprintf(err, errlen, "out of host memory");
    return NULL;
  }
  for (int r = 0; r < m->size; r++) m->live[r] = -1;
  struct {
    int pid;
    char host[64];
  } me = {(int)getpid(), {0}}, *all = malloc(sizeof me * (size_t)m->size);
  snprintf(me.host, sizeof me.host, "%s", m->host);
  if (!all || m->lib.Allgather(&me, (int)sizeof me, m->lib.byte, all, (int)sizeof me, m->lib.byte, m->coll) !=
                  MPI_SUCCESS) {
    free(all);
    snprintf(err, errlen, "cannot exchange the processes' names");
    return NULL;
  }
  for (int r = 0; r < m->size; r++) {
    m->pids[r] = all[r].pid;
    memcpy(m->hosts[r], all[r].host, sizeof m->hosts[r]);
  }
  free(all);
  if (!live_connect(m, err, errlen)) return NULL;
  if (pthread_create(&m->thread, NULL, transport_main, m) != 0) {
    snprintf(err, errlen, "cannot start the transport thread");
    return NULL;
  }
  m->thread_up = true;
  atexit(finish_at_exit);
  return m;
}

VmMpi *vm_mpi_open(const char *who, char *err, size_t errlen) {
  if (errlen) err[0] = '\0';
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  if (!size || atoi(size) < 2) return NULL;
  pthread_mutex_lock(&the_mpi_mu);
  static bool failed; /* MPI cannot start twice */
  VmMpi *m = the_mpi;
  if (!m && !failed) {
    m = mpi_start(who, err, errlen);
    failed = !m;
    the_mpi = m;
  } else if (!m) {
    snprintf(err, errlen, "MPI failed to start earlier in this process");
  }
  if (m) m->refs++;
  pthread_mutex_unlock(&the_mpi_mu);
  return m;
}

void vm_mpi_close(VmMpi *m) {
  if (!m) return;
  pthread_mutex_lock(&the_mpi_mu);
  m->refs--;
  pthread_mutex_unlock(&the_mpi_mu);
}

_Noreturn void vm_mpi_abort(VmMpi *m, int code) {
  fflush(stdout);
  fflush(stderr);
  m->lib.Abort(m->lib.world, code);
  _exit(code);
}

int vm_mpi_rank(const VmMpi *m) { return m ? m->rank : 0; }
int vm_mpi_size(const VmMpi *m) { return m ? m->size : 1; }

bool vm_mpi_share(const VmMpi *m, int nchips, int *lo, int *hi, char *err, size_t errlen) {
  int p = vm_mpi_size(m), r = vm_mpi_rank(m);
  if (nchips % p != 0) {
    size_t len = (size_t)snprintf(err, errlen, "%d processes cannot share %d chips evenly; use a process count that "
                                               "divides %d:", p, nchips, nchips);
    for (int d = 1; d <= nchips && len < errlen; d++)
      if (nchips % d == 0) len += (size_t)snprintf(err + len, errlen - len, " %d", d);
    return false;
  }
  *lo = r * (nchips / p);
  *hi = *lo + nchips / p;
  return true;
}

/* ------------------------------------------------------------------ */
/* Host collectives. */

bool vm_mpi_bcast(VmMpi *m, void *buf, size_t len, int root) {
  for (size_t off = 0; off < len;) {
    size_t n = len - off > (1u << 30) ? (1u << 30) : len - off; /* MPI counts are ints */
    if (m->lib.Bcast((char *)buf + off, (int)n, m->lib.byte, root, m->coll) != MPI_SUCCESS) return false;
    off += n;
  }
  return true;
}

bool vm_mpi_bcast_blob(VmMpi *m, void **buf, size_t *len, int root) {
  uint64_t n = m->rank == root ? *len : 0;
  if (!vm_mpi_bcast(m, &n, sizeof n, root)) return false;
  if (m->rank != root) {
    *len = n;
    if (!(*buf = malloc(n ? n : 1))) {
      fprintf(stderr, "%s: out of host memory receiving %llu bytes; ending the job\n", m->who, (unsigned long long)n);
      vm_mpi_abort(m, 4);
    }
  }
  return vm_mpi_bcast(m, *buf, n, root);
}

bool vm_mpi_allgather_blob(VmMpi *m, const void *mine, size_t len, void **all, size_t *lens) {
  uint64_t n = len, *ns = malloc(sizeof(uint64_t) * (size_t)m->size);
  int *counts = malloc(sizeof(int) * (size_t)m->size), *displs = malloc(sizeof(int) * (size_t)m->size);
  bool ok = ns && counts && displs &&
            m->lib.Allgather(&n, 8, m->lib.byte, ns, 8, m->lib.byte, m->coll) == MPI_SUCCESS;
  uint64_t total = 0;
  for (int r = 0; ok && r < m->size; r++) {
    lens[r] = ns[r];
    displs[r] = (int)total;
    counts[r] = (int)ns[r];
    total += ns[r];
  }
  if (ok && total > (uint64_t)INT32_MAX) {
    fprintf(stderr, "%s: the chips' results are %llu bytes, more than one MPI gather moves (2 GiB); ending the job\n",
            m->who, (unsigned long long)total);
    vm_mpi_abort(m, 4);
  }
  *all = ok ? malloc(total ? total : 1) : NULL;
  ok = ok && *all &&
       m->lib.Allgatherv(mine, (int)len, m->lib.byte, *all, counts, displs, m->lib.byte, m->coll) == MPI_SUCCESS;
  free(ns);
  free(counts);
  free(displs);
  return ok;
}

int vm_mpi_max(VmMpi *m, int v) {
  int all = v;
  if (m->lib.Allreduce(&v, &all, 1, m->lib.int_, m->lib.max, m->coll) != MPI_SUCCESS) {
    fprintf(stderr, "%s: MPI failed agreeing on a status; ending the job\n", m->who);
    vm_mpi_abort(m, 4);
  }
  return all;
}
