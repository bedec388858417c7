#!/usr/bin/env bash
# test_docs.sh - the transcripts of docs/language.md, docs/schedules.md, docs/graph.md, docs/gpu.md and docs/npu-tutorial.md run
# and print what the pages show (docs/tutorial.md has test_tutorial.sh).
set -u
tvs=$1 work=$2
src=${TVS_SOURCE_DIR:?}
py=${PYTHON3:-/usr/bin/python3}
rm -rf "$work" && mkdir -p "$work"
rc=0
for doc in language schedules graph gpu npu-tutorial; do
  "$py" "$src/tests/e2e/doc_transcripts.py" "$src/docs/$doc.md" "$work/$doc" "$tvs" "${TVSC:?}" || rc=1
done
exit $rc
