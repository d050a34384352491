# make install / make uninstall (DESIGN.md §9), included by the Makefile.
#
#   make install   PREFIX=DIR  (default /usr/local; DESTDIR honoured)
#   make uninstall PREFIX=DIR
#
# install builds what is missing (`all`), then mk/install.sh copies from
# $(BUILD) without building: bin/tpucc, bin/tpurun, include/tpurun.h,
# lib/libtpurun.{a,so}, lib/pkgconfig/tpurun.pc (mk/tpurun.pc.in with the
# prefix and version filled in) and the man pages tpucc(1), tpurun(1),
# tpurun(3) from docs/man/.  `make install BUILD=DIR` installs another
# build directory's files (testsuite/tools/install.sh does so).
PREFIX  ?= /usr/local
DESTDIR ?=
# The version tpurun.pc carries: the tools' version (runtime/compile.h).
TPUCC_VERSION := $(shell sed -n 's/^\#define TPUCC_VERSION "\(.*\)"$$/\1/p' runtime/compile.h)

install: all
	@DESTDIR='$(DESTDIR)' mk/install.sh install '$(BUILD)' '$(PREFIX)' '$(TPUCC_VERSION)'

uninstall:
	@DESTDIR='$(DESTDIR)' mk/install.sh uninstall '$(BUILD)' '$(PREFIX)' '$(TPUCC_VERSION)'
