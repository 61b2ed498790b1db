# Beside the distribution's zram-generator: it sets up /dev/zram0 from its
# own configuration, we set up /dev/zram_ng0 from ours.
. /host/lib.sh
check_cmd "apt install systemd-zram-generator" apt_get install systemd-zram-generator
cat >/etc/systemd/zram-generator.conf <<'CONF'
[zram0]
zram-size = 128
swap-priority = 50
CONF
tap_done generator
