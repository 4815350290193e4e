#!/usr/bin/env bash
# test_logstat_rotated.sh: rotated files merged whatever the order of their names (issue 26, item 12): at equal capture times each file keeps its own order and the files go oldest first, by which began first, then by logrotate's numbers or a file ring's numbers (wrapping, across a DST fall-back); a clean stream cut inside a batch is not reordered, a sender restarting at the rotation loses nothing.
SRCDIR=${SRCDIR:?}
. "$SRCDIR/tests/tap.sh"
LOGSTAT=$(realpath "${1:?usage: $0 gsmtap-logstat}")	# the files are made and named in $T
need python3 gzip zstd
ROTATED=("$SRCDIR/tests/logstat/make-rotated.py")

# counts FILE...: the line of counts of each stream in the report.
counts() {
	"$LOGSTAT" "$@" | grep '^ datagrams '
}
# both NAME WANT FILE...: the counts for the files in the order given, and reversed.
both() {
	local name=$1 want=$2 rev=() i
	shift 2
	for ((i = $#; i >= 1; i--)); do
		rev+=("${!i}")
	done
	is "$(counts "$@")" "$want" "$name, given ${*##*/}"
	is "$(counts "${rev[@]}")" "$want" "$name, given ${rev[*]##*/}"
}

CLEAN=" datagrams 100  lines 100  lost 0  reordered 0  duplicates 0  restarts 0  malformed 0"
RESTARTED=" datagrams 100  lines 100  lost 0  reordered 0  duplicates 0  restarts 1  malformed 0"

# --- a clean stream, cut inside a batch of lines captured at one time ---
cd "$T" || bail "no scratch directory"
python3 "${ROTATED[@]}" clean whole.pcapng || bail "make-rotated.py failed"
is "$(counts whole.pcapng)" "$CLEAN" "one file: 100 datagrams, nothing lost or reordered"
mkdir lr && python3 "${ROTATED[@]}" clean lr/gsmtap.pcapng.1 lr/gsmtap.pcapng || bail "make-rotated.py failed"
both "logrotate's NAME.1 before NAME" "$CLEAN" lr/gsmtap.pcapng lr/gsmtap.pcapng.1
mkdir gz && python3 "${ROTATED[@]}" clean gz/gsmtap.pcapng.2 gz/gsmtap.pcapng.1 gz/gsmtap.pcapng &&
	gzip gz/gsmtap.pcapng.2 || bail "make-rotated.py or gzip failed"
both "three generations, the oldest compressed: NAME.2.gz, NAME.1, NAME" "$CLEAN" \
	gz/gsmtap.pcapng gz/gsmtap.pcapng.1 gz/gsmtap.pcapng.2.gz
# a glob sorts .10 before .9: the numbers are compared as numbers
mkdir ten && python3 "${ROTATED[@]}" clean ten/gsmtap.pcapng.10 ten/gsmtap.pcapng.9.zst ten/gsmtap.pcapng.8 &&
	zstd -q --rm ten/gsmtap.pcapng.9.zst -o ten/z && mv ten/z ten/gsmtap.pcapng.9.zst || bail "make-rotated.py or zstd failed"
both "NAME.10 before NAME.9.zst before NAME.8" "$CLEAN" ten/gsmtap.pcapng.10 ten/gsmtap.pcapng.8 ten/gsmtap.pcapng.9.zst
# gsmtap-logd -b (and dumpcap): PREFIX_NNNNN_YYYYmmddHHMMSS.EXT; a restart numbers from 1 again
mkdir ring && python3 "${ROTATED[@]}" clean ring/gsmtap_00009_20261129222822.pcapng \
	ring/gsmtap_00010_20261129222822.pcapng ring/gsmtap_00001_20261129222823.pcapng || bail "make-rotated.py failed"
both "a file ring restarted (numbering from 1 again): the file that begins first" "$CLEAN" \
	ring/gsmtap_00001_20261129222823.pcapng ring/gsmtap_00010_20261129222822.pcapng ring/gsmtap_00009_20261129222822.pcapng
# Four files, the second and third beginning at one capture time: only their
# names tell them apart (issue 26 D4).
# ring4 NAME DIR FILE...: a clean stream in DIR's four FILEs, named oldest
# first, given scrambled (3rd, 1st, 4th, 2nd) and reversed.
ring4() {
	local name=$1 dir=$2
	shift 2
	mkdir "$dir" && python3 "${ROTATED[@]}" clean "${@/#/$dir/}" || bail "make-rotated.py failed"
	both "$name" "$CLEAN" "$dir/$3" "$dir/$1" "$dir/$4" "$dir/$2"
}
# A ring name's time is local: in Europe/Berlin 2026-10-25 00:59:59 UTC is
# 02:59:59 CEST and one second later 02:00:00 CET, so the time goes back while
# the number goes on.
ring4 "a file ring's names across a DST fall-back: by their number" dst \
	gsmtap_00007_20261025025958.pcapng gsmtap_00008_20261025025959.pcapng \
	gsmtap_00009_20261025020000.pcapng gsmtap_00010_20261025020001.pcapng
# gsmtap-logd's number wraps from 99999 to 00000 (mod 100000), here within one second
ring4 "a file ring's number wrapping within one second: 99999 before 00000" wrap \
	gsmtap_99998_20261129222822.pcapng gsmtap_99999_20261129222822.pcapng \
	gsmtap_00000_20261129222822.pcapng gsmtap_00001_20261129222822.pcapng
# names that say nothing: the file that begins first goes first
mkdir any && python3 "${ROTATED[@]}" clean any/z.pcapng any/a.pcapng || bail "make-rotated.py failed"
both "names that say nothing: the file whose packets begin first" "$CLEAN" any/a.pcapng any/z.pcapng

# --- a sender that started again at the rotation ---
python3 "${ROTATED[@]}" restart restart.pcapng || bail "make-rotated.py failed"
is "$(counts restart.pcapng)" "$RESTARTED" "one file: the restart counted, nothing lost or reordered"
mkdir rs && python3 "${ROTATED[@]}" restart rs/gsmtap.pcapng.1 rs/gsmtap.pcapng || bail "make-rotated.py failed"
both "a restart at the rotation, as in one file" "$RESTARTED" rs/gsmtap.pcapng rs/gsmtap.pcapng.1

done_testing
