# A configuration with an error, for the next boot.
. /host/lib.sh
cat >/etc/zram_ng.conf <<'CONF'
[zram_ng0]
zram-size = 256
compresion-algorithm = lz4
CONF
check "zram-ng-setup print names file, line and key" \
	"zram-ng-setup: /etc/zram_ng.conf:3: compresion-algorithm: unknown key" \
	"$(zram-ng-setup print 2>&1 | head -n 1)"
tap_done broken-config
