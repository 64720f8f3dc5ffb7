#!/bin/sh
# tests/mpirun-dies.sh PROGRAM [ARGS...]: PROGRAM under plain mpirun with
# 2 processes, one of which dies (issue 18): the job must end with an
# error, not hang (tests/mpirun.sh's time limit gives 124 or 137) and not
# succeed. Skipped (77) without mpirun.
command -v mpirun >/dev/null 2>&1 || exit 77
"$(dirname "$0")/mpirun.sh" 2 "$@"
rc=$?
case $rc in
  0) echo "mpirun-dies: the job succeeded although a process died" >&2; exit 1 ;;
  124|137) echo "mpirun-dies: the job hung" >&2; exit 1 ;;
esac
echo "mpirun-dies: the job ended with status $rc, as it should"
exit 0
