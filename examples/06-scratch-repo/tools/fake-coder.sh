#!/bin/sh
# A stand-in for a coding agent (Claude Code, Codex) that needs no network: it edits
# src/add.sh in its working directory. Its first try is wrong; told why (the prompt then carries
# the failing check's output), it gets it right. It reads the prompt from the environment, where
# Hivewatch puts it for every command ($HIVEWATCH_PROMPT).
case "$HIVEWATCH_PROMPT" in
  *"FAIL: expected"*)
    printf '# add A B: prints A + B.\nadd() {\n  echo $(($1 + $2))\n}\n' > src/add.sh
    echo "fixed add: it now adds" ;;
  *)
    printf '# add A B: prints A + B.\nadd() {\n  echo $(($1 * $2))\n}\n' > src/add.sh
    echo "changed add to multiply" ;;
esac
