import { defineConfig } from 'vitest/config';

// One run: unit tests beside the code (*.test.ts) and end-to-end tests in test/ against the real stack,
// which test/support/global-setup.ts starts once (Kafka, FerretDB, the services and the gateway).
export default defineConfig({
  test: {
    include: ['services/*/src/**/*.test.ts', 'gateway/src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
