#!/usr/bin/env bash
# scripts/ci/rehearse-runner.sh: the hosted-runner rehearsal, run inside the
# project's VM booted without rdma_rxe (RDMA_BENCH_VM_RXE=none, on dummy0):
# the steps of docs/ci.md's workflow on a kernel that lacks the module.
#
# usage: scripts/ci/rehearse-runner.sh RXE_CACHE RDMA_CORE_LIB
#
#   1. `rdma-bench softroce up` fails, naming the missing module and the
#      script that builds it;
#   2-3. scripts/ci/soft-roce.sh --netdev dummy0 (the workflows' step, but
#      for --packages and --unload-nic-rdma: the guest has no network and no
#      NIC): rxe-module.sh --install --load, with RXE_CACHE holding what the
#      same script built on the host for the VM's exact kernel (the guest
#      compiles under emulation, slowly), then `rdma-bench softroce up`;
#   4. a run says it measures on the device softroce up made;
#   5. an A/A gate of write_lat:64 on the rebuilt device, both sides on the
#      rdma-core that scripts/ci/rdma-core.sh built in place (RDMA_CORE_LIB,
#      through LD_LIBRARY_PATH), its document naming that rdma-core.
# Each step prints "rehearsal: PASS|FAIL ..."; the exit status is 1 when
# one failed.
set -uo pipefail

cache=${1:?usage: scripts/ci/rehearse-runner.sh RXE_CACHE RDMA_CORE_LIB}
lib=${2:?usage: scripts/ci/rehearse-runner.sh RXE_CACHE RDMA_CORE_LIB}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${RDMA_BENCH_BIN:-$root/rdma-bench}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
rc=0
pass() { echo "rehearsal: PASS $*"; }
fail() {
	echo "rehearsal: FAIL $*"
	rc=1
}

if "$bin" softroce up --netdev dummy0 >"$log/up0" 2>&1; then
	fail "softroce up succeeded on a kernel without rdma_rxe"
elif grep -q "kernel has no rdma_rxe module" "$log/up0" && grep -q "scripts/ci/rxe-module.sh --install --load" "$log/up0"; then
	pass "softroce up names the missing module and the script: $(tail -n 1 "$log/up0")"
else
	fail "softroce up's message: $(cat "$log/up0")"
fi

if "$root/scripts/ci/soft-roce.sh" --cache "$cache" --netdev dummy0 --bin "$bin" >"$log/up" 2>&1; then
	pass "soft-roce.sh (rxe-module.sh --install --load, softroce up): $(grep -E 'reusing|built|loaded|created' "$log/up" | tr '\n' ' ')"
else
	fail "soft-roce.sh: $(cat "$log/up")"
	exit 1
fi
echo "rehearsal: rdma_rxe from $(modinfo -F filename rdma_rxe 2>/dev/null), vermagic $(modinfo -F vermagic rdma_rxe 2>/dev/null)"

if "$bin" run write_lat --loopback -n 500 >"$log/run" 2>&1 && grep -q "device chosen: made by rdma-bench softroce up" "$log/run"; then
	pass "a run on the rebuilt device: $(grep '^device chosen' "$log/run")"
else
	fail "a run on the rebuilt device: $(cat "$log/run")"
fi

if LD_LIBRARY_PATH=$lib "$bin" run write_lat --loopback -n 500 >"$log/run2" 2>&1 &&
	grep -q "^provider: $lib/librxe" "$log/run2"; then
	pass "a run on the in-place rdma-core: $(grep -o 'rdma-core [^,]*' "$log/run2" | head -n 1), $(grep '^provider' "$log/run2")"
else
	fail "a run on the in-place rdma-core: $(cat "$log/run2")"
fi

# An A/A gate of one point, both sides on the in-place rdma-core. Under
# emulation an A/A gate can end undecided (exit 3) within its budget
# (docs/investigations/2026-11-28-verdicts.md): both mean the device
# measured; a fail (1) or an error does not.
code=0
"$bin" gate write_lat:64 --budget 3m --save-dir "$log/gate" --base-env "LD_LIBRARY_PATH=$lib" \
	--candidate-env "LD_LIBRARY_PATH=$lib" >"$log/gate.out" 2>&1 || code=$?
case $code in
0 | 3) pass "A/A gate write_lat:64 on the rebuilt device: exit $code: $(tail -n 1 "$log/gate.out")" ;;
*) fail "A/A gate write_lat:64: exit $code: $(tail -n 20 "$log/gate.out")" ;;
esac
sides=$(grep -ho "\"rdma_core\": \"[^\"]*\"" "$log"/gate/*.json 2>/dev/null | sort | uniq -c)
if [[ $(grep -c "provider $lib/librxe" <<<"$sides") -ge 1 ]] && ! grep -qv "provider $lib/librxe" <<<"$sides"; then
	pass "the gate's document names each side's rdma-core: $(echo "$sides" | tr -s ' \n' ' ')"
else
	fail "the gate's document's rdma_core: $sides"
fi
exit $rc
