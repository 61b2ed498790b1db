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
# when it was not, for the messages of the checks against the kernel),
# followed, when the device has a writeback device, secondary algorithms
# or a maintenance policy, by its tiers line,
#   tiers zram_ngN backing=DEV recomp=A,B levels=PRIO:LEVEL,...
#           idle=SECONDS recompress=KEY=VALUE,... writeback=TYPE
#           budget=PAGES|none group=PAGES backing@=LINE recomp@=LINE
#           idle@=LINE recompress@=LINE writeback@=LINE budget@=LINE
#           group@=LINE
# (recomp: the secondary algorithms by priority; levels: algorithm_params'
# levels by priority, 0 the primary; recompress: the recompress pass's
# arguments, comma-separated; budget: writeback's daily budget in 4 KiB
# pages; group: the pages a group of the grouping pass holds), a line "skip zram_ngN LINE" for a device whose zram-size is 0
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

# compression-algorithm, as zram-generator writes it: the primary
# algorithm, then the secondary ones (recomp_algorithm's priorities 1 to
# 3, in that order), each NAME or NAME(KEY=VALUE,...), and last,
# optionally, a list without a name: the arguments of the recompress pass
# ("lz4 zstd(level=3) (type=idle)"). Sets the section's primary, "recomp",
# "levels" and "pass"; reports the first error of the value and returns 0.
function algorithms(line, key, value,   n, w, i, name, params, nsec, recomp, levels, pass) {
	n = split(value, w, /[ \t]+/)
	nsec = 0; recomp = ""; levels = ""; pass = ""
	for (i = 1; i <= n; i++) {
		if (w[i] ~ /^\(/) {
			if (w[i] !~ /^\([^()]*\)$/)
				return alg_error(line, key, "\"" w[i] "\": parameters are written (KEY=VALUE,...), without spaces")
			if (i == 1)
				return alg_error(line, key, "\"" w[i] "\": the primary algorithm comes first (compression-algorithm = lz4 zstd " w[i] ")")
			if (i < n)
				return alg_error(line, key, "\"" w[i] "\": the recompression pass's parameters come last")
			if (nsec == 0)
				return alg_error(line, key, "\"" w[i] "\": a recompression pass needs a secondary algorithm (compression-algorithm = " w[1] " zstd " w[i] ")")
			pass = passargs(line, key, substr(w[i], 2, length(w[i]) - 2), nsec, recomp)
			if (pass == "") return 0
			continue
		}
		if (w[i] !~ /^[a-z0-9][a-z0-9-]*(\([^()]*\))?$/) {
			if (w[i] ~ /^[a-z0-9][a-z0-9-]*\(/)
				return alg_error(line, key, "\"" w[i] "\": parameters are written NAME(KEY=VALUE,...), without spaces")
			return alg_error(line, key, "\"" w[i] "\" is not an algorithm name")
		}
		name = w[i]; params = ""
		if (index(name, "(")) {
			params = substr(name, index(name, "(") + 1)
			params = substr(params, 1, length(params) - 1)
			name = substr(name, 1, index(name, "(") - 1)
		}
		if (i > 1) {
			if (++nsec > 3)
				return alg_error(line, key, "\"" value "\": at most three secondary algorithms (recomp_algorithm's priorities 1 to 3)")
			recomp = recomp (recomp == "" ? "" : ",") name
		}
		if (index(w[i], "(")) {
			params = level(line, key, w[i], params)
			if (params == "") return 0
			levels = levels (levels == "" ? "" : ",") (i - 1) ":" params
		}
	}
	setkey(key, w[1] ~ /\(/ ? substr(w[1], 1, index(w[1], "(") - 1) : w[1])
	if (recomp != "") setkey("recomp", recomp)
	if (levels != "") setkey("levels", levels)
	if (pass != "") setkey("pass", pass)
	return 1
}
function alg_error(line, key, msg) { error(line, key, msg); return 0 }

# level(line, key, word, params): an algorithm's parameters, as
# algorithm_params takes them: level=N only (zstd's levels go below 0);
# the level, or "" after reporting an error
function level(line, key, word, params,   n, kv, i, k, v, lv) {
	if (params == "") { error(line, key, "\"" word "\": no parameters between the parentheses"); return "" }
	n = split(params, kv, ",")
	lv = ""
	for (i = 1; i <= n; i++) {
		k = index(kv[i], "=") ? substr(kv[i], 1, index(kv[i], "=") - 1) : kv[i]
		v = substr(kv[i], length(k) + 2)
		if (k != "level") {
			error(line, key, "\"" word "\": \"" k "\" is not an algorithm parameter zram-ng-setup takes (level=N)")
			return ""
		}
		if (lv != "") { error(line, key, "\"" word "\": level is given twice"); return "" }
		if (v !~ /^-?[0-9]+$/ || length(v) > 8) {
			error(line, key, "\"" word "\": level \"" v "\" is not a whole number")
			return ""
		}
		lv = v + 0
	}
	return lv ""
}

# passargs(line, key, params, nsec, recomp): the recompress pass's
# arguments, checked as the driver reads them (type, threshold,
# max_pages, algo or priority), comma-separated; "" after an error
function passargs(line, key, params, nsec, recomp,   n, kv, i, k, v, out, got) {
	if (params == "") { error(line, key, "\"()\": no parameters between the parentheses"); return "" }
	n = split(params, kv, ",")
	out = ""; split("", got)
	for (i = 1; i <= n; i++) {
		k = index(kv[i], "=") ? substr(kv[i], 1, index(kv[i], "=") - 1) : kv[i]
		v = substr(kv[i], length(k) + 2)
		if (k == "" || index(kv[i], "=") == 0 || v == "") {
			error(line, key, "\"(" params ")\": \"" kv[i] "\" is not KEY=VALUE"); return ""
		}
		if (k in got) { error(line, key, "\"(" params ")\": " k " is given twice"); return "" }
		got[k] = 1
		if (k == "type") {
			if (v != "idle" && v != "huge" && v != "huge_idle") {
				error(line, key, "\"(" params ")\": type \"" v "\": idle, huge or huge_idle"); return ""
			}
		} else if (k == "threshold") {
			if (v !~ /^[0-9]+$/ || v + 0 < 1 || v + 0 > 4095) {
				error(line, key, "\"(" params ")\": threshold \"" v "\" is not a number of bytes from 1 to 4095"); return ""
			}
			v = v + 0
		} else if (k == "max_pages") {
			if (v !~ /^[0-9]+$/ || v + 0 < 1 || length(v) > 15) {
				error(line, key, "\"(" params ")\": max_pages \"" v "\" is not a number of pages from 1"); return ""
			}
			v = v + 0
		} else if (k == "priority") {
			if (v !~ /^[1-3]$/ || v + 0 > nsec) {
				error(line, key, "\"(" params ")\": priority \"" v "\": there " (nsec == 1 ? "is 1 secondary algorithm" : "are " nsec " secondary algorithms")); return ""
			}
		} else if (k == "algo") {
			if (index("," recomp ",", "," v ",") == 0) {
				error(line, key, "\"(" params ")\": algo \"" v "\" is not one of the secondary algorithms (" recomp ")"); return ""
			}
		} else {
			error(line, key, "\"(" params ")\": \"" k "\" is not an argument of recompress (type, threshold, max_pages, algo, priority)")
			return ""
		}
		out = out (out == "" ? "" : ",") k "=" v
	}
	if (("algo" in got) && ("priority" in got)) {
		error(line, key, "\"(" params ")\": algo and priority exclude each other"); return ""
	}
	return out
}

# duration(text): seconds, as systemd writes time spans ("90", "90s",
# "30min", "1h 30min", "2d"), or -1
function duration(text,   t, n, u, total, mult) {
	t = text; gsub(/[ \t]+/, "", t)
	if (t == "") return -1
	total = 0
	while (t != "") {
		if (!match(t, /^[0-9]+/)) return -1
		n = substr(t, 1, RLENGTH) + 0; t = substr(t, RLENGTH + 1)
		match(t, /^[a-z]*/); u = substr(t, 1, RLENGTH); t = substr(t, RLENGTH + 1)
		if (u in DURATION_UNIT) mult = DURATION_UNIT[u]
		else return -1
		total += n * mult
	}
	return total
}

# daily(text): writeback-limit's "SIZE/day" in 4 KiB pages (rounded down),
# "none", or -1 (not that form) or -2 (less than a page)
function daily(text,   t, n, u, m, b) {
	if (text == "none") return "none"
	t = text; gsub(/[ \t]+/, "", t)
	if (t !~ /^[0-9]+(\.[0-9]+)?[KMGTkmgt](iB)?\/day$/) return -1
	sub(/\/day$/, "", t)
	match(t, /[KMGTkmgt]/)
	n = substr(t, 1, RSTART - 1) + 0
	u = index("KMGT", toupper(substr(t, RSTART, 1)))
	b = n
	for (m = 0; m < u; m++) b *= 1024
	if (b > 9007199254740992) return -1
	b = int(b / 4096)
	return b < 1 ? -2 : sprintf("%.0f", b)
}

# A writeback device's problem, or "": a canonical path in /dev (what is
# there, and what a link there points to, is the tool's check: it needs
# the file system)
function device_problem(p,   n, c, i) {
	if (p ~ /[ \t]/) return "\"" p "\": white space in a path is not supported"
	if (p ~ /[^A-Za-z0-9._\/+@:,=~-]/)
		return "\"" p "\": a device is written with letters, digits and . _ / + @ : , = ~ - only"
	if (index(p, DEVDIR "/") != 1 || p == DEVDIR "/")
		return "\"" p "\" is not in " DEVDIR ": give the block device (" DEVDIR "/sdb2, " DEVDIR "/disk/by-partuuid/...)"
	n = split(substr(p, 2), c, "/")
	for (i = 1; i <= n; i++)
		if (c[i] == "" || c[i] == "." || c[i] == "..")
			return "\"" p "\" is not canonical (no //, /./, /../ or trailing /): write the path it means"
	return ""
}

# The checks that need the whole section, then its plan line.
function endsection(   fs, mnt, line, b, opts, n, i, o, pass) {
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
	pass = tiers()
	if (bad) return
	if (b == 0) { printf "skip %s %d\n", sec, line; return }
	printf "%s size=%.0f limit=%.0f algorithm=%s policy=%s fs=%s mount=%s priority=%s options=%s", \
		sec, b, lim, get("compression-algorithm"), get("allocator-policy"), fs, mnt,
		fs == "swap" ? ((sec, "swap-priority") in val ? val[sec, "swap-priority"] : 100) : "-", opts
	printf " algorithm@=%d policy@=%d fs@=%d mount@=%d\n", \
		at[sec, "compression-algorithm"], at[sec, "allocator-policy"], at[sec, "fs-type"], at[sec, "mount-point"]
	if (get("writeback-device") get("recomp") get("levels") get("idle-age") pass get("writeback") get("group-pages") == "-------")
		return
	printf "tiers %s backing=%s recomp=%s levels=%s idle=%s recompress=%s writeback=%s budget=%s group=%s", \
		sec, get("writeback-device"), get("recomp"), get("levels"), get("idle-age"), pass,
		get("writeback"), get("writeback") == "-" ? "-" : get("writeback-limit"), get("group-pages")
	printf " backing@=%d recomp@=%d idle@=%d recompress@=%d writeback@=%d budget@=%d group@=%d\n", \
		line_of("writeback-device"), line_of("compression-algorithm"), line_of("idle-age"),
		line_of((sec, "pass") in val ? "compression-algorithm" : "recompress"),
		line_of("writeback"), line_of("writeback-limit"), line_of("group-pages")
}
function get(key) { return (sec, key) in val ? val[sec, key] : "-" }
# refused(key): the key was given, and refused (its error is out already:
# what depends on it is not reported again)
function refused(key) { return (sec, key) in at && !((sec, key) in val) }
# line_of(key): the key's line, 0 when not given (at[] is not touched:
# reading an element would make it)
function line_of(key) { return (sec, key) in at ? at[sec, key] : 0 }

# The maintenance policy's keys together: what needs what. The recompress
# pass's arguments ("-" for none), from compression-algorithm's "(...)"
# or the recompress keys (one or the other).
function tiers(   pass, pl, pk, ca) {
	ca = line_of("compression-algorithm")
	if ((sec, "pass") in val) {
		if ((sec, "recompress") in at)
			error(at[sec, "recompress"], "recompress", "the recompression pass is given already by compression-algorithm's parameters (line " ca "): one or the other")
		if ((sec, "recompress-threshold") in at)
			error(at[sec, "recompress-threshold"], "recompress-threshold", "the recompression pass is given already by compression-algorithm's parameters (line " ca "): one or the other")
		pass = val[sec, "pass"]; pl = ca; pk = "compression-algorithm"
	} else if ((sec, "recompress") in val) {
		pass = "type=" val[sec, "recompress"]
		if ((sec, "recompress-threshold") in val) pass = pass ",threshold=" val[sec, "recompress-threshold"]
		pl = line_of("recompress"); pk = "recompress"
		if (!((sec, "recomp") in val) && !refused("compression-algorithm"))
			error(pl, pk, "needs a secondary algorithm to recompress with (compression-algorithm = lz4 zstd)")
	} else pass = "-"
	if ((sec, "recompress-threshold") in val && !((sec, "recompress") in at) && !((sec, "pass") in val))
		error(at[sec, "recompress-threshold"], "recompress-threshold", "only with recompress = idle, huge or huge_idle")
	if (pass ~ /(^|,)type=(huge_)?idle(,|$)/ && !((sec, "idle-age") in at))
		error(pl, pk, "idle pages need an idle-age (idle-age = 1h)")
	if ((sec, "group-pages") in val && !((sec, "idle-age") in at))
		error(at[sec, "group-pages"], "group-pages", "groups idle pages: needs an idle-age (idle-age = 1h)")
	if ((sec, "writeback") in at) {
		pl = line_of("writeback")
		if (!((sec, "writeback-device") in at))
			error(pl, "writeback", "needs a writeback-device")
		if (get("writeback") ~ /idle/ && !((sec, "idle-age") in at))
			error(pl, "writeback", "idle pages need an idle-age (idle-age = 1h)")
		if (!((sec, "writeback-limit") in at))
			error(pl, "writeback", "needs a daily budget, against flash wear: writeback-limit = SIZE/day (or none)")
	} else if ((sec, "writeback-limit") in val)
		error(at[sec, "writeback-limit"], "writeback-limit", "only with writeback = idle, huge or huge_idle")
	return pass
}

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
	# (zram_ng/zram_ng.h), as zram-ng-setup read it from the module
	# (zng_max_devices); when no module says (none installed), the
	# kernel's hot_add is the only limit
	MAXDEV = ENVIRON["ZNG_MAXDEV"]
	# Not mounted over: these, and anything below the ones in SYSTEM_TREE
	# (zram_ng.conf(5) and the admin guide list them)
	split("/bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /opt /proc /root /run /sbin /srv /sys /usr /var", l, " ")
	for (i in l) SYSTEM_DIR[l[i]] = 1
	split("/boot /dev /etc /proc /sys /usr", l, " ")
	for (i in l) SYSTEM_TREE[l[i]] = 1
	# Where writeback devices are (the tests move it)
	DEVDIR = ENVIRON["ZNG_DEVDIR"] != "" ? ENVIRON["ZNG_DEVDIR"] : "/dev"
	# idle-age's units, as systemd.time(7) writes time spans
	# (a number alone is seconds)
	n = split("1 s sec second seconds|60 m min minute minutes|3600 h hr hour hours|" \
		"86400 d day days|604800 w week weeks", l, "|")
	for (i = 1; i <= n; i++) {
		split(l[i], u, " ")
		for (j = 2; j in u; j++) DURATION_UNIT[u[j]] = u[1]
	}
	DURATION_UNIT[""] = 1
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
		} else if (MAXDEV ~ /^[0-9]+$/ && substr(name, 8) + 0 >= MAXDEV + 0) {
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
		algorithms(FNR, key, value)
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
		if ((msg = device_problem(value)) != "") error(FNR, key, msg)
		else if (value in backing)
			error(FNR, key, value " is also the writeback-device of line " backing[value])
		else {
			backing[value] = FNR
			setkey(key, value)
		}
	} else if (key == "idle-age") {
		if ((v = duration(value)) < 0)
			error(FNR, key, "\"" value "\" is not a duration (3600, 90s, 30min, 1h, 1d, 1h 30min)")
		else if (v < 1) error(FNR, key, "\"" value "\": an age of at least 1s")
		else if (v > 4294967295) error(FNR, key, "\"" value "\": at most 4294967295 s (136 years)")
		else setkey(key, sprintf("%.0f", v))
	} else if (key == "recompress" || key == "writeback") {
		if (value != "idle" && value != "huge" && value != "huge_idle")
			error(FNR, key, "\"" value "\": idle, huge or huge_idle")
		else setkey(key, value)
	} else if (key == "group-pages") {
		if (value !~ /^[0-9]+$/ || value + 0 < 2 || value + 0 > 16)
			error(FNR, key, "\"" value "\" is not a number of pages from 2 to 16")
		else setkey(key, value + 0)
	} else if (key == "recompress-threshold") {
		if (value !~ /^[0-9]+$/ || value + 0 < 1 || value + 0 > 4095)
			error(FNR, key, "\"" value "\" is not a number of bytes from 1 to 4095")
		else setkey(key, value + 0)
	} else if (key == "writeback-limit") {
		if ((v = daily(value)) == -1)
			error(FNR, key, "\"" value "\" is not a daily budget (SIZE/day with K, M, G or T: 1G/day; or none)")
		else if (v == -2) error(FNR, key, "\"" value "\": less than a 4 KiB page a day")
		else setkey(key, v)
	} else if (key == "host-memory-limit" || key == "zram-fraction" || key == "max-zram-size") {
		error(FNR, key, "zram-generator's old key is not supported: write a zram-size expression")
	} else {
		error(FNR, key, "unknown key")
	}
}
END { endsection() }
