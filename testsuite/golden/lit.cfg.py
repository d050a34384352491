# lit configuration for tpucc's golden tests (DESIGN.md §6).
#
# Run through testsuite/run_all.sh, or by hand:
#   /usr/bin/python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv \
#       testsuite/golden --param build_dir=$PWD/build
#
# Substitutions available in RUN: lines
#   %tpucc               <build_dir>/tpucc
#   %tpurun              <build_dir>/tpurun
#   %not                 LLVM's `not` (inverts the exit status)
#   %verify-diagnostics  verify_diagnostics.py <build_dir>/tpucc
#                        (MLIR's expected-error convention; see that file)
#   %python              /usr/bin/python3 (the one with numpy)
#   FileCheck            FileCheck-14 (llvm-14-tools)
# plus lit's own %s, %S, %t, %T ...

import os
import shutil

import lit.formats

config.name = 'tpucc-golden'
config.test_format = lit.formats.ShTest(True)
config.suffixes = ['.mlir']
config.excludes = ['lit.cfg.py', 'Inputs']

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.abspath(os.path.join(config.test_source_root, '..', '..'))
build_dir = os.path.abspath(
    lit_config.params.get('build_dir', os.path.join(repo, 'build')))
# %t temporaries go under the build dir, not into the source tree.
config.test_exec_root = os.path.join(build_dir, 'golden')
# tpurun compiles .mlir through the compilation cache: the tests use one of
# their own, never the user's (~/.cache/tpucc), emptied at every run so an
# entry of an earlier build is never loaded.
golden_cache = os.path.join(build_dir, 'golden-cache')
shutil.rmtree(golden_cache, ignore_errors=True)
config.environment['TPU_CACHE_DIR'] = golden_cache

python = '/usr/bin/python3'
llvm_bin = '/usr/lib/llvm-14/bin'
not_tool = os.path.join(llvm_bin, 'not')
if not os.path.exists(not_tool):
    lit_config.fatal('%s not found: run mk/install-deps.sh test '
                     '(package llvm-14-tools)' % not_tool)
tpucc = os.path.join(build_dir, 'tpucc')
if not os.path.exists(tpucc):
    lit_config.warning('%s does not exist: build it first (make)' % tpucc)

# lit applies these in order, before its own (%t would otherwise eat the
# start of %tpucc / %tpurun).  Patterns are regular expressions.
config.substitutions.append(('%tpucc', tpucc))
config.substitutions.append(('%tpurun', os.path.join(build_dir, 'tpurun')))
config.substitutions.append(('%not', not_tool))
config.substitutions.append((
    '%verify-diagnostics',
    '%s %s %s' % (python,
                  os.path.join(config.test_source_root, 'verify_diagnostics.py'),
                  tpucc)))
config.substitutions.append(('%python', python))
# A bare FileCheck word (not FileCheck-14, not a path ending in FileCheck).
config.substitutions.append((r'(?<![\w/.-])FileCheck(?![\w-])', 'FileCheck-14'))

# Environment: lit starts from a clean one; pass through what tests need.
# The build dir and LLVM's tools come first on PATH, so plain `tpucc`,
# `not` and `FileCheck` also work.
config.environment['PATH'] = os.pathsep.join(
    [build_dir, llvm_bin, os.environ.get('PATH', '/usr/bin:/bin')])
for var in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TSAN_OPTIONS', 'HOME',
            'TMPDIR', 'TPU_CONFORMANCE_DIR'):
    if var in os.environ:
        config.environment[var] = os.environ[var]
