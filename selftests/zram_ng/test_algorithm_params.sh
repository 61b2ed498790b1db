#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# algorithm_params (upstream 6.12's keys, on both kernels): a level and a
# zstd dictionary for the primary or a secondary algorithm, through the
# kernel's lz4, lz4hc and zstd libraries (zram_ng/zcomp*.c).
#  1. Bad input, each with the errno a user gets: unknown or repeated
#     keys, a priority or name that names no algorithm, levels out of an
#     algorithm's range, parameters an algorithm cannot take (EOPNOTSUPP),
#     dictionary files that are missing, empty or over 1 MiB; EBUSY after
#     disksize.
#  2. Levels change what is stored: zstd level 1 against 19, lz4hc 3
#     against 12, lz4 acceleration 1 against 64, on the same text; every
#     page reads back.
#  3. A dictionary (scripts/vm/make-dict-data: trained on the tree's own
#     text, tried on other pages of it): on 6.12 the pages take less
#     memory with it and read back, the same compressed bytes as the stock
#     zram's with that dictionary; recompression with a zstd secondary
#     that has the dictionary reads back too. On 6.1 (whose zstd exports
#     no dictionary calls) dict= is EOPNOTSUPP.
#  4. Parameters go with reset, and with a change of that algorithm.
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
P=$D/algorithm_params
TEXT=/tmp/ap-text	# 2 MiB of the kernel-style text below, 512 pages
DICT=${ZSTD_DICT:-/work/zstd.dict}	# scripts/vm-tests adds them there
DICT_TEXT=${DICT_TEXT:-/work/dict-text}

write_ok() {	# write_ok VALUE FILE
	{ echo "$1" >"$2"; } 2>/dev/null
}

# text_pages: $TEXT from $DICT_TEXT (whole pages), repeated to 2 MiB
text_pages() {
	[ -s "$DICT_TEXT" ] || return 1
	: >$TEXT
	while [ "$(stat -c %s $TEXT)" -lt 2097152 ]; do
		cat "$DICT_TEXT" >>$TEXT
	done
	truncate -s 2M $TEXT
}

# stored ALGO PARAMS...: compr_data_size of $TEXT with ALGO as primary and
# each PARAMS line written to algorithm_params; the text must read back
# stock_stored PARAMS: compr_data_size of the stock zram0 (6.12) with zstd
# and PARAMS in its algorithm_params after the text; empty if it cannot
stock_stored() {
	modprobe zram num_devices=1 2>/dev/null || return 1
	_s=/sys/block/zram0
	echo 1 >$_s/reset
	echo zstd >$_s/comp_algorithm && echo "$1" >$_s/algorithm_params &&
		echo 16M >$_s/disksize &&
		dd if=$TEXT of=/dev/zram0 bs=1M oflag=direct 2>/dev/null &&
		awk '{ print $2 }' $_s/mm_stat
	echo 1 >$_s/reset
	rmmod zram 2>/dev/null
	return 0
}

stored() {
	_algo=$1
	shift
	echo 1 >$D/reset
	echo "$_algo" >$D/comp_algorithm || return 1
	for _p in "$@"; do
		echo "$_p" >$P || return 1
	done
	echo 16M >$D/disksize || return 1
	dd if=$TEXT of=$B bs=1M oflag=direct 2>/dev/null || return 1
	dd if=$B bs=1M count=2 iflag=direct 2>/dev/null | cmp -s - $TEXT || {
		echo "# $_algo $*: the text read back wrong" >&2
		return 1
	}
	mm_stat zram_ng0 compr_data_size
}

ktap_header
ktap_plan 39

for m in lz4 lz4hc zstd; do modprobe $m 2>/dev/null; done
zram_ng_reload
text_pages || { ktap_print "no $DICT_TEXT"; exit 1; }
: >/tmp/ap-empty
head -c $((1024 * 1024 + 1)) /dev/zero >/tmp/ap-big
kver=$(uname -r)
case $kver in
6.1.*) dict_ok=0 ;;
*) dict_ok=1 ;;
esac

# --- 1. bad input (lz4 primary, zstd secondary at priority 1) ---
echo lz4 >$D/comp_algorithm
echo "algo=zstd priority=1" >$D/recomp_algorithm
while IFS='|' read -r errno value; do
	ktap_result "'$value': $errno" write_expect_errno "$errno" "$value" $P
done <<EOF2
EINVAL|bogus=1
EINVAL|level=1 level=2
EINVAL|level=abc
EINVAL|level=
EINVAL|level=-2147483648
EINVAL|priority=-1 level=1
EINVAL|priority=4 level=1
EINVAL|priority=2 level=1
EINVAL|algo=lz4hc level=5
EINVAL|algo=zstd priority=0 level=5
EINVAL|level=0
EINVAL|level=65538
EINVAL|algo=zstd level=23
EINVAL|algo=zstd level=-200000
EOPNOTSUPP|dict=$DICT
ENOENT|algo=zstd dict=/nonexistent
EINVAL|algo=zstd dict=/tmp/ap-empty
EFBIG|algo=zstd dict=/tmp/ap-big
EOF2
ktap_result "nothing was set: algorithm_params reads empty" assert_eq "" "$(cat $P)"
ktap_result "level=8 for the primary (lz4: acceleration 8)" write_ok "level=8" $P
ktap_result "... reads '#0: lz4 level=8'" assert_eq "#0: lz4 level=8" "$(cat $P)"
ktap_result "algo=zstd level=12 (priority 1)" write_ok "algo=zstd level=12" $P
ktap_result "... reads both" \
	assert_eq "#0: lz4 level=8 #1: zstd level=12" "$(cat $P | xargs)"
echo lzo >$D/comp_algorithm
ktap_result "another primary algorithm drops the primary's parameters" \
	assert_eq "#1: zstd level=12" "$(cat $P | xargs)"
ktap_result "lzo takes no level: EOPNOTSUPP" write_expect_errno EOPNOTSUPP level=1 $P
echo 16M >$D/disksize
ktap_result "after disksize: EBUSY" write_expect_errno EBUSY "algo=zstd level=3" $P
echo 1 >$D/reset
ktap_result "reset drops the parameters (and the secondary algorithm)" assert_eq "" "$(cat $P)"

# --- 2. levels ---
z1=$(stored zstd level=1) && z19=$(stored zstd level=19)
ktap_print "zstd: level 1 $z1 bytes, level 19 $z19 bytes"
ktap_result "zstd level 19 stores less than level 1" test "$z19" -lt "$z1"
h3=$(stored lz4hc level=3) && h12=$(stored lz4hc level=12)
ktap_print "lz4hc: level 3 $h3 bytes, level 12 $h12 bytes"
ktap_result "lz4hc level 12 stores less than level 3" test "$h12" -lt "$h3"
a1=$(stored lz4) && a64=$(stored lz4 level=64)
ktap_print "lz4: acceleration 1 $a1 bytes, 64 $a64 bytes"
ktap_result "lz4 acceleration 64 stores more than the default 1" test "$a64" -gt "$a1"
zd=$(stored zstd)
ktap_result "zstd without parameters: level 3, between 1 and 19" \
	test "$zd" -le "$z1" -a "$zd" -ge "$z19"

# --- 3. a dictionary ---
if [ $dict_ok = 1 ]; then
	zdict=$(stored zstd "dict=$DICT")
	ktap_print "zstd level 3: $zd bytes, with the dictionary $zdict bytes"
	ktap_result "with the dictionary: less memory, the text reads back" \
		test -n "$zdict" -a "${zdict:-0}" -lt "$zd"
	ktap_result "algorithm_params shows its size" \
		assert_eq "#0: zstd dict=$(stat -c %s $DICT)" "$(cat $P)"
	# the stock zram of 6.12 with the same dictionary and text: zstd's
	# parameters for a page and the dictionary, the same bytes (zram_ng's
	# were sized for the page alone and came out larger)
	zstock=$(stock_stored "level=3 dict=$DICT")
	ktap_result "the same bytes as the stock zram with the dictionary ($zstock)" \
		assert_eq "$zstock" "$zdict"
	zdl=$(stored zstd "level=9 dict=$DICT")
	ktap_result "level and dictionary together ($zdl bytes), the text reads back" \
		test -n "$zdl"
	# recompression to zstd with the dictionary
	echo 1 >$D/reset
	echo lz4 >$D/comp_algorithm
	echo "algo=zstd priority=1" >$D/recomp_algorithm
	echo "algo=zstd dict=$DICT" >$P
	echo 16M >$D/disksize
	dd if=$TEXT of=$B bs=1M oflag=direct 2>/dev/null
	echo all >$D/idle
	ktap_result "recompress to zstd with the dictionary" \
		write_ok "type=idle" $D/recompress
	ktap_result "... and the text reads back" \
		sh -c "dd if=$B bs=1M count=2 iflag=direct 2>/dev/null | cmp -s - $TEXT"
	ktap_result "the kernel log has no zstd error" \
		sh -c "! dmesg | grep -q 'decompression failed'"
else
	echo 1 >$D/reset
	echo zstd >$D/comp_algorithm
	ktap_result "6.1: zstd dict= is EOPNOTSUPP (no dictionary calls exported)" \
		write_expect_errno EOPNOTSUPP "dict=$DICT" $P
	ktap_result "... with a line in the kernel log" \
		sh -c "dmesg | tail -5 | grep -q 'algorithm_params: zstd takes no dictionary'"
	for i in 1 2 3 4 5; do ktap_result "6.1: dictionary case $i # SKIP 6.12 only" true; done
fi

# --- 4. a secondary algorithm's parameters go when it changes ---
echo 1 >$D/reset
echo "algo=zstd priority=1" >$D/recomp_algorithm
echo "priority=1 level=5" >$P
echo "algo=lz4hc priority=1" >$D/recomp_algorithm
ktap_result "another secondary algorithm at priority 1 drops its parameters" \
	assert_eq "" "$(cat $P)"
echo 1 >$D/reset
rm -f /tmp/ap-empty /tmp/ap-big $TEXT
ktap_finish
