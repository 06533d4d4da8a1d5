"""Hydra config root (installed as ragsweep.conf): one group per pipeline stage; see config.yaml."""
