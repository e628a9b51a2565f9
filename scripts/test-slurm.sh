#!/usr/bin/env bash
# A real cluster run (docs/scale.md): stands up a one-node Slurm on this machine (munged, slurmctld and
# slurmd on localhost, select/cons_tres, the node's CPUs and memory), then
#   1. an array job of 4 tasks runs `loopprep analyze MEDIA --shard $SLURM_ARRAY_TASK_ID/4 --format jsonl`; the
#      shards merged by `loopprep report` must be byte for byte one run over the folder;
#   2. an array job of 4 tasks runs `loopprep fix MEDIA --shard K/4 -o FIXED` into one output folder; merged, every
#      file must be reported exactly once, and every file written exactly once;
# and stops the daemons it started, by their pid. Needs root and Debian's slurm-wlm and munge (installed when
# missing: about a minute). scripts/test.sh runs it only when LOOPPREP_TEST_SLURM=1.
# Usage: scripts/test-slurm.sh [LOOPPREP]   (default: .build/debug/loopprep, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
loopprep=${1:-.build/debug/loopprep}
[ -x "$loopprep" ] || swift build --product loopprep >/dev/null
loopprep=$(realpath "$loopprep")
if [ "$(id -u)" != 0 ]; then
  echo "test-slurm: SKIPPED: a one-node Slurm needs root (munged's key, slurmd)"
  exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  echo "test-slurm: installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 || {
    echo "test-slurm: SKIPPED: slurm-wlm and munge cannot be installed here (apt-get install slurm-wlm munge)"
    exit 0
  }
fi

work=$(mktemp -d /tmp/loopprep-slurm.XXXXXX)
chmod 755 "$work"
pids=()
stop() {
  # Only the daemons this script started, by the pids they wrote.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$work"
}
trap stop EXIT
pidof() { for _ in $(seq 100); do [ -s "$1" ] && { cat "$1"; return; }; sleep 0.1; done; echo "no pid in $1" >&2; return 1; }

# munge: its own key, socket and files under $work (the machine's own munged, if any, is left alone).
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"
pids+=("$(pidof "$work/munge/munged.pid")")

# Slurm: one node, this machine, its CPUs and memory; two free ports.
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
ports=($(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])'))
mkdir -p "$work/state" "$work/spool" "$work/out" "$work/fixed"
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=loopprep
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=loopprep Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF"
pids+=("$(pidof "$work/slurmctld.pid")")
slurmd -f "$SLURM_CONF"
pids+=("$(pidof "$work/slurmd.pid")")
for _ in $(seq 100); do sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break; sleep 0.2; done
state=$(sinfo -h -N -o '%T' 2>/dev/null || true)
if ! grep -qE '^(idle|mixed|allocated)' <<<"$state"; then
  echo "test-slurm: FAIL: the node did not come up (state: ${state:-none}); slurmctld's and slurmd's logs:"
  tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" || true
  exit 1
fi
echo "test-slurm: one-node Slurm up: $(sinfo -h -o '%P %D node, %c CPUs, %m MB' | head -1) ($(sinfo --version))"

# The media: fixtures of twelve kinds that fix repairs or finds right (the suite's, fixtures/make-fixtures.sh).
mkdir -p "$work/media"
for clip in clean.mp4 hevc.mp4 obs.mkv rtmp.flv camera.m2ts vp9-opus.webm av1-opus.webm loop-opus.opus \
  vp8-vorbis.webm mediarecorder.webm audio-longer.mp4 he-aac-output-clock.m4a; do
  cp "fixtures/$clip" "$work/media/"
done
inputs=$(ls "$work/media" | wc -l)

# A task that fails fails the script, with its log.
array() { # name sbatch-args...
  local name=$1; shift
  if ! sbatch --wait "$@" >/dev/null; then
    echo "test-slurm: FAIL: the $name array job failed; its tasks' logs:"
    tail -n 5 "$work"/out/"$name"-*.log || true
    exit 1
  fi
}

# 1. analyze, four shards as an array job, merged.
array analyze --array=0-3 --job-name=loopprep-analyze --output="$work/out/analyze-%a.log" --wrap \
  "'$loopprep' analyze '$work/media' --shard \$SLURM_ARRAY_TASK_ID/4 --format jsonl --no-seam --quiet \
   --fail-on never > '$work/out/analyze-'\$SLURM_ARRAY_TASK_ID.jsonl"
merged=$("$loopprep" report "$work"/out/analyze-*.jsonl --format json --quiet --fail-on never)
whole=$("$loopprep" analyze "$work/media" --format json --no-seam --quiet --fail-on never)
if [ "$merged" != "$whole" ]; then
  echo "test-slurm: FAIL: the 4 analyze shards merged are not one run over the folder"
  diff <(echo "$merged") <(echo "$whole") | head -20
  exit 1
fi
counts=$(for k in 0 1 2 3; do grep -c '"kind":"file"' "$work/out/analyze-$k.jsonl" || true; done | paste -sd+ -)
echo "test-slurm: analyze: 4 array tasks ($counts files), merged byte for byte as one run over $inputs files"

# 2. fix, four shards into one folder, merged: each file reported once and written once.
array fix --array=0-3 --job-name=loopprep-fix --output="$work/out/fix-%a.log" --wrap \
  "'$loopprep' fix '$work/media' --shard \$SLURM_ARRAY_TASK_ID/4 -o '$work/fixed' --format jsonl --quiet \
   --fail-on never > '$work/out/fix-'\$SLURM_ARRAY_TASK_ID.jsonl"
"$loopprep" report "$work"/out/fix-*.jsonl --format json --quiet --fail-on never > "$work/fix.json"
python3 - "$work/fix.json" "$work/media" "$work/fixed" <<'EOF'
import collections, json, os, sys
report, media, fixed = sys.argv[1:]
files = json.load(open(report))["files"]
paths = collections.Counter(os.path.basename(f["path"]) for f in files)
inputs = sorted(os.listdir(media))
problems = []
if sorted(paths) != inputs or any(n != 1 for n in paths.values()):
    problems.append(f"reported {dict(paths)}, inputs {inputs}")
written = [f["fix"]["output"] for f in files if (f.get("fix") or {}).get("output")]
if len(written) != len(set(written)):
    problems.append(f"an output named twice: {written}")
missing = [w for w in written if not os.path.exists(w)]
if missing:
    problems.append(f"outputs not on disk: {missing}")
extra = sorted(set(os.listdir(fixed)) - {os.path.basename(w) for w in written})
if extra:
    problems.append(f"files in the output folder no report names: {extra}")
statuses = collections.Counter((f.get("fix") or {}).get("status", "error") for f in files)
if set(statuses) - {"fixed", "unchanged"}:
    problems.append(f"not every file fixed: {dict(statuses)}")
if problems:
    print("test-slurm: FAIL: " + "; ".join(problems))
    sys.exit(1)
print(f"test-slurm: fix: 4 array tasks into one folder, {len(files)} files each reported once "
      f"({dict(statuses)}), {len(written)} written once each")
EOF
echo "test-slurm: OK"
