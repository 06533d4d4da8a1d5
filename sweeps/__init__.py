"""One-factor sweep files (installed as the config group ragsweep.conf.sweep): `ragsweep -m sweep=NAME`."""
