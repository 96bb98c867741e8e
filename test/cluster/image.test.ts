import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterEnv, command, REPO_ROOT } from './support/cluster';

/**
 * The chart's image as a user gets it: deploy/check-images.sh --build builds it from the Dockerfile as committed
 * (podman, cached layers), checks its user, its HEALTHCHECK and that nothing dev-only is inside, then runs the crm
 * service and the gateway from it on a read-only root filesystem against the cluster's Kafka and SecantusDB: the
 * HEALTHCHECK passes, SIGTERM drains and exits 0.
 */
describe('the platform image', () => {
  it('builds, holds the product only, runs as uid 1000 and passes its HEALTHCHECK', async () => {
    const env = await clusterEnv();
    // Every check runs and reports; the script fails at the end if one did. The verdicts are read from its output,
    // the contents' last, so that each failure names itself.
    const output = await command(
      'bash',
      [resolve(REPO_ROOT, 'deploy/check-images.sh'), '--build'],
      {
        MONGODB_URI: env.CLUSTER_MONGODB_URI,
        KAFKA_BROKERS: env.CLUSTER_KAFKA_BROKERS,
        KAFKA_SASL_MECHANISM: env.CLUSTER_KAFKA_SASL_MECHANISM,
        KAFKA_USERS_FILE: env.CLUSTER_KAFKA_USERS_FILE,
      },
      { combined: true, timeoutMs: 900_000 },
    ).catch((error: Error) => error.message);
    expect(output).toMatch(/config: user 1000(:1000)? \(uid 1000\), HEALTHCHECK kept/);
    expect(output).toContain('crm: HEALTHCHECK passed, SIGTERM drained and exited 0');
    expect(output).toContain('gateway: HEALTHCHECK passed, SIGTERM drained and exited 0');
    expect(output).toContain('contents: no tools/, simulator, fake model server, demo seeding, sources, dev dependencies or npm');
    expect(output).toContain('images OK');
  });
});
