import { defineConfig } from 'vitest/config';

// Tests talk to real servers (embedded Azurite, http/net on 127.0.0.1:0) and run the engine and its
// workers from src/; tests that spawn the CLI run the build, made once by the global setup.
// Two cores: keep files from competing.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
