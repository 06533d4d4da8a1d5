"""One module per CLI verb, each with `main(argv) -> int`."""
