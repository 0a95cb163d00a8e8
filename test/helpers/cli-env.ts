// The environment of a CLI the tests start: one measured run and no warm-up unless a test says
// otherwise with flags. The defaults (5 runs and 3 s per strategy, after a warm-up) are for users;
// tests measure what they check, not the noise.
export const ONE_RUN = { BLOB_CACHER_RUNS: '1', BLOB_CACHER_WARMUP: '0' } as const;
