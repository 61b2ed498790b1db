#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Growing chains (zsmalloc_ng's growing_chains): a size class takes short
# zspages (at most 4 pages) until it holds enough objects for long ones to
# pay. The default follows the kernel's own zsmalloc (compat/
# zsmalloc_chain.h): on before 6.3 (4-page chains), off since (8-page
# chains, zsmalloc_ng's fixed geometry). Either way small writes hold no
# more than the stock zram of the same kernel; with the chains on, a small
# write takes short zspages only and a large one about what fixed chains
# hold; the classes table shows each class's short length and where it
# turns long. least_waste_chains: a class's chain by 6.3's rule (the
# fewest bytes unused), on since 6.3 like the kernel's own zsmalloc: the
# 208-byte class takes 3 pages by it, 2 by 6.1's.
# vm-timeout: 180
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
PARAM=/sys/module/zsmalloc_ng/parameters/growing_chains
CLASSES=/sys/kernel/debug/zsmalloc_ng/zram_ng0/classes
LW=/sys/module/zsmalloc_ng/parameters/least_waste_chains

# write SIZE [DEV]: the same partly compressible data each time, on a
# fresh device (zram_ng0 or the stock zram0)
write() {
	_d=${2:-zram_ng0}
	echo 1 > $ZSYS/$_d/reset
	echo 64M > $ZSYS/$_d/disksize
	fio --name=geo --filename=/dev/$_d --rw=write --bs=4k --size="$1" \
		--direct=1 --buffer_compress_percentage=40 \
		--buffer_compress_chunk=512 --refill_buffers --randrepeat=1 \
		--output=/dev/null
	mm_stat $_d mem_used_total
}

# short_only: every class below its long_after holds only short zspages
short_only() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     $(c["obj_used"]) > 0 && $(c["obj_used"]) < $(c["long_after"]) &&
	     $(c["pages_used"]) % $(c["short_pages"]) != 0 { bad++ }
	     END { exit bad > 0 }' $CLASSES
}

# chain_of SIZE: pages per zspage of the class serving SIZE-byte slots
chain_of() {
	awk -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     $(c["size"]) >= s { print $(c["pages_per_zspage"]); exit }' $CLASSES
}

ktap_header
ktap_plan 10

zram_ng_reload auto_compact=0
default=$(cat $PARAM)
case $(uname -r) in
6.[0-2].* | 5.*) want=Y ;;
*) want=N ;;
esac
ktap_result "growing_chains defaults to $want on $(uname -r)" \
	test "$default" = "$want"

# The default against the stock zram of this kernel: 8 and 64 pages, a
# few objects in one or two classes
tiny_ng=$(write 32k)
small_ng=$(write 256k)
modprobe zram num_devices=1 || true
tiny_st=$(write 32k zram0)
small_st=$(write 256k zram0)
echo 1 > $ZSYS/zram0/reset
rmmod zram
ktap_print "default ($default): 32k $tiny_ng (stock $tiny_st), 256k $small_ng (stock $small_st)"
ktap_result "8 pages: no more than the stock zram" test "$tiny_ng" -le "$tiny_st"
ktap_result "64 pages: no more than the stock zram" test "$small_ng" -le "$small_st"

echo Y > $PARAM
echo 1 > $D/reset
echo 16M > $D/disksize
ktap_result "with growing_chains=Y the pool says so" \
	grep -q "growing_chains 1" /sys/kernel/debug/zsmalloc_ng/zram_ng0/stats
tiny_on=$(write 32k)
ktap_result "a small write takes short zspages only" short_only
big_on=$(write 16M)
echo N > $PARAM
tiny_off=$(write 32k)
big_off=$(write 16M)
echo "$default" > $PARAM
ktap_print "growing: 32k $tiny_on (fixed chains $tiny_off), 16M $big_on ($big_off)"
# the short zspages before each class turns long: at most 2% more
ktap_result "growing: a large write holds at most 2% more than fixed chains" \
	test $((big_on * 100)) -le $((big_off * 102))
ktap_result "the data reads back" \
	fio --name=geo --filename=$B --rw=write --bs=4k --size=1M --direct=1 \
		--buffer_compress_percentage=40 --verify=crc32c --output=/dev/null
echo 1 > $D/reset

lw_default=$(cat $LW)
case $(uname -r) in
6.[0-2].* | 5.*) want=N ;;
*) want=Y ;;
esac
ktap_result "least_waste_chains defaults to $want on $(uname -r)" \
	test "$lw_default" = "$want"
echo Y > $LW
echo 16M > $D/disksize
lw_on=$(chain_of 208)
grep -q "least_waste_chains 1" /sys/kernel/debug/zsmalloc_ng/zram_ng0/stats
said=$?
echo 1 > $D/reset
echo N > $LW
echo 16M > $D/disksize
lw_off=$(chain_of 208)
echo 1 > $D/reset
echo "$lw_default" > $LW
ktap_print "the 208-byte class: $lw_on pages by 6.3's rule, $lw_off by 6.1's"
ktap_result "with least_waste_chains=Y the pool says so" test $said -eq 0
ktap_result "the 208-byte class: 3 pages by the fewest bytes, 2 by the percentage" \
	test "$lw_on" = 3 -a "$lw_off" = 2
ktap_finish
