# SPDX-License-Identifier: GPL-2.0
#
# zram-ng-setup's configuration parser: /etc/zram_ng.conf (zram_ng.conf(5))
# in, the plan out; installed as /usr/lib/zram-ng/parse-conf.awk. Runs on
# its own, as the tests run it:
#
#   awk -v file=FILE -v ram=MIB -f parse-conf.awk FILE
#
# Output: one line per device, in the file's order,
#   zram_ngN size=BYTES limit=BYTES algorithm=A policy=P fs=T mount=DIR
#           priority=N options=O algorithm@=LINE policy@=LINE fs@=LINE
#           mount@=LINE
# ("-" for what is left to the driver, KEY@=LINE where each key was set, 0
# when it was not, for the messages of the checks against the kernel), a
# line "skip zram_ngN LINE" for a device whose zram-size is 0
# (zram-generator creates none), or lines "error FILE:LINE: KEY: MESSAGE".
# Every error in the file is reported, not only the first.
#
# The plan is read by a shell running as root: a value that reaches it is
# one word of characters that mean nothing to a shell's reading of words
# (no white space, backslash, control character or newline: refused
# here, each with its FILE:LINE), and the tool never evaluates it. What
# can be represented is all that is accepted: a mount-point is canonical
# (no //, /./, /../, no trailing /) and not a system directory; whether
# its directories are safe is the tool's check (it needs the file system).

function error(line, key, msg) {
	printf "error %s:%d: %s%s\n", file, line, key == "" ? "" : key ": ", msg
	bad = 1
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# Size expressions, as zram-generator: MiB, "ram" is MemTotal in MiB;
# + - * / ( ) min(a, b...) max(a, b...). Recursive descent over tok[].
function lex(s,   c) {
	ntok = 0
	while (s != "") {
		c = substr(s, 1, 1)
		if (c == " " || c == "\t") { s = substr(s, 2); continue }
		if (match(s, /^[0-9]*\.?[0-9]+/) || match(s, /^[0-9]+\.?/)) {
			tok[++ntok] = substr(s, 1, RLENGTH); kind[ntok] = "n"
		} else if (match(s, /^[A-Za-z_]+/)) {
			tok[++ntok] = substr(s, 1, RLENGTH); kind[ntok] = "w"
		} else if (index("+-*/(),", c)) {
			tok[++ntok] = c; kind[ntok] = c; RLENGTH = 1
		} else {
			experr = "unexpected \"" c "\""; return 0
		}
		s = substr(s, RLENGTH + 1)
	}
	return 1
}
function peek() { return pos <= ntok ? kind[pos] : "end" }
function fail(msg) { if (experr == "") experr = msg; return 0 }
function expr(   v) {
	v = term()
	while (peek() == "+" || peek() == "-")
		v = tok[pos++] == "+" ? v + term() : v - term()
	return v
}
function term(   v, op, r) {
	v = unary()
	while (peek() == "*" || peek() == "/") {
		op = tok[pos++]; r = unary()
		if (op == "*") v *= r
		else if (r == 0) return fail("division by zero")
		else v /= r
	}
	return v
}
function unary() {
	if (peek() == "-") { pos++; return -unary() }
	if (peek() == "+") { pos++; return unary() }
	return primary()
}
function primary(   v, name, r) {
	if (peek() == "n") return tok[pos++] + 0
	if (peek() == "(") {
		pos++; v = expr()
		if (peek() != ")") return fail("missing \")\"")
		pos++; return v
	}
	if (peek() == "w") {
		name = tok[pos++]
		if (name == "ram") return ram
		if (name != "min" && name != "max")
			return fail("unknown name \"" name "\" (ram, min, max)")
		if (peek() != "(") return fail(name " wants \"(\"")
		pos++; v = expr()
		while (peek() == ",") {
			pos++; r = expr()
			if ((name == "min" && r < v) || (name == "max" && r > v)) v = r
		}
		if (peek() != ")") return fail("missing \")\" after " name "(...")
		pos++; return v
	}
	if (peek() == "end") return fail("ends too early")
	return fail("unexpected \"" tok[pos] "\"")
}
# size(line, key, text): bytes, or -1 after reporting the error
function size(line, key, text,   v) {
	experr = ""; pos = 1
	if (!lex(text)) { error(line, key, experr " in \"" text "\""); return -1 }
	v = expr()
	if (experr == "" && pos <= ntok) {
		if (kind[pos] == "w" && pos > 1 && kind[pos - 1] == "n")
			experr = "\"" tok[pos - 1] tok[pos] "\": a size is a number of MiB, without a unit,"
		else
			experr = "unexpected \"" tok[pos] "\""
	}
	if (experr != "") { error(line, key, experr " in \"" text "\""); return -1 }
	if (v < 0) { error(line, key, "\"" text "\" is negative (" v " MiB)"); return -1 }
	return int(v * 1048576)
}

function setkey(key, value) { val[sec, key] = value }

# The checks that need the whole section, then its plan line.
function endsection(   fs, mnt, line, b, opts, n, i, o) {
	if (sec == "" || secbad) return
	line = secline[sec]
	b = size(at[sec, "zram-size"] ? at[sec, "zram-size"] : line, "zram-size",
		(sec, "zram-size") in val ? val[sec, "zram-size"] : "min(ram / 2, 4096)")
	lim = (sec, "zram-resident-limit") in val ? \
		size(at[sec, "zram-resident-limit"], "zram-resident-limit", val[sec, "zram-resident-limit"]) : 0
	mnt = (sec, "mount-point") in val ? val[sec, "mount-point"] : "-"
	fs = (sec, "fs-type") in val ? val[sec, "fs-type"] : (mnt == "-" ? "swap" : "ext2")
	if (fs == "swap" && mnt != "-")
		error(at[sec, "mount-point"], "mount-point", "a swap device is not mounted (fs-type is swap)")
	if (fs != "swap" && mnt == "-")
		error(at[sec, "fs-type"], "fs-type", fs " needs a mount-point")
	if (fs != "swap" && (sec, "swap-priority") in val)
		error(at[sec, "swap-priority"], "swap-priority", "only for swap (this device is mounted on " mnt ")")
	if (mnt != "-") {
		if (mnt in mounted)
			error(at[sec, "mount-point"], "mount-point", mnt " is also the mount-point of line " mounted[mnt])
		mounted[mnt] = at[sec, "mount-point"]
	}
	opts = (sec, "options") in val ? val[sec, "options"] : "discard"
	if (fs == "swap") {
		n = split(opts, o, ",")
		for (i = 1; i <= n; i++)
			if (o[i] !~ /^discard(=(once|pages))?$/)
				error(at[sec, "options"], "options", "\"" o[i] "\": swap takes only discard, discard=once, discard=pages")
	}
	if (bad) return
	if (b == 0) { printf "skip %s %d\n", sec, line; return }
	printf "%s size=%.0f limit=%.0f algorithm=%s policy=%s fs=%s mount=%s priority=%s options=%s", \
		sec, b, lim, get("compression-algorithm"), get("allocator-policy"), fs, mnt,
		fs == "swap" ? ((sec, "swap-priority") in val ? val[sec, "swap-priority"] : 100) : "-", opts
	printf " algorithm@=%d policy@=%d fs@=%d mount@=%d\n", \
		at[sec, "compression-algorithm"], at[sec, "allocator-policy"], at[sec, "fs-type"], at[sec, "mount-point"]
}
function get(key) { return (sec, key) in val ? val[sec, key] : "-" }

# The key of a line, when it is one that can be shown
function safekey(l,   k) {
	k = index(l, "=") ? trim(substr(l, 1, index(l, "=") - 1)) : ""
	return k ~ /^[a-z][a-z-]*$/ ? k : ""
}

# A mount-point's problem, or "": canonical, absolute, not on a system
# directory (the kernel's file systems, and what the system itself lives
# on: mounting over it hides it, and at boot, as root).
function mountpoint_problem(p,   n, c, i, top) {
	if (p !~ /^\//) return "\"" p "\" is not an absolute path"
	if (p ~ /[ \t]/) return "\"" p "\": white space in a path is not supported"
	if (p ~ /[^A-Za-z0-9._\/+@:,=~-]/)
		return "\"" p "\": a mount-point is written with letters, digits and . _ / + @ : , = ~ - only"
	while (p ~ /.\/$/) sub(/\/$/, "", p)
	if (p == "/") return "not on /"
	n = split(substr(p, 2), c, "/")
	for (i = 1; i <= n; i++)
		if (c[i] == "" || c[i] == "." || c[i] == "..")
			return "\"" p "\" is not canonical (no //, /./ or /../): write the path it means"
	top = "/" c[1]
	if ((n == 1 && (top in SYSTEM_DIR)) || (top in SYSTEM_TREE))
		return p " is a system directory: not mounted over (zram_ng.conf(5))"
	return ""
}

BEGIN {
	sec = ""; bad = 0
	# (zram-ng-setup passes the file name in the environment: awk would
	# read escapes in a -v value)
	if (file == "") file = ENVIRON["ZNG_CONF"]
	# PATH_MAX: no line of a valid file is longer
	MAXLINE = 4096
	# zram_ng's device numbers, 0 to ZRAM_NG_MAX_DEVICES - 1
	# (zram_ng/main.c)
	MAXDEV = 1024
	# Not mounted over: these, and anything below the ones in SYSTEM_TREE
	# (zram_ng.conf(5) and the admin guide list them)
	split("/bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /opt /proc /root /run /sbin /srv /sys /usr /var", l, " ")
	for (i in l) SYSTEM_DIR[l[i]] = 1
	split("/boot /dev /etc /proc /sys /usr", l, " ")
	for (i in l) SYSTEM_TREE[l[i]] = 1
}
{
	sub(/\r$/, "")
	line = trim($0)
	if (line == "" || line ~ /^[#;]/) next
	# Control characters (tab is white space) are never shown: the
	# message would not be what the file holds.
	if (line ~ /[\001-\010\012-\037\177]/) {
		error(FNR, safekey(line), "a control character: not accepted (the line is not shown)")
		next
	}
	if (length(line) > MAXLINE) {
		error(FNR, safekey(line), "longer than " MAXLINE " characters: not accepted")
		next
	}
	if (line ~ /\\/) {
		error(FNR, safekey(line), "\"" (safekey(line) == "" ? line : \
			trim(substr(line, index(line, "=") + 1))) "\": a backslash is not accepted (this file has no escapes)")
		next
	}
	if (line ~ /^\[.*\]$/) {
		endsection()
		name = trim(substr(line, 2, length(line) - 2))
		sec = name; secbad = 0
		if (name ~ /^zram[0-9]+$/) {
			error(FNR, "", "[" name "]: this file configures zram_ng devices: [zram_ng" substr(name, 5) "]")
			secbad = 1
		} else if (name !~ /^zram_ng(0|[1-9][0-9]*)$/) {
			error(FNR, "", "[" name "]: not a device section ([zram_ng0], [zram_ng1] ...)")
			secbad = 1
		} else if (substr(name, 8) + 0 >= MAXDEV) {
			error(FNR, "", "[" name "]: zram_ng has devices zram_ng0 to zram_ng" MAXDEV - 1)
			secbad = 1
		} else if (name in seen) {
			error(FNR, "", "[" name "] again (first at line " seen[name] ")")
			secbad = 1
		} else {
			seen[name] = FNR
			secline[sec] = FNR
		}
		next
	}
	eq = index(line, "=")
	if (eq == 0) { error(FNR, "", "not \"key = value\", a [section] or a comment: \"" line "\""); next }
	key = trim(substr(line, 1, eq - 1))
	value = trim(substr(line, eq + 1))
	if (sec == "") { error(FNR, key, "outside a section (start with [zram_ng0])"); next }
	if (secbad) next
	if ((sec, key) in at) { error(FNR, key, "set twice in [" sec "] (first at line " at[sec, key] ")"); next }
	at[sec, key] = FNR
	if (value == "") { error(FNR, key, "no value"); next }

	if (key == "zram-size" || key == "zram-resident-limit") {
		if (size(FNR, key, value) >= 0) setkey(key, value)
	} else if (key == "compression-algorithm") {
		if (value ~ /[ \t(]/)
			error(FNR, key, "\"" value "\": zram_ng has no recompression yet: one algorithm")
		else if (value !~ /^[a-z0-9][a-z0-9-]*$/)
			error(FNR, key, "\"" value "\" is not an algorithm name")
		else setkey(key, value)
	} else if (key == "allocator-policy") {
		if (value !~ /^[a-z][a-z0-9-]*$/) error(FNR, key, "\"" value "\" is not a policy name")
		else setkey(key, value)
	} else if (key == "swap-priority") {
		if (value !~ /^-?[0-9]+$/ || value + 0 < -1 || value + 0 > 32767)
			error(FNR, key, "\"" value "\" is not a number from -1 to 32767")
		else setkey(key, value + 0)
	} else if (key == "fs-type") {
		if (value !~ /^[a-z0-9][a-z0-9.]*$/) error(FNR, key, "\"" value "\" is not a file system type")
		else setkey(key, value)
	} else if (key == "mount-point") {
		if ((msg = mountpoint_problem(value)) != "") error(FNR, key, msg)
		else {
			while (value ~ /.\/$/) sub(/\/$/, "", value)
			setkey(key, value)
		}
	} else if (key == "options") {
		if (value ~ /[ \t]/) error(FNR, key, "\"" value "\": a comma-separated list, no spaces")
		else if (value ~ /[^A-Za-z0-9_.,:=+%\/@-]/)
			error(FNR, key, "\"" value "\": mount options are written with letters, digits and _ . , : = + % / @ - only")
		else setkey(key, value)
	} else if (key == "writeback-device") {
		error(FNR, key, "not supported: zram_ng has no writeback yet (remove the key)")
	} else if (key == "host-memory-limit" || key == "zram-fraction" || key == "max-zram-size") {
		error(FNR, key, "zram-generator's old key is not supported: write a zram-size expression")
	} else {
		error(FNR, key, "unknown key")
	}
}
END { endsection() }
