import { beforeAll, describe, expect, it } from 'vitest';
import { distinctEvents } from '../support/distinct-events';
import { orgWithEvents, type EventLog } from '../support/events';
import { addNumber, eventually, inbound, uniquePhone } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

/** A contact opting out of marketing: a STOP keyword, or POST /v1/contacts/{id}/opt-out; contact.opted_out once. */
describe('opting a contact out of marketing', () => {
  let org: TestOrg;
  let events: EventLog;

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    return events.stop;
  });

  /** contact.opted_out events of a contact, one per event id (publishing is at-least-once). */
  const optedOut = (contactId: string) =>
    distinctEvents(events.received, (event) => event.type === 'contact.opted_out' && event.data.contact.id === contactId);

  it('through the API: the opt-out is answered and raised once; repeating it changes nothing', async () => {
    const contact = (await org.raw.post('/v1/contacts', { name: 'Quiet Person' })).body.data;
    const first = await org.raw.post(`/v1/contacts/${contact.id}/opt-out`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual({
      contact: { id: contact.id, name: 'Quiet Person' },
      channel: null,
      source: 'api',
      keyword: null,
      opted_out_at: expect.stringMatching(/Z$/),
    });
    const again = await org.raw.post(`/v1/contacts/${contact.id}/opt-out`);
    expect(again.body.data).toEqual(first.body.data);
    await events.waitFor(() => optedOut(contact.id).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(optedOut(contact.id)).toHaveLength(1);
    expect(optedOut(contact.id)[0]!.data).toEqual(first.body.data);
  });

  it('by a STOP keyword on a channel: raised with the keyword; the API then answers that standing opt-out', async () => {
    const number = await addNumber(org.orgId, 'qrcode');
    const phone = uniquePhone();
    await inbound(number, { from: phone, name: 'Stopper', text: 'Stop!' });
    const [event] = await eventually('the keyword opt-out', async () => {
      const found = events.ofType('contact.opted_out').filter((e) => e.data.contact.name === 'Stopper');
      return found.length > 0 ? found : undefined;
    });
    expect(event!.data).toMatchObject({ channel: 'chatapp', source: 'keyword', keyword: 'Stop!' });
    const answer = await org.raw.post(`/v1/contacts/${event!.data.contact.id}/opt-out`);
    expect(answer.body.data).toMatchObject({ source: 'keyword', channel: 'chatapp' });
  });

  it('a STOP callback the provider repeats after the contact wrote START does not opt the contact out again', async () => {
    const number = await addNumber(org.orgId, 'qrcode');
    const phone = uniquePhone();
    const stop = await inbound(number, { from: phone, name: 'Changed Mind', text: 'STOP' });
    const [event] = await eventually('the keyword opt-out', async () => {
      const found = events.ofType('contact.opted_out').filter((e) => e.data.contact.name === 'Changed Mind');
      return found.length > 0 ? found : undefined;
    });
    const contactId = event!.data.contact.id as string;
    await inbound(number, { from: phone, name: 'Changed Mind', text: 'START' });
    // The provider delivers the STOP callback once more (at-least-once): the same message id.
    await inbound(number, { from: phone, name: 'Changed Mind', text: 'STOP', id: stop.id });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(optedOut(contactId)).toHaveLength(1);
    // Still opted in: the API records a new opt-out of its own instead of answering a standing keyword one.
    const answer = await org.raw.post(`/v1/contacts/${contactId}/opt-out`);
    expect(answer.body.data).toMatchObject({ source: 'api', keyword: null });
  });

  it('refuses malformed and unknown ids, other organizations and keys without write:contacts', async () => {
    const contact = (await org.raw.post('/v1/contacts', { name: 'Someone' })).body.data;
    const outsider = await createTestOrg();
    expect((await org.raw.post('/v1/contacts/nope/opt-out')).body.error.code).toBe('INVALID_ID');
    expect((await org.raw.post('/v1/contacts/ct_0000000000000000000000/opt-out')).status).toBe(404);
    expect((await outsider.raw.post(`/v1/contacts/${contact.id}/opt-out`)).status).toBe(404);
    const readOnly = await org.keyWith(['read:contacts']);
    expect((await readOnly.raw.post(`/v1/contacts/${contact.id}/opt-out`)).body.error.code).toBe('INSUFFICIENT_SCOPES');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(optedOut(contact.id)).toHaveLength(0);
  });
});
