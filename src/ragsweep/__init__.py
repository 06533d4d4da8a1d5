"""ragsweep: measure the retrieval layer of a RAG system the way a careful experimenter would."""

__version__ = "0.1.0"
