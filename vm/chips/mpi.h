/* The MPI transport of a process (vm/chips/mpi.c): packets between the
 * processes of an Open MPI job, delivered by one transport thread to the
 * fabric of the slice run in progress, and the watch that ends the job
 * when a process dies.  The host collectives are in vm/vm.h.  Internal to
 * vm/chips. */
#ifndef VM_CHIPS_MPI_H
#define VM_CHIPS_MPI_H

#include "vm/vm.h"

/* The kind the transport thread passes once per turn of its loop, with no
 * data: the fabric's chance to report its state (vm/chips/remote.c). */
#define VM_MPI_TICK 0

/* Receives a packet (kind > 0) of the attached run from process `from`,
 * or a tick.  data is 64-byte aligned; the handler keeps it by returning
 * true (and frees it later with vm_mpi_packet_free), else the transport
 * frees it.  Runs on the transport thread. */
typedef bool (*VmMpiHandler)(void *ud, int from, int kind, unsigned char *data, size_t len);

/* The id of the next slice run: every process counts its runs alike, so
 * the n-th runs of all processes are one run. */
uint64_t vm_mpi_next_run(VmMpi *m);
/* Delivers the packets of run `run` to h, those that came before in the
 * order they came, until vm_mpi_detach. */
void vm_mpi_attach(VmMpi *m, uint64_t run, VmMpiHandler h, void *ud);
/* Stops the deliveries; returns once h is not running. */
void vm_mpi_detach(VmMpi *m);

/* A packet's payload of len bytes (64-byte aligned), to fill and post;
 * NULL when out of memory. */
unsigned char *vm_mpi_packet(size_t len);
void vm_mpi_packet_free(unsigned char *payload);
/* Sends payload (from vm_mpi_packet, owned by the transport from here on)
 * of run `run` to the nto processes to[] (this one may be among them),
 * without waiting. */
void vm_mpi_post(VmMpi *m, const int *to, int nto, uint64_t run, int kind, unsigned char *payload, size_t len);

#endif
