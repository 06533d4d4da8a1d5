"""The chunking layer: wordings cut into passages, and clause labels mapped onto them."""

from ragsweep.chunking.chunkers import (
    Chunk,
    Chunker,
    FixedTokenChunker,
    SectionChunker,
    chunk_corpus,
)

__all__ = ["Chunk", "Chunker", "FixedTokenChunker", "SectionChunker", "chunk_corpus"]
