#!/bin/sh
# The scratch repository's test suite.
. ./src/add.sh
got=$(add 2 3)
if [ "$got" != 5 ]; then
  echo "FAIL: expected add 2 3 = 5, got $got"
  exit 1
fi
echo "ok: add 2 3 = 5"
