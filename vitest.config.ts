import { defineConfig } from 'vitest/config';

// Tests talk to real servers (embedded Azurite, http/net on 127.0.0.1:0) and spawn worker
// processes from dist/, so `npm test` builds first. Two cores: keep files from competing.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
