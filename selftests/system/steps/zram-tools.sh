# Beside Debian's zram-tools (zramswap.service, /etc/default/zramswap).
. /host/lib.sh
check_cmd "apt install zram-tools" apt_get install zram-tools
cat >/etc/default/zramswap <<'CONF'
ALGO=lz4
SIZE=128
PRIORITY=50
CONF
check_cmd "systemctl enable zramswap.service" systemctl enable zramswap.service
tap_done zram-tools
