import { describe, expect, it } from 'vitest';
import { logLines } from '../../../test/support/log-lines';
import { withRequestId } from './grpc/request-id';
import { createLogger } from './logger';

function capture() {
  const { stream, text } = logLines();
  return { logger: createLogger('test', 'info', stream), text };
}

describe('logger redaction', () => {
  it('redacts API keys and webhook secrets at the top, one and two levels down', () => {
    const { logger, text } = capture();
    const key = 'sk_live_abcdefghijklmnopqrstuvwxyz012345';
    const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I=';
    logger.info({ authorization: `Bearer ${key}`, key, api_key: key, apiKey: key, secret, previous_secret: secret }, 'top');
    logger.info({ req: { headers: { authorization: `Bearer ${key}`, 'x-api-key': key, cookie: key } } }, 'request');
    logger.info({ headers: { 'x-api-key': key } }, 'headers');
    logger.info({ webhook: { secret, previous_secret: secret, api_key: key, apiKey: key } }, 'one down');
    logger.info({ update: { $set: { secret, previous_secret: secret } } }, 'two down');
    logger.info({ call: { request: { headers: { authorization: key } } } }, 'headers two down');
    const output = text();
    expect(output).not.toContain(key);
    expect(output).not.toContain(secret);
    expect(output.match(/\[redacted\]/g)?.length).toBe(17);
  });
});

describe('logger correlation', () => {
  it('puts the id of the API request being served on each line written while serving it, and none outside', () => {
    const { logger, text } = capture();
    withRequestId('req_abc123', () => logger.info('inside'));
    logger.info('outside');
    const [inside, outside] = text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; request_id?: string });
    expect(inside).toMatchObject({ msg: 'inside', request_id: 'req_abc123' });
    expect(outside?.msg).toBe('outside');
    expect(outside).not.toHaveProperty('request_id');
  });
});
