#!/usr/bin/env bash
# test_logstat_damage.sh: damaged captures (editcap -E mutations of the fixtures and of the real libosmocore capture) never crash gsmtap-logstat and always give valid JSON and SVG.
. "$SRCDIR/tests/logstat/lib.sh"
need editcap

cp "$REFERENCE_CAPTURE" "$T/reference.pcapng" || bail "no reference capture"
"$MAKE_FIXTURE" -c "$T/step.pcapng" || bail "make-fixture -c failed"
bad_exit=0 bad_json=0 bad_svg=0 runs=0
for src in fixture stalls reference step; do
	for seed in $(seq 1 25); do
		f=$T/m.pcapng
		editcap -E 0.02 --seed "$seed" "$T/$src.pcapng" "$f" 2>/dev/null || bail "editcap failed"
		"$LOGSTAT" --json --top 5 --pair 'conn=([0-9]+) begin' 'conn=([0-9]+) end' --key 1 --filter level=DEBUG \
			--svg "$T/m.svg" "$f" >"$T/m.json" 2>"$T/m.err"
		rc=$?
		runs=$((runs + 1))
		[ $rc -le 1 ] || { bad_exit=$((bad_exit + 1)); echo "# $src seed $seed: exit $rc: $(head -c 200 "$T/m.err")"; }
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/m.json" 2>/dev/null ||
			{ bad_json=$((bad_json + 1)); echo "# $src seed $seed: invalid JSON"; }
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/m.svg" 2>/dev/null ||
			{ bad_svg=$((bad_svg + 1)); echo "# $src seed $seed: invalid SVG"; }
	done
done
is "$runs" 100 "100 mutated captures read"
is "$bad_exit" 0 "every run exits 0 or 1 (no crash, no usage error)"
is "$bad_json" 0 "every --json is valid JSON"
is "$bad_svg" 0 "every --svg is valid XML"

# The clock-step fixture: deltas beyond the plugin's int (±3000 s) keep their size here.
J=$(flat < <("$LOGSTAT" --json "$T/step.pcapng"))
check_flat "$J" <<'WANT'
gap_us.count=6
gap_us.negative=3
gap_us.min=-3000000000
gap_us.max=3000000500
WANT

done_testing
