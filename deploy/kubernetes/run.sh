#!/bin/sh
# Runs the sharded test on the current kubectl context (namespace: $NAMESPACE, default "default"):
# stamps the start reference (now, Unix seconds) into the shards' pod annotation, starts them,
# waits until every shard pod has ended, then runs the merge Job and prints its report.
# The shards start together at the reference + 30 s (--start-at +30s in hail-shards.yaml): pulling
# the image must take less than that, else the shards start late (hail merge says by how much).
set -eu
cd "$(dirname "$0")"
NAMESPACE=${NAMESPACE:-default}
TIMEOUT_S=${TIMEOUT_S:-900}
k() { kubectl -n "$NAMESPACE" "$@"; }

k apply -f results-pvc.yaml
k delete job hail-shards hail-merge --ignore-not-found --wait=true
HAIL_START_REF=$(date +%s)
sed "s/\${HAIL_START_REF}/$HAIL_START_REF/" hail-shards.yaml | k apply -f -

# Every shard ended (succeeded or failed): a failed shard does not stop the merge, which names it.
waited=0
while :; do
  status=$(k get job hail-shards -o jsonpath='{.status.active}/{.status.succeeded}/{.status.failed}')
  active=${status%%/*}
  done_count=$(echo "$status" | awk -F/ '{print ($2 == "" ? 0 : $2) + ($3 == "" ? 0 : $3)}')
  if [ "${active:-0}" = 0 ] && [ "$done_count" -ge 4 ]; then break; fi
  if [ "$waited" -ge "$TIMEOUT_S" ]; then
    echo "run.sh: the shards did not end within ${TIMEOUT_S}s (job status $status)" >&2
    exit 1
  fi
  sleep 5
  waited=$((waited + 5))
done

k apply -f hail-merge.yaml
k wait --for=condition=complete --timeout=300s job/hail-merge
k logs job/hail-merge
