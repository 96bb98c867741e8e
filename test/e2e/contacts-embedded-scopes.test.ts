import { describe, expect, it } from 'vitest';
import { createTestOrg } from '../support/orgs';
import { createDeal, createFunnel } from '../support/pipelines';

/**
 * Issue 22 finding 5: a contact embeds its company's name and its deals' titles and values, which read:companies
 * and read:deals guard; a key with read:contacts alone gets the contact without them.
 */
describe('records embedded in a contact', () => {
  it('are left out for a key without the scope that guards them', async () => {
    const org = await createTestOrg();
    const company = await org.raw.post('/v1/companies', { name: 'Secret Holdings' });
    expect(company.status, company.text).toBe(201);
    const contact = await org.raw.post('/v1/contacts', { name: 'Embedded Ada', company_id: company.body.data.id });
    expect(contact.status, contact.text).toBe(201);
    const funnel = await createFunnel(org.client);
    await createDeal(org.client, {
      title: 'Confidential expansion',
      value: 98765,
      funnel_id: funnel.id,
      contact_ids: [contact.body.data.id],
    });
    const path = `/v1/contacts/${contact.body.data.id}`;

    const full = await org.raw.get(path);
    expect(full.body.data).toMatchObject({
      company: { id: company.body.data.id, name: 'Secret Holdings' },
      deals: [{ title: 'Confidential expansion', value: 98765 }],
    });

    const contactsOnly = await org.keyWith(['read:contacts']);
    const detail = await contactsOnly.raw.get(path);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ name: 'Embedded Ada', company: null, deals: [], deals_count: 1 });
    expect(detail.text).not.toContain('Secret Holdings');
    expect(detail.text).not.toContain('Confidential expansion');
    expect(detail.text).not.toContain('98765');
    const listed = await contactsOnly.raw.get('/v1/contacts');
    expect(listed.text).not.toContain('Secret Holdings');
    expect(listed.body.data[0]).toMatchObject({ id: contact.body.data.id, company: null });

    const withDeals = await org.keyWith(['read:contacts', 'read:deals']);
    expect((await withDeals.raw.get(path)).body.data).toMatchObject({ company: null, deals: [{ title: 'Confidential expansion' }] });
    const withCompanies = await org.keyWith(['read:contacts', 'read:companies']);
    expect((await withCompanies.raw.get(path)).body.data).toMatchObject({ company: { name: 'Secret Holdings' }, deals: [] });
  });
});
