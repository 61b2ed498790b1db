# SPDX-License-Identifier: GPL-2.0
#
# The generated half of test-hostile-input: N configurations of
# zram-ng-setup, each with one hostile line among valid ones, written as
# DIR/cNNNNN.conf, and a manifest on stdout, one line a configuration:
#
#   NAME LINE KEY EXPECT
#
# EXPECT is "refuse" (the parser must report FILE:LINE: KEY:), "tool"
# (the parser may take it, the tool's check of the directories must
# refuse it: links, writable directories in the scratch TREE) or "any"
# (it may be valid; what is accepted must still be a safe word).
#
#   awk -v n=10000 -v dir=DIR -v canary=DIR -v tree=DIR -f hostile-configs.awk
#   awk -v list=1 -v canary=DIR -f hostile-configs.awk    (the values alone)
#
# Deterministic (a fixed seed): a failure names a file that the next run
# makes again.

function add(v) { vals[++nv] = v }
function payload(i) { return "touch " canary "/p" i }
# refuse: a character no key accepts, a control character, too long
function verdict(v) {
	if (v ~ /[;&|$`'"<>\\?{}!#]/ || v ~ /\[/ || v ~ /\]/) return "refuse"
	if (v ~ /[\001-\010\012-\037\177]/) return "refuse"
	if (length(v) > 4096) return "refuse"
	return "any"
}

BEGIN {
	srand(34)
	nk = split("zram-size zram-resident-limit compression-algorithm allocator-policy " \
		"swap-priority fs-type mount-point options writeback-device bogus-key " \
		"idle-age recompress recompress-threshold writeback writeback-limit group-pages", keys, " ")
	nm = split("; & | $ ( ) ` ' \" < > * ? [ ] { } ~ # ! = , %", meta, " ")
	meta[++nm] = " "; meta[++nm] = "\t"
	# shell metacharacters, in the forms an injection takes
	for (i = 1; i <= nm; i++) {
		c = meta[i]
		add("nosuid" c payload(i) ";y=1")
		add(c payload(i))
		add("x" c "y")
		add("/data" c "cache")
		add("1" c "2")
		add("discard" c)
		add(c)
	}
	add("$(" payload(90) ")"); add("`" payload(91) "`"); add("${IFS}" payload(92))
	add("x;" payload(93) ">" canary "/q;y"); add("a|" payload(94)); add("a&&" payload(95))
	# backslash escapes, as echo, printf and /proc/mounts read them
	ne = split("\\0040 \\040 \\n \\t \\x41 \\\\ \\u0041 \\e[31m \\c \\ \\0 \\101", esc, " ")
	for (i = 1; i <= ne; i++) {
		add("nosuid" esc[i] "x;" payload(100 + i) ";y=1")
		add("/data" esc[i] "cache")
		add("zstd" esc[i])
		add(esc[i])
	}
	# globs
	ng = split("* ? [a-z] [lz4] /* /etc/* [!a] ** *.conf", glob, " ")
	for (i = 1; i <= ng; i++) { add(glob[i]); add("lz4" glob[i]); add("/mnt/" glob[i]) }
	# control characters (not NUL: a C string ends there; not the
	# newline: it ends the line)
	for (i = 1; i < 32; i++)
		if (i != 9 && i != 10) { add(sprintf("lz%c4", i)); add(sprintf("/mnt/a%cb", i)) }
	add(sprintf("lz4%c", 127)); add(sprintf("%c[31mred", 27))
	# very long values
	s = "a"; while (length(s) < 5000) s = s s
	add(s); add("/" s); add("/" substr(s, 1, 4000)); add(substr(s, 1, 200))
	s = "/x"; while (length(s) < 100000) s = s s
	add(s)
	# valid-looking values: taken or refused, never anything else
	nv0 = split("lz4 zstd 64 ram/2 min(ram,4096) -1 100 ext4 /mnt/zng discard discard=once " \
		"nosuid,nodev /mnt/zng/ /mnt//zng /mnt/./zng /mnt/../etc /etc /usr /usr/local " \
		"//proc /proc/. /proc /sys/kernel /dev/shm /boot /run /var /home /root /lib /bin " \
		"/ // /tmp /var/tmp /mnt/~x ratio exact legacy-groups 1G 1.5 0 size=50% " \
		"1h 90s 1h30min idle huge huge_idle 1G/day 512M/day none 2000 /dev/sda2 /dev/null " \
		"/dev/disk/by-partuuid/x /dev/shm/x /dev/../etc/passwd", ok, " ")
	for (i = 1; i <= nv0; i++) add(ok[i])
	# the tiers: compression-algorithm's lists, parameters, the pass
	add("lz4 zstd"); add("lz4 zstd(level=3) (type=idle)"); add("lz4 zstd lz4hc 842")
	add("lz4 zstd (type=idle,threshold=100)"); add("zstd(level=-1)")
	add("lz4 zstd(level=3,dict=/etc/shadow)"); add("lz4 (type=idle)"); add("lz4 zstd ((type=idle))")
	add("lz4 zstd (type=idle;" payload(120) ")"); add("lz4 zstd(level=$(" payload(121) "))")
	add("lz4 zstd (algo=zstd,priority=1)"); add("lz4 zstd(level=3")
	nvals = nv
	# -v list=1: the values only, one a line, for zramctl-ng's arguments
	if (list) { for (i = 1; i <= nvals; i++) print vals[i]; exit }

	# what each tier key needs beside it (after the hostile line)
	context["compression-algorithm"] = "idle-age = 1h\n"
	context["idle-age"] = "compression-algorithm = lz4 zstd (type=idle)\n"
	context["recompress"] = "compression-algorithm = lz4 zstd\nidle-age = 1h\n"
	context["recompress-threshold"] = "compression-algorithm = lz4 zstd\nrecompress = huge\n"
	context["writeback"] = "writeback-device = /dev/null\nidle-age = 1h\nwriteback-limit = 1G/day\n"
	context["writeback-limit"] = "writeback-device = /dev/null\nwriteback = huge\n"
	context["writeback-device"] = "writeback = huge\nwriteback-limit = 1G/day\n"
	context["group-pages"] = "idle-age = 1h\n"

	# paths in the scratch tree (test-hostile-input makes it): the tool
	# refuses all but ok/ (root's, 0755) and ww itself (a mount-point
	# may be world-writable: nothing can replace it)
	np = split("ww/x ww/x/y link link/x gw/x other/x ok/x/link", tp, " ")
	for (i = 1; i <= np; i++) { tpath[i] = tree "/" tp[i] }

	for (c = 1; c <= n; c++) {
		name = sprintf("c%05d", c)
		f = dir "/" name ".conf"
		kind = c % 23
		line = 4
		if (kind == 0) {
			# a path in the scratch tree
			v = tpath[int(c / 23) % np + 1]; key = "mount-point"; e = "tool"
			printf "[zram_ng0]\nzram-size = 64\nfs-type = ext4\nmount-point = %s\n", v >f
		} else if (kind == 1) {
			# a section twice, a key twice
			if (c % 2) {
				printf "[zram_ng0]\nzram-size = 64\n[zram_ng1]\n[zram_ng0]\n" >f
				key = "[zram_ng0]"
			} else {
				printf "[zram_ng0]\nzram-size = 64\ncompression-algorithm = lz4\ncompression-algorithm = zstd\n" >f
				key = "compression-algorithm"
			}
			e = "refuse"
		} else if (kind == 2) {
			# an ok path below the tree: taken
			v = tree "/ok/d" c; key = "mount-point"; e = "any"
			printf "[zram_ng0]\nzram-size = 64\nfs-type = ext4\nmount-point = %s\n", v >f
		} else {
			v = vals[int(rand() * nvals) + 1]
			key = keys[int(rand() * nk) + 1]
			# mostly the keys that reach a command line
			if (rand() < 0.4) key = rand() < 0.5 ? "options" : "mount-point"
			e = verdict(v)
			if (key == "bogus-key") e = "refuse"
			# a writeback device is in /dev
			if (key == "writeback-device" && v !~ /^\/dev\//) e = "refuse"
			fsline = key == "mount-point" || key == "options" && rand() < 0.5 ? "fs-type = ext4" : "# swap"
			if (key == "mount-point" || fsline == "fs-type = ext4") {
				printf "[zram_ng0]\nzram-size = 64\n%s\n%s = %s\n", fsline, key, v >f
				if (key != "mount-point") printf "mount-point = %s/ok/m%d\n", tree, c >f
			} else {
				printf "[zram_ng0]\nzram-size = 64\n# -\n%s = %s\n", key, v >f
				# the keys a tier key needs, so that a good value is taken
				if (key in context) printf "%s", context[key] >f
			}
		}
		printf "[zram_ng9]\nzram-size = 1\n" >f
		close(f)
		print name, line, key, e
	}
}
