import { defineConfig } from 'vitest/config';

// Two projects in one run. `unit`: the tests beside the code (*.test.ts), pure logic, no servers, seconds
// (`npm run test:unit`). `e2e`: the tests in test/ against the real stack, which test/support/global-setup.ts
// starts once (Kafka, SecantusDB or MONGODB_URI, two replicas of each service, the gateway).
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        test: { name: 'unit', include: ['services/*/src/**/*.test.ts', 'gateway/src/**/*.test.ts'], testTimeout: 10_000 },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
