// Preloaded into the server by bench/scale.mjs (with --expose-gc): SIGUSR2 runs a full GC, so that
// memory is sampled as what is retained, not what a lazy collector has not yet reclaimed.
process.on('SIGUSR2', () => globalThis.gc?.())
