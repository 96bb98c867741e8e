import { newId } from '@crm/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import {
  createBroadcast,
  createContactsInOrder,
  digitsOf,
  expectStats,
  launch,
  recipientsOf,
  sendsOf,
  waitForFinished,
  type CreatedContact,
} from '../support/broadcasts';
import { setContactChannels } from '../support/fixtures';
import { addNumber, addTemplate, inbound, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

interface Estimate {
  estimated_count: number;
  estimated_exclusions: number;
  exclusions_by_reason: { marketing_opt_out: number; no_chatapp: number; duplicate: number };
}

const expected = (count: number, reasons: Partial<Estimate['exclusions_by_reason']> = {}): Estimate => {
  const byReason = { marketing_opt_out: 0, no_chatapp: 0, duplicate: 0, ...reasons };
  return {
    estimated_count: count,
    estimated_exclusions: byReason.marketing_opt_out + byReason.no_chatapp + byReason.duplicate,
    exclusions_by_reason: byReason,
  };
};

describe('POST /v1/broadcasts/audience/estimate (#60) and the exclusion rules of a launched broadcast', () => {
  let org: TestOrg;
  let official: TestNumber;
  let official2: TestNumber;
  let marketing: { id: string };
  let utility: { id: string };
  let elsewhere: { id: string };
  /** a–g in creation order (the send order); named by what the audience rules see of them. */
  const c: Record<string, CreatedContact> = {};

  const estimate = async (body: Record<string, unknown>): Promise<Estimate> => {
    const response = await org.raw.post('/v1/broadcasts/audience/estimate', body);
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  };
  const marketingTemplate = () => ({ templateId: marketing.id, language: 'en_US' });
  const utilityTemplate = () => ({ templateId: utility.id, language: 'en_US' });

  beforeAll(async () => {
    org = await createTestOrg();
    official = await addNumber(org.orgId, 'official', { name: 'Official' });
    official2 = await addNumber(org.orgId, 'official', { name: 'Other official' });
    marketing = (await addTemplate(org.orgId, official.id, { name: 'big_sale', category: 'marketing', text: 'Big sale today' })) as {
      id: string;
    };
    utility = (await addTemplate(org.orgId, official.id, { name: 'receipt', category: 'utility', text: 'Your receipt' })) as { id: string };
    elsewhere = (await addTemplate(org.orgId, official2.id, { name: 'elsewhere', category: 'marketing', text: 'Hi' })) as { id: string };
    const phoneA = uniquePhone();
    const [a, b, cc, d, e, f, g] = await createContactsInOrder(org, [
      { name: 'Ana Vip Lead', phone: phoneA, tags: ['vip', 'lead'] },
      { name: 'Bruno Vip', phone: uniquePhone(), tags: ['vip'], source: 'import' },
      { name: 'Carla Nophone', tags: ['vip', 'lead'], source: 'manual' },
      { name: 'Dario Lead', phone: uniquePhone(), tags: ['lead'], source: 'import' },
      { name: 'Eva Same Number', tags: ['vip'] },
      { name: 'Fabio Stops', phone: uniquePhone(), tags: ['vip', 'lead', 'blocked'] },
      { name: 'Gina Untagged', phone: uniquePhone(), source: 'manual' },
    ]);
    Object.assign(c, { a, b, c: cc, d, e, f, g });
    // Eva has no phone but the chatapp id of Ana's number: the same person's number twice in one audience.
    await setContactChannels(e!.id, { chatapp_jid: `${digitsOf(phoneA)}@c.chatapp` });
  });

  it('counts an "all" audience with its exclusions by reason', async () => {
    expect(await estimate({ audience: { type: 'all' } })).toEqual(expected(5, { no_chatapp: 1, duplicate: 1 }));
  });

  it('counts a tag audience with tagsOperator or (the default) and and', async () => {
    expect(await estimate({ audience: { type: 'tags', tags: ['vip'] } })).toEqual(expected(3, { no_chatapp: 1, duplicate: 1 }));
    expect(await estimate({ audience: { type: 'tags', tags: ['vip', 'lead'] } })).toEqual(expected(4, { no_chatapp: 1, duplicate: 1 }));
    expect(await estimate({ audience: { type: 'tags', tags: ['vip', 'lead'], tagsOperator: 'or' } })).toEqual(
      expected(4, { no_chatapp: 1, duplicate: 1 }),
    );
    expect(await estimate({ audience: { type: 'tags', tags: ['vip', 'lead'], tagsOperator: 'and' } })).toEqual(
      expected(2, { no_chatapp: 1 }),
    );
    expect(await estimate({ audience: { type: 'tags', tags: ['nobody-has-it'] } })).toEqual(expected(0));
  });

  it('counts a contact list; a number is a duplicate only after an older contact of the same audience', async () => {
    expect(await estimate({ audience: { type: 'contacts', contactIds: [c.g!.id, c.e!.id, c.c!.id] } })).toEqual(
      expected(2, { no_chatapp: 1 }),
    );
    // Listed newest first, Ana is still the older contact: Eva is the duplicate.
    expect(await estimate({ audience: { type: 'contacts', contactIds: [c.e!.id, c.a!.id] } })).toEqual(expected(1, { duplicate: 1 }));
    // An id repeated in the list is one contact, not a duplicate.
    expect(await estimate({ audience: { type: 'contacts', contactIds: [c.b!.id, c.b!.id] } })).toEqual(expected(1));
  });

  it('applies the filters: source, createdAfter (inclusive), createdBefore (exclusive), excludeTags', async () => {
    expect(await estimate({ audience: { type: 'all', filters: { source: 'import' } } })).toEqual(expected(2));
    expect(await estimate({ audience: { type: 'all', filters: { source: 'manual' } } })).toEqual(expected(1, { no_chatapp: 1 }));
    // From Eva on: Ana is not in the audience, so Eva's number is reached through her.
    expect(await estimate({ audience: { type: 'all', filters: { createdAfter: c.e!.created_at } } })).toEqual(expected(3));
    expect(await estimate({ audience: { type: 'all', filters: { createdBefore: c.e!.created_at } } })).toEqual(
      expected(3, { no_chatapp: 1 }),
    );
    expect(
      await estimate({ audience: { type: 'all', filters: { createdAfter: c.b!.created_at, createdBefore: c.f!.created_at } } }),
    ).toEqual(expected(3, { no_chatapp: 1 }));
    expect(await estimate({ audience: { type: 'all', filters: { excludeTags: ['blocked'] } } })).toEqual(
      expected(4, { no_chatapp: 1, duplicate: 1 }),
    );
    // Combined with tags: vip ∩ source api ∖ blocked = Ana and Eva (Eva is Ana's number again).
    expect(await estimate({ audience: { type: 'tags', tags: ['vip'], filters: { source: 'api', excludeTags: ['blocked'] } } })).toEqual(
      expected(1, { duplicate: 1 }),
    );
  });

  it('hasChatapp narrows the audience itself: contacts without a number are left out, not counted as exclusions', async () => {
    expect(await estimate({ audience: { type: 'all', hasChatapp: true } })).toEqual(expected(5, { duplicate: 1 }));
    expect(await estimate({ audience: { type: 'all', hasChatapp: false } })).toEqual(expected(0, { no_chatapp: 1 }));
  });

  it('leaves out deleted contacts', async () => {
    const [temp] = await createContactsInOrder(org, [{ name: 'Temporary', phone: uniquePhone(), tags: ['temp'] }]);
    expect(await estimate({ audience: { type: 'tags', tags: ['temp'] } })).toEqual(expected(1));
    expect((await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: temp!.id } } })).response.status).toBe(204);
    expect(await estimate({ audience: { type: 'tags', tags: ['temp'] } })).toEqual(expected(0));
  });

  it('refuses bad bodies and templates that are not those of these numbers in this language', async () => {
    const refused = async (body: Record<string, unknown>, status: number, code: string) => {
      const response = await org.raw.post('/v1/broadcasts/audience/estimate', body);
      expect(response.status, response.text).toBe(status);
      expect(response.body.error.code, response.text).toBe(code);
      return response.body.error;
    };
    expect((await refused({}, 422, 'VALIDATION_ERROR')).details.fields).toEqual([expect.objectContaining({ field: 'audience' })]);
    expect((await refused({ audience: { type: 'all', createdAfter: c.a!.created_at } }, 422, 'UNKNOWN_FIELDS')).details).toEqual({
      fields: ['audience.createdAfter'],
    });
    expect((await refused({ audience: { type: 'all' }, filters: { source: 'api' } }, 422, 'UNKNOWN_FIELDS')).details).toEqual({
      fields: ['filters'],
    });
    await refused({ audience: { type: 'contacts', contactIds: ['ct_bad'] } }, 400, 'INVALID_ID');
    await refused({ audience: { type: 'all' }, cloudTemplate: { ...marketingTemplate(), language: 'en' } }, 422, 'TEMPLATE_NOT_FOUND');
    await refused(
      { audience: { type: 'all' }, cloudTemplate: { ...marketingTemplate(), templateId: newId('template') } },
      422,
      'TEMPLATE_NOT_FOUND',
    );
    await refused(
      { audience: { type: 'all' }, chatappInstanceIds: [official.id], cloudTemplate: { templateId: elsewhere.id, language: 'en_US' } },
      422,
      'TEMPLATE_NOT_FOUND',
    );
    // A contact id of another organization is refused as on create, not silently left out of the count.
    const foreign = (await createContactsInOrder(await createTestOrg(), [{ name: 'Foreign', phone: uniquePhone() }]))[0]!;
    expect(
      (await refused({ audience: { type: 'contacts', contactIds: [c.a!.id, foreign.id] } }, 422, 'INVALID_REFERENCE')).details,
    ).toEqual({ field: 'audience.contactIds', id: foreign.id });
    const unknownNumber = newId('chatInstance');
    expect((await refused({ audience: { type: 'all' }, chatappInstanceIds: [unknownNumber] }, 422, 'INVALID_REFERENCE')).details).toEqual({
      field: 'chatappInstanceIds',
      id: unknownNumber,
    });
    await refused(
      {
        audience: { type: 'all' },
        cloudTemplate: {
          ...marketingTemplate(),
          variables: [{ key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'name' }],
        },
      },
      422,
      'VALIDATION_ERROR',
    );
  });

  it('a STOP opts a contact out of marketing broadcasts only, START opts it back in; the launch excludes what the estimate counted', async () => {
    const all = { type: 'all' };
    expect(await estimate({ audience: all, cloudTemplate: marketingTemplate() })).toEqual(expected(5, { no_chatapp: 1, duplicate: 1 }));

    await inbound(official, { from: c.f!.phone!, text: 'STOP' });
    // The inbound message found Fabio: no new contact was made.
    expect(await listAll(org.client, '/v1/contacts')).toHaveLength(7);

    const optedOut = expected(4, { marketing_opt_out: 1, no_chatapp: 1, duplicate: 1 });
    expect(await estimate({ audience: all, cloudTemplate: marketingTemplate() })).toEqual(optedOut);
    expect(await estimate({ audience: all, cloudTemplate: marketingTemplate(), chatappInstanceIds: [official.id] })).toEqual(optedOut);
    expect(await estimate({ audience: { type: 'tags', tags: ['vip'] }, cloudTemplate: marketingTemplate() })).toEqual(
      expected(2, { marketing_opt_out: 1, no_chatapp: 1, duplicate: 1 }),
    );
    // A utility template still reaches him; without a template the estimate ignores the opt-out (spec §4 rule 1).
    expect(await estimate({ audience: all, cloudTemplate: utilityTemplate() })).toEqual(expected(5, { no_chatapp: 1, duplicate: 1 }));
    expect(await estimate({ audience: all })).toEqual(expected(5, { no_chatapp: 1, duplicate: 1 }));

    // The launched marketing broadcast excludes exactly these contacts, with their reasons, listed in send order.
    const sale = await createBroadcast(org.client, {
      name: 'Big sale',
      chatappInstanceIds: [official.id],
      audience: all,
      cloudTemplate: marketingTemplate(),
    });
    const sendsBefore = (await sendsOf(official)).length;
    await launch(org.client, sale.id);
    const done = await waitForFinished(org.client, sale.id);
    expect(done).toMatchObject({ status: 'completed', stats: { total: 4, sent: 4, failed: 0, excluded: 3 } });
    await expectStats(org.client, sale.id, { total: 4, sent: 4, delivered: 4, read: 4, failed: 0, excluded: 3 });
    const recipients = await recipientsOf(org.client, sale.id);
    expect(recipients.map((r) => [r.contact.id, r.status, r.exclusion_reason])).toEqual([
      [c.a!.id, 'read', null],
      [c.b!.id, 'read', null],
      [c.c!.id, 'excluded', 'no_chatapp'],
      [c.d!.id, 'read', null],
      [c.e!.id, 'excluded', 'duplicate'],
      [c.f!.id, 'excluded', 'marketing_opt_out'],
      [c.g!.id, 'read', null],
    ]);
    const sends = (await sendsOf(official)).slice(sendsBefore);
    expect(sends.map((s) => s.to).sort()).toEqual([c.a, c.b, c.d, c.g].map((contact) => digitsOf(contact!.phone!)).sort());
    expect(sends.every((s) => s.body.type === 'template' && s.body.template.name === 'big_sale')).toBe(true);

    // A utility broadcast still reaches him.
    const receipt = await createBroadcast(org.client, {
      name: 'Receipts',
      chatappInstanceIds: [official.id],
      audience: { type: 'contacts', contactIds: [c.f!.id] },
      cloudTemplate: utilityTemplate(),
    });
    await launch(org.client, receipt.id);
    expect(await waitForFinished(org.client, receipt.id)).toMatchObject({ status: 'completed', stats: { total: 1, sent: 1, excluded: 0 } });

    await inbound(official, { from: c.f!.phone!, text: 'start' });
    expect(await estimate({ audience: all, cloudTemplate: marketingTemplate() })).toEqual(expected(5, { no_chatapp: 1, duplicate: 1 }));
  });
});
