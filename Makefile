# tpucc — build and test (GNU make).  See DESIGN.md §1, §6, §7.
#
#   make               install missing build deps, build tpucc (and tpurun)
#   make run           build, compile and run examples/transformer_block.mlir
#   make check         everything a change must keep passing
#   make sanitize      `make check` under ASan+UBSan (clang-14, build-asan/)
#   make tsan          the many-chips and MPI tests under ThreadSanitizer (build-tsan/)
#   make unit          cmocka unit tests only (build/unit_tests)
#   make fuzz-parser   libFuzzer on the parser, FUZZ_SECONDS (default 60)
#   make fuzz-loader   libFuzzer on the .tpub loader and the VM
#   make fuzz-npy      libFuzzer on the .npy reader and --input specs
#   make fuzz-cache    libFuzzer on the cache's entry and alias readers
#   make fuzz-runtime  libFuzzer on libtpurun's C API (call sequences)
#   make fuzz-python   random ATen op chains, tpurun.torch against PyTorch CPU (FUZZ_EXAMPLES)
#   make conformance   every corpus program under tpurun --check
#   make check-spmd    the SPMD tests with every sharded conformance variant
#                      (testsuite/tools/spmd.sh, SPMD_LIMIT=all; docs/testing.md)
#   make bench         benchmarks (never part of check)
#   make docs          regenerate docs/ops.md, docs/opcodes.md and docs/spec-coverage.md from the tables
#   make install       install tools, libtpurun, tpurun.h, tpurun.pc, man pages
#                      (PREFIX=/usr/local, DESTDIR; mk/install.mk)
#   make uninstall     remove exactly what make install installed
#   make clean

# make predefines CC=cc, so `CC ?= gcc` alone would never take effect.
ifeq ($(origin CC),default)
CC = gcc
endif
AR      ?= ar
BUILD   ?= build
# SAN_CFLAGS is appended last (after -O2) by `make sanitize`.
# -fPIC: every object also goes into build/libtpurun.so; -fvisibility=hidden:
# the shared library exports only the tpu_* API (TPU_API in runtime/tpurun.h).
CFLAGS   = -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -fvisibility=hidden -I. $(SAN_CFLAGS)
DEPFLAGS = -MMD -MP
LDFLAGS ?=
# GMP and xxHash are linked statically (Debian's -dev packages ship the .a):
# two shared libraries fewer to load makes a warm cache hit, a few ms in all,
# faster.  The C library stays shared, so valgrind still sees every malloc.
LDLIBS   = -Wl,-Bstatic -lgmp -lxxhash -Wl,-Bdynamic -lopenblas -lm -lpthread

# Open MPI's header for the MPI transport (vm/chips/mpi.c), which loads
# libmpi itself with dlopen when tpurun runs under mpirun.  Recursive (=):
# expanded when the object is built, after `deps` installed the package.
MPI_CFLAGS = $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile 2>/dev/null)
$(BUILD)/obj/vm/chips/mpi.o: CFLAGS += $(MPI_CFLAGS)

# ---------------------------------------------------------------- libraries
# One static library per source folder, in link order (users before the
# libraries they depend on).  A folder without .c files is skipped.
LIBDIRS     := runtime frontend cache backend passes vm ir
present      = $(foreach d,$(1),$(if $(wildcard $(d)/*.c),$(d)))
lib          = $(patsubst %,$(BUILD)/lib%.a,$(call present,$(1)))
obj          = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# libvm.a never needs the front end (DESIGN.md §1; testsuite/tools/layering.sh
# checks its symbols); the tpurun tool links the compiler to accept .mlir,
# and tpucc links the VM's loader to check what it writes (runtime/compile.c).
TPUCC_LIBS  := $(call lib,runtime frontend cache backend passes vm ir)
TPURUN_LIBS := $(call lib,runtime frontend cache backend passes vm ir)
UNIT_LIBS   := $(call lib,$(LIBDIRS))
UNIT_SRCS   := $(wildcard testsuite/unit/*.c) testsuite/fuzz/fuzz_loader.c

PROGRAMS := $(BUILD)/tpucc $(if $(wildcard tools/tpurun.c),$(BUILD)/tpurun) $(BUILD)/libtpurun.a $(BUILD)/libtpurun.so

# ---------------------------------------------------------------- deps
# Phony, so it runs once per make invocation; objects wait for it through an
# order-only prerequisite (it never forces a rebuild).  Test-like goals ask
# for the test package set, everything else for the build set.
TEST_GOALS := check sanitize unit fuzz-parser fuzz-loader fuzz-npy fuzz-cache fuzz-runtime fuzz-bytecode fuzz-python bench conformance check-spmd check-bytecode docs
DEPS_SET   := $(if $(filter $(TEST_GOALS),$(MAKECMDGOALS)),test,build)

.PHONY: all deps run check sanitize tsan unit fuzz-parser fuzz-loader fuzz-npy fuzz-cache fuzz-runtime fuzz-bytecode fuzz-python bench conformance check-spmd check-bytecode docs install uninstall clean
all: deps $(PROGRAMS)

deps:
	@mk/install-deps.sh $(DEPS_SET)

# ---------------------------------------------------------------- rules
$(BUILD)/obj/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Generic: $(BUILD)/libX.a holds every X/*.c and X/*/*.c (vm/kernels, ...), so a
# new folder just works.  The archive is written anew each time, so two
# objects of one basename in different subfolders are both kept.
# Objects reached only through this rule would count as intermediate and be
# deleted after the build; .SECONDARY keeps them (incremental rebuilds).
.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/lib%.a: $$(call obj,$$(wildcard $$*/*.c $$*/*/*.c))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tpucc: $(call obj,tools/tpucc.c tools/driver.c) $(TPUCC_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tpurun: $(call obj,tools/tpurun.c tools/driver.c) $(TPURUN_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# libtpurun (DESIGN.md §9): every library folder in one archive and one
# shared object.  GMP and xxHash are the .so's own dependencies; a static
# client links them itself (tpurun.pc's Libs.private).
# -z defs catches an undefined symbol at link time; a sanitizer build leaves
# its runtime's symbols to the executable, so it goes without.
SO_DEFS     := $(if $(SAN_CFLAGS),,-Wl,-z,defs)
TPURUN_OBJS := $(call obj,$(foreach d,$(LIBDIRS),$(wildcard $(d)/*.c $(d)/*/*.c)))
$(BUILD)/libtpurun.a: $(TPURUN_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/libtpurun.so: $(TPURUN_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libtpurun.so $(SO_DEFS) -o $@ $^ -lgmp -lxxhash -lopenblas -lm -lpthread

# Clients of the public header only (-I runtime, #include "tpurun.h"),
# linked against the static library: the eager example and its benchmark.
EAGER_CLIENTS := examples/eager_transformer.c bench/eager_bench.c bench/eager_first.c
$(call obj,$(EAGER_CLIENTS)): CFLAGS += -Iruntime
$(BUILD)/eager_transformer: $(call obj,examples/eager_transformer.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/eager_bench: $(call obj,bench/eager_bench.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/eager_first: $(call obj,bench/eager_first.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit_tests: $(call obj,$(UNIT_SRCS)) $(UNIT_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# libtpurun from 8 host threads at once in each eager mode
# (testsuite/tools/runtime_threads.sh; `make tsan` runs it too), and the
# runtime fuzzer's regression inputs replayed without libFuzzer
# (testsuite/tools/fuzz_regressions.sh).
$(BUILD)/runtime_threads: $(call obj,testsuite/runtime/threads.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ -lgmp -lxxhash -lopenblas -lm -lpthread

# A libtpurun client run under mpirun (testsuite/tools/mpi_runtime.sh).
$(BUILD)/mpi_client: $(call obj,testsuite/runtime/mpi_client.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ -lgmp -lxxhash -lopenblas -lm -lpthread

$(BUILD)/fuzz_runtime_replay: $(call obj,testsuite/fuzz/fuzz_runtime.c testsuite/fuzz/replay_main.c) $(BUILD)/libtpurun.a
	$(CC) $(LDFLAGS) -o $@ $^ -lgmp -lxxhash -lopenblas -lm -lpthread

# Parses, verifies and round-trips the conformance corpus (testsuite/corpus).
$(BUILD)/corpus_check: $(call obj,testsuite/corpus/corpus_check.c) $(call lib,frontend ir)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Portable artifacts against their text: StableHLO's pair files and round
# trips of the corpus through every version (testsuite/bytecode).
$(BUILD)/bytecode_check: $(call obj,testsuite/bytecode/bytecode_check.c) $(call lib,frontend ir)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d)

# ---------------------------------------------------------------- goals
include mk/install.mk

# One transformer block (examples/transformer_block.mlir): compile to bytecode,
# run on 8 token ids and seeded random weights in [-1, 1), print the 8x32 result,
# then the cost model's summary of it (the whole table is left in a file);
# then the same block op by op through libtpurun's eager API in the Debug,
# Strict and Fused modes (examples/eager_transformer.c).
run: all $(BUILD)/eager_transformer
	$(BUILD)/tpucc examples/transformer_block.mlir -o $(BUILD)/transformer_block.tpub
	$(BUILD)/tpurun $(BUILD)/transformer_block.tpub \
	    --input=8xi32=3,14,15,9,26,5,35,8 \
	    --input=random:1 --input=random:2 --input=random:3 --input=random:4 \
	    --input=random:5 --input=random:6 --input=random:7 --input=random:8 \
	    --input=random:9
	@$(BUILD)/tpucc --report --target=v5e examples/transformer_block.mlir >$(BUILD)/transformer_block.report
	@echo "modeled on v5e (tpucc --report; table in $(BUILD)/transformer_block.report):"
	@tail -n 1 $(BUILD)/transformer_block.report
	$(BUILD)/eager_transformer all

unit: deps $(if $(UNIT_SRCS),$(BUILD)/unit_tests)
	@$(if $(UNIT_SRCS),:,echo "no unit tests in testsuite/unit/")

check: deps all unit $(BUILD)/corpus_check $(BUILD)/bytecode_check $(BUILD)/eager_transformer $(BUILD)/runtime_threads $(BUILD)/mpi_client $(BUILD)/fuzz_runtime_replay
	testsuite/run_all.sh $(BUILD)

# Every conformance program written as a portable artifact for every
# StableHLO version and read back (make check runs a sample).
check-bytecode: all $(BUILD)/bytecode_check
	$(BUILD)/bytecode_check roundtrip --versions=all \
	    $${TPU_CONFORMANCE_DIR:-../shared/conformance}/stablehlo/testdata/*.mlir \
	    $${TPU_CONFORMANCE_DIR:-../shared/conformance}/stablehlo/interpret/*.mlir

# Every corpus program under tpurun --check: PASS / FAIL / UNSUPPORTED per file.
conformance: all
	testsuite/conformance/run.sh $(BUILD)

# The SPMD tests of make check (testsuite/tools/spmd.sh) with every sharded
# variant of every conformance program instead of make check's subset, on
# all cores.
check-spmd: all
	TPU_CACHE_DIR=$(abspath $(BUILD))/test-cache SPMD_LIMIT=all SPMD_JOBS=$$(nproc) \
	  SPMD_WORK=$(abspath $(BUILD))/spmd-variants testsuite/tools/spmd.sh $(BUILD)

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=all
# The processes mpirun starts run without leak checking: Open MPI unloads
# its plugins at MPI_Finalize, so their leaks cannot be told from tpurun's
# (valgrind with Open MPI's suppressions checks that path: docs/testing.md).
sanitize:
	ASAN_OPTIONS=detect_leaks=1 OMPI_MCA_mca_base_env_list="ASAN_OPTIONS=detect_leaks=0" \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) check BUILD=build-asan CC=clang-14 \
	    SAN_CFLAGS="$(SAN) -O1" LDFLAGS="$(SAN)"

# The many-chips tests (a thread per chip) under ThreadSanitizer, and the
# fast part of the MPI tests (the transport's threads; mpi.sh skips itself
# when mpirun is missing), with Open MPI's uninstrumented libraries
# suppressed (testsuite/sanitizers/openmpi-tsan.supp).
TSAN_BUILD := build-tsan
tsan: export TPU_CACHE_DIR = $(CURDIR)/$(TSAN_BUILD)/test-cache
tsan: deps
	$(MAKE) all $(TSAN_BUILD)/runtime_threads BUILD=$(TSAN_BUILD) CC=clang-14 SAN_CFLAGS="-fsanitize=thread -O1" LDFLAGS="-fsanitize=thread"
	rm -rf $(TPU_CACHE_DIR)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 /usr/bin/python3 /usr/lib/llvm-14/build/utils/lit/lit.py -s \
	    testsuite/golden/vm testsuite/golden/passes/overlap_exec.mlir --param build_dir=$(CURDIR)/$(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 testsuite/tools/chips.sh $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=$(CURDIR)/testsuite/sanitizers/openmpi-tsan.supp MPI_FAST=1 \
	    MPI_PRELOAD="$$(/sbin/ldconfig -p | awk '/libpmix\.so\.2 /{print $$NF; exit}')" testsuite/tools/mpi.sh $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 testsuite/tools/limits.sh $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 testsuite/tools/train_step.sh $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 testsuite/tools/runtime_threads.sh $(TSAN_BUILD)
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 testsuite/conformance/run.sh $(TSAN_BUILD) /interpret/

bench: all $(BUILD)/eager_transformer $(BUILD)/eager_bench $(BUILD)/eager_first
	bench/run.sh $(BUILD)

# The op and opcode references and the spec coverage table, generated from the tables
# (testsuite/tools/docs_current.sh fails `make check` when a page in the tree
# is stale).
docs: deps
	/usr/bin/python3 mk/gen-ops-md.py docs/ops.md
	/usr/bin/python3 mk/gen-opcodes-md.py docs/opcodes.md
	/usr/bin/python3 mk/gen-spec-coverage.py docs/spec-coverage.md

# ---------------------------------------------------------------- fuzzing
# The harness is linked with -fsanitize=fuzzer; the code under test is
# instrumented with fuzzer-no-link.  Crashes land in build-fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build-fuzz
FUZZ_CC      := clang-14
FUZZ_SAN     := address,undefined
FUZZ_CFLAGS   = $(CFLAGS) -O1 -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,$(FUZZ_SAN)
FUZZ_SRCS    := testsuite/fuzz/fuzz_parser.c $(wildcard frontend/*.c ir/*.c passes/*.c)
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_SRCS))
FUZZ_CORPUS  := $(FUZZ_BUILD)/corpus-parser
FUZZ_DICT    := $(if $(wildcard testsuite/fuzz/mlir.dict),-dict=testsuite/fuzz/mlir.dict)

$(FUZZ_BUILD)/obj/%.o: %.c | deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/fuzz_parser: $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d)

fuzz-parser: deps $(FUZZ_BUILD)/fuzz_parser
	@mkdir -p $(FUZZ_CORPUS)
	@# Seed: flatten paths into file names so equal basenames do not clash.
	@for f in $$(find testsuite/golden -name '*.mlir' 2>/dev/null) \
	          $$(ls examples/*.mlir testsuite/fuzz/parser-seeds/*.mlir 2>/dev/null); do \
	    cp "$$f" "$(FUZZ_CORPUS)/seed-$$(echo "$$f" | tr / _)"; \
	done
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_parser $(FUZZ_CORPUS) $(FUZZ_DICT) \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/

# The loader and VM on arbitrary bytes (testsuite/fuzz/fuzz_loader.c), seeded
# with the bytecode of the examples and a sample of the corpus.
LOADER_FUZZ_SRCS   := testsuite/fuzz/fuzz_loader.c $(wildcard vm/*.c vm/*/*.c)
LOADER_FUZZ_OBJS   := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(LOADER_FUZZ_SRCS))
LOADER_FUZZ_CORPUS := $(FUZZ_BUILD)/corpus-loader

$(FUZZ_BUILD)/fuzz_loader: $(LOADER_FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-loader: deps all $(FUZZ_BUILD)/fuzz_loader
	@mkdir -p $(LOADER_FUZZ_CORPUS)
	@for f in examples/*.mlir testsuite/fuzz/loader-seeds/*.mlir $$(ls $${TPU_CONFORMANCE_DIR:-../shared/conformance}/stablehlo/testdata/*.mlir 2>/dev/null | awk 'NR % 40 == 1'); do \
	    $(BUILD)/tpucc "$$f" -o "$(LOADER_FUZZ_CORPUS)/seed-$$(basename "$$f" .mlir).tpub" 2>/dev/null || true; \
	done
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_loader $(LOADER_FUZZ_CORPUS) \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/loader-

# The portable-artifact reader (and writer) on arbitrary bytes
# (testsuite/fuzz/fuzz_bytecode.c), seeded with every .mlir.bc of the
# corpus and the models.
BC_FUZZ_SRCS   := testsuite/fuzz/fuzz_bytecode.c $(wildcard frontend/*.c ir/*.c)
BC_FUZZ_CORPUS := $(FUZZ_BUILD)/corpus-bytecode
$(FUZZ_BUILD)/fuzz_bytecode: $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(BC_FUZZ_SRCS))
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-bytecode: deps $(FUZZ_BUILD)/fuzz_bytecode
	@mkdir -p $(BC_FUZZ_CORPUS)
	@# Seeds without their 4-byte magic number (the harness adds it).
	@for f in $$(find $${TPU_CONFORMANCE_DIR:-../shared/conformance} ../shared/models testsuite/bytecode \
	              -name '*.mlir.bc' 2>/dev/null); do \
	    tail -c +5 "$$f" > "$(BC_FUZZ_CORPUS)/seed-$$(echo "$$f" | tr / _)"; \
	done
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_bytecode $(BC_FUZZ_CORPUS) \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/bytecode-

# The cache's entry and alias readers (testsuite/fuzz/fuzz_cache.c).
CACHE_FUZZ_SRCS := testsuite/fuzz/fuzz_cache.c cache/cache.c $(wildcard ir/*.c)
$(FUZZ_BUILD)/fuzz_cache: $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(CACHE_FUZZ_SRCS))
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-cache: deps $(FUZZ_BUILD)/fuzz_cache
	@mkdir -p $(FUZZ_BUILD)/corpus-cache
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_cache $(FUZZ_BUILD)/corpus-cache \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/cache-

# The .npy reader and the --input parser (testsuite/fuzz/fuzz_npy.c).
NPY_FUZZ_SRCS := testsuite/fuzz/fuzz_npy.c vm/io/literal.c vm/io/npy.c vm/io/compare.c vm/dtype.c
$(FUZZ_BUILD)/fuzz_npy: $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(NPY_FUZZ_SRCS))
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-npy: deps $(FUZZ_BUILD)/fuzz_npy
	@mkdir -p $(FUZZ_BUILD)/corpus-npy
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_npy $(FUZZ_BUILD)/corpus-npy \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/npy-

# libtpurun's C API on call sequences decoded from the input
# (testsuite/fuzz/fuzz_runtime.c), seeded from testsuite/fuzz/runtime-seeds.
RUNTIME_FUZZ_SRCS := testsuite/fuzz/fuzz_runtime.c $(foreach d,$(LIBDIRS),$(wildcard $(d)/*.c $(d)/*/*.c))
$(FUZZ_BUILD)/fuzz_runtime: $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(RUNTIME_FUZZ_SRCS))
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-runtime: deps $(FUZZ_BUILD)/fuzz_runtime
	@mkdir -p $(FUZZ_BUILD)/corpus-runtime
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(FUZZ_BUILD)/fuzz_runtime $(FUZZ_BUILD)/corpus-runtime testsuite/fuzz/runtime-seeds \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=20 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/runtime-

# Differential fuzzing of the PyTorch bridge (testsuite/python/test_fuzz_ops.py):
# fresh random op chains on the TPU against PyTorch CPU in every mode
# (make check runs a fixed sample of 40 per mode).
FUZZ_EXAMPLES ?= 2000
fuzz-python: all
	TPU_FUZZ_RANDOM=1 TPU_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) TPURUN_LIBRARY=$(abspath $(BUILD))/libtpurun.so \
	TPU_CACHE_DIR=$(abspath $(BUILD))/fuzz-python-cache \
	    /usr/bin/python3 -m pytest -q -p no:cacheprovider testsuite/python/test_fuzz_ops.py

clean:
	rm -rf $(sort build build-asan build-tsan $(FUZZ_BUILD) $(BUILD))
