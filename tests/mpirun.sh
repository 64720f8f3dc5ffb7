#!/bin/sh
# tests/mpirun.sh NP PROGRAM [ARGS...]: PROGRAM under Open MPI's mpirun
# with NP processes on this machine (issue 18, the suite "mpi"), with a
# hard time limit, so that nothing hangs. More processes than cores
# (--oversubscribe), as root in CI containers; AddressSanitizer's leak
# check off: Open MPI leaks at exit. Without mpirun the test is skipped
# (TAP's "1..0 # SKIP": build-aux/setup installs openmpi-bin).
set -eu
np=$1
shift
if ! command -v mpirun >/dev/null 2>&1; then
  echo "1..0 # SKIP mpirun is missing (openmpi-bin)"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# containers: no cross-memory attach between the processes
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
exec timeout -k 5 "${EP_MPIRUN_TIMEOUT:-110}" mpirun --oversubscribe ${EP_MPIRUN_ARGS:-} -np "$np" "$@"
