import { describe, expect, it } from 'vitest';
import { cloudApiAdapter } from '@crm/messaging/src/providers/cloud-api.adapter';
import { pageMessengerAdapter } from '@crm/messaging/src/providers/page-messenger.adapter';
import { qrBridgeAdapter } from '@crm/messaging/src/providers/qr-bridge.adapter';
import { callbackBody, type SimEvent } from './wire';

const options = { baseUrl: 'http://provider.invalid', token: 't', timeoutMs: 100 };
const adapters = {
  official: cloudApiAdapter(options),
  qrcode: qrBridgeAdapter(options),
  photoapp: pageMessengerAdapter({ ...options, kind: 'photoapp' }),
  socialmsg: pageMessengerAdapter({ ...options, kind: 'socialmsg' }),
};
const at = new Date('2026-01-02T03:04:05.000Z');

describe('provider callback shapes: what the simulator posts, each adapter reads back', () => {
  it.each(['official', 'qrcode'] as const)('%s: inbound message, status with error, edit and connection', (kind) => {
    const parse = (event: SimEvent) => adapters[kind].parseCallback(JSON.parse(JSON.stringify(callbackBody(kind, 'ref-1', event))));
    expect(parse({ type: 'message', from: '+15550001111', name: 'Ana', id: 'm1', text: 'hi', at })).toEqual([
      expect.objectContaining({
        kind: 'message',
        ref: 'ref-1',
        external_id: 'm1',
        text: 'hi',
        at,
        type: 'text',
        from: kind === 'official' ? '15550001111' : '15550001111@c.chatapp',
        from_name: 'Ana',
      }),
    ]);
    expect(
      parse({
        type: 'status',
        id: 'm2',
        status: 'failed',
        recipient: '1555',
        error: { code: 131042, title: 'Business eligibility payment issue' },
        at,
      }),
    ).toEqual([
      {
        kind: 'status',
        ref: 'ref-1',
        external_id: 'm2',
        status: 'failed',
        error: { code: '131042', message: 'Business eligibility payment issue' },
        at,
      },
    ]);
    expect(parse({ type: 'edit', from: '+1555', id: 'm1', text: 'fixed', at })).toEqual([
      { kind: 'edit', ref: 'ref-1', external_id: 'm1', text: 'fixed', at },
    ]);
    expect(parse({ type: 'connection', connected: false })).toEqual([{ kind: 'connection', ref: 'ref-1', connected: false }]);
    expect(parse({ type: 'delete', from: '+15550001111', id: 'm1', at })).toEqual([
      { kind: 'delete', ref: 'ref-1', external_id: 'm1', at },
    ]);
    expect(parse({ type: 'reaction', from: '+15550001111', id: 'r1', message_id: 'm1', emoji: '👍', at })).toEqual([
      {
        kind: 'reaction',
        ref: 'ref-1',
        external_id: 'm1',
        from: kind === 'official' ? '15550001111' : '15550001111@c.chatapp',
        emoji: '👍',
        key: 'r1',
        at,
      },
    ]);
  });

  it('official: template approval changes, with the reason of a rejection', () => {
    const body = callbackBody('official', 'ref-1', { type: 'template_status', name: 'welcome', language: 'pt_BR', status: 'APPROVED' });
    expect(adapters.official.parseCallback(body)).toEqual([
      { kind: 'template_status', ref: 'ref-1', name: 'welcome', language: 'pt_BR', status: 'APPROVED', reason: null },
    ]);
    const rejected = { type: 'template_status', name: 'w', language: 'en', status: 'REJECTED', reason: 'INVALID_FORMAT' } as const;
    expect(adapters.official.parseCallback(callbackBody('official', 'ref-1', rejected))).toEqual([
      { kind: 'template_status', ref: 'ref-1', name: 'w', language: 'en', status: 'REJECTED', reason: 'INVALID_FORMAT' },
    ]);
  });

  it('qrcode: a new QR code to pair the phone again', () => {
    const expires = new Date('2026-01-02T03:05:05.000Z');
    const body = callbackBody('qrcode', 'ref-1', { type: 'qr', code: '2@abc', expires_at: expires });
    expect(adapters.qrcode.parseCallback(body)).toEqual([{ kind: 'qr', ref: 'ref-1', qr_code: '2@abc', expires_at: expires }]);
  });

  it('qrcode: a message typed on the phone is an outgoing message', () => {
    const body = callbackBody('qrcode', 'ref-1', { type: 'phone_send', to: '+15550001111', id: 'p1', text: 'typed', at });
    expect(adapters.qrcode.parseCallback(body)).toEqual([
      { kind: 'outgoing', ref: 'ref-1', to: '15550001111@c.chatapp', external_id: 'p1', at, text: 'typed' },
    ]);
  });

  it.each(['photoapp', 'socialmsg'] as const)('%s: messages, delivery and read receipts, edits, page status', (kind) => {
    const parse = (event: SimEvent) => adapters[kind].parseCallback(callbackBody(kind, 'page-1', event));
    expect(parse({ type: 'message', from: 'psid-1', name: 'Jo', id: 'mid-1', text: 'hey', at })).toEqual([
      {
        kind: 'message',
        ref: 'page-1',
        from: 'psid-1',
        from_name: 'Jo',
        external_id: 'mid-1',
        at,
        type: 'text',
        text: 'hey',
        media_url: null,
      },
    ]);
    expect(parse({ type: 'status', id: 'mid-2', status: 'delivered', recipient: 'psid-1', at })).toEqual([
      { kind: 'status', ref: 'page-1', external_id: 'mid-2', status: 'delivered', error: null, at },
    ]);
    expect(parse({ type: 'status', id: 'mid-2', status: 'read', recipient: 'psid-1', at })).toEqual([
      { kind: 'status', ref: 'page-1', external_id: 'mid-2', status: 'read', error: null, at },
    ]);
    expect(parse({ type: 'connection', connected: false })).toEqual([{ kind: 'connection', ref: 'page-1', connected: false }]);
    expect(parse({ type: 'delete', from: 'psid-1', id: 'mid-1', at })).toEqual([
      { kind: 'delete', ref: 'page-1', external_id: 'mid-1', at },
    ]);
    expect(parse({ type: 'reaction', from: 'psid-1', id: 'r1', message_id: 'mid-1', emoji: '❤️', at })).toEqual([
      { kind: 'reaction', ref: 'page-1', external_id: 'mid-1', from: 'psid-1', emoji: '❤️', key: expect.stringContaining('psid-1'), at },
    ]);
  });

  it('ignores bodies that are not callbacks', () => {
    for (const adapter of Object.values(adapters)) {
      expect(adapter.parseCallback(null)).toEqual([]);
      expect(adapter.parseCallback({ entry: 'x' })).toEqual([]);
    }
  });
});
