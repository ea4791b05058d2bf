#!/usr/bin/env bash
# device-capture.sh: run on a lent GPU machine (the `run` tool's device, a copy of this tree,
# results under $OUT). Captures the real output of the GPU and host tools that gpuplan parses
# (nvidia-smi table, -q, topo -m, topo -p2p, --query-gpu CSV, nvlink, lscpu, cpufreq, IB and
# NIC tools where present) as fixtures, then runs the benchmarks on a quiet machine:
# bench_parse held to 2 CPUs (this VM's size), to 8, and unheld; bench_engine; bench-http.sh
# held to 2 CPUs and unheld. The binaries come from this machine's build/ (carried: build/gpuplan,
# build/tests/bench, build/devlibs = the shared libraries, wrk and curl they need beyond glibc).
# Every step has its own time limit, so one tool that hangs costs its limit, not the run.
# Here, first: `scripts/device-capture.sh --prepare` (builds the binaries, fills build/devlibs);
# then on the device: `bash scripts/device-capture.sh`, carrying build/gpuplan,
# build/tests/bench and build/devlibs (~25 MB). What comes back fits the tool's limit of eight
# files: machine.txt (with the capture log), fixtures.tar.gz, bench-parse.txt, bench-engine.txt,
# bench-http.txt; the figures' summary lines are printed last, for the reply's output tail.
set -u
if [ "${1:-}" = --prepare ]; then
  set -e
  make -C build -j2 gpuplan bench_parse bench_engine >/dev/null
  rm -rf build/devlibs && mkdir -p build/devlibs
  # what the binaries, wrk and curl load beyond glibc (which must be the device's own)
  for bin in build/gpuplan build/tests/bench/bench_engine "$(command -v wrk)" "$(command -v curl)"; do
    ldd "$bin" | awk '/=>/ {print $3}'
  done | sort -u | grep -vE '/(libc|libm|libpthread|libdl|librt)\.so' | xargs -I{} cp -L {} build/devlibs/
  cp "$(command -v wrk)" "$(command -v curl)" build/devlibs/
  du -sh build/devlibs build/gpuplan build/tests/bench
  exit 0
fi
out=${OUT:?OUT is the folder whose files come back}
work=$(mktemp -d /tmp/gpuplan-capture-XXXXXX)
mkdir -p "$work/fixtures"
log=$work/capture.log
cap() {   # cap FILE CMD...: CMD's output into fixtures/FILE, its status into the log
  local f=$1; shift
  timeout 90 "$@" >"$work/fixtures/$f" 2>&1
  echo "rc=$? $f: $*" >>"$log"
}
{ date -u; uname -a; nproc; ldd --version | head -1; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
  for t in nvidia-smi dcgmi nvbandwidth fio ibstat ibstatus ibv_devinfo ethtool cpupower all_reduce_perf \
    ib_write_bw wrk curl grep; do printf '%s: %s\n' "$t" "$(command -v "$t" || echo absent)"; done
} >"$out/machine.txt" 2>&1

cap nvidia-smi.txt nvidia-smi
cap nvidia-smi-q.txt nvidia-smi -q
cap nvidia-smi-topo-m.txt nvidia-smi topo -m
cap nvidia-smi-topo-p2p-r.txt nvidia-smi topo -p2p r
cap nvidia-smi-query.csv nvidia-smi --format=csv \
  --query-gpu=index,name,pci.bus_id,memory.total,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,remapped_rows.pending,remapped_rows.failure,temperature.gpu,power.draw,clocks.sm,clocks.max.sm
cap nvidia-smi-nvlink-s.txt nvidia-smi nvlink -s
cap lscpu.txt lscpu
cap scaling-governor.txt cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
for t in cpupower ibstat ibstatus ibv_devinfo dcgmi nvbandwidth fio; do
  command -v "$t" >/dev/null || continue
  case $t in
    cpupower) cap cpupower-frequency-info.txt cpupower frequency-info ;;
    dcgmi) cap dcgmi-diag-r1.txt dcgmi diag -r 1 ;;
    nvbandwidth) cap nvbandwidth.txt nvbandwidth -t device_to_device_memcpy_read_ce ;;
    fio) cap fio-seqread.txt fio --name=seqread --rw=read --bs=1M --size=256M --numjobs=2 --runtime=4 \
           --time_based --group_reporting --filename=/tmp/gpuplan-fio ;;
    *) cap "$t.txt" "$t" ;;
  esac
done
for i in $(ls /sys/class/net 2>/dev/null | grep -v '^lo$' | head -2); do
  command -v ethtool >/dev/null && { cap "ethtool-i-$i.txt" ethtool -i "$i"; cap "ethtool-S-$i.txt" ethtool -S "$i"; }
done

export LD_LIBRARY_PATH=$PWD/build/devlibs PATH=$PWD/build/devlibs:$PATH
export BENCH_REPORTS_DIR=$PWD/tests/data/reports
b=build/tests/bench
for cpus in 0,1 0-7 all; do   # held to 2 CPUs (this VM's size), to 8, and unheld
  echo "=== bench_parse, CPUs: $cpus"
  if [ $cpus = all ]; then timeout 120 $b/bench_parse 100; else timeout 120 taskset -c $cpus $b/bench_parse 100; fi
done >"$out/bench-parse.txt" 2>&1
echo "bench_parse done $(date -u)" >>"$log"
timeout 120 $b/bench_engine >"$out/bench-engine.txt" 2>&1
echo "bench_engine done $(date -u)" >>"$log"
for cpus in 0,1 all; do
  echo "=== bench-http.sh, CPUs: $cpus"
  if [ $cpus = all ]; then DURATION=5 PAIRS=3 PAIR_DURATION=3 timeout 150 scripts/bench-http.sh build
  else DURATION=5 PAIRS=3 PAIR_DURATION=3 timeout 150 taskset -c $cpus scripts/bench-http.sh build; fi
done >"$out/bench-http.txt" 2>&1
echo "done $(date -u)" >>"$log"
cat "$log" >>"$out/machine.txt"
tar -C "$work" -czf "$out/fixtures.tar.gz" fixtures
cat "$out/machine.txt"
grep -E '===|MB/s|grep|ratio|best|median' "$out/bench-parse.txt" | head -40
grep -E 'ms|config|median|error' "$out/bench-engine.txt" | head -20
grep -E '===|req/s|ratio|target|pair' "$out/bench-http.txt" | head -60
