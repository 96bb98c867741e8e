import { describe, expect, it } from 'vitest';
import { AppError } from '@crm/shared';
import { ManualAttemptGate } from './manual-attempt-gate';

describe('manual attempt gate', () => {
  it('admits up to the cap per organization, refuses beyond with RATE_LIMITED, and frees a slot when an attempt ends', async () => {
    const gate = new ManualAttemptGate({ perOrganization: 2, attemptTimeoutMs: 2_500 });
    const ends: Array<() => void> = [];
    const held = () => gate.run('org_a', () => new Promise<string>((resolve) => ends.push(() => resolve('sent'))));
    const first = held();
    const second = held();
    const refused = await gate.run('org_a', async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', details: { retry_after_seconds: 3 } });
    await expect(gate.run('org_b', async () => 'other tenant')).resolves.toBe('other tenant');

    ends[0]!();
    await expect(first).resolves.toBe('sent');
    const third = held();
    ends[1]!();
    ends[2]!();
    await expect(Promise.all([second, third])).resolves.toEqual(['sent', 'sent']);
  });

  it('frees the slot of an attempt that throws', async () => {
    const gate = new ManualAttemptGate({ perOrganization: 1, attemptTimeoutMs: 1_000 });
    await expect(gate.run('org_a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('org_a', async () => 'ok')).resolves.toBe('ok');
  });
});
