import { Metadata, status as grpcStatus, type handleUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FairScheduler } from '../concurrency/fair-scheduler';
import { bindService } from './unary';

interface Request {
  org_id: string;
  label: string;
}
interface ListServer extends UntypedServiceImplementation {
  list: handleUnaryCall<Request, Request>;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('a service with a fair scheduler', () => {
  it('starts a waiting organization’s call at the next free place, ahead of another’s queue, and drops one past its deadline', async () => {
    const started: string[] = [];
    const finish: Array<() => void> = [];
    const bound = bindService<ListServer>(
      {
        list: (request) =>
          new Promise((resolve) => {
            started.push(request.label);
            finish.push(() => resolve(request));
          }),
      },
      pino({ level: 'silent' }),
      new FairScheduler(1),
    );
    const call = (orgId: string, label: string, deadline = new Date(Date.now() + 10_000)) =>
      new Promise<{ code?: number } | null>((resolve) => {
        const fake = Object.assign(new EventEmitter(), {
          request: { org_id: orgId, label },
          metadata: new Metadata(),
          getDeadline: () => deadline,
          getPath: () => '/test.List/List',
          sendMetadata: () => undefined,
        });
        (bound.list as unknown as (call: unknown, callback: (error: { code?: number } | null) => void) => void)(fake, resolve);
      });

    const answers = [call('org_heavy', 'h1'), call('org_heavy', 'h2'), call('org_heavy', 'h3')];
    const expired = call('org_late', 'late', new Date(Date.now() + 30));
    answers.push(call('org_light', 'l1'));
    await tick();
    expect(started).toEqual(['h1']);
    expect(await expired).toMatchObject({ code: grpcStatus.DEADLINE_EXCEEDED });

    for (let i = 0; i < 4; i++) {
      finish.shift()?.();
      await tick();
      await tick();
    }
    expect(started).toEqual(['h1', 'h2', 'l1', 'h3']);
    expect(await Promise.all(answers)).toEqual([null, null, null, null]);
  });
});
