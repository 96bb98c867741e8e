import { AgentServiceService } from '@crm/proto/gen/agents/v1/agents';
import { BroadcastServiceService } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { MessagingServiceService } from '@crm/proto/gen/messaging/v1/messaging';
import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { SERVICE_TOKEN_METADATA } from '@crm/shared';
import { Client, credentials, Metadata, status, type MethodDefinition } from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

/**
 * Finding 3 of issue 22: a call with no credentials read and updated an organization's contact straight through
 * CRM's gRPC port. Every service now refuses a call that does not carry a service token signed with the platform's
 * internal key (docs/security.md, "Service identity"), while the gateway's calls (every other e2e test) go through.
 */
const env = () => testSystem().env;
const firstAddress = (variable: string) => (env()[variable] ?? '').split(',')[0] ?? '';

/** A plain @grpc/grpc-js call with exactly the given metadata: what a compromised pod on the network could send. */
async function rawCall<Req, Res>(address: string, method: MethodDefinition<Req, Res>, request: Req, metadata = new Metadata()) {
  const client = new Client(address, credentials.createInsecure());
  try {
    return await new Promise<{ code: number; response?: Res }>((resolve) =>
      client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, request, metadata, (error, response) =>
        resolve(error ? { code: error.code } : { code: status.OK, response }),
      ),
    );
  } finally {
    client.close();
  }
}

/** `method` of the first replica behind `variable`, with an empty request and no metadata. */
const emptyCall = <Req, Res>(variable: string, method: MethodDefinition<Req, Res>) =>
  rawCall(firstAddress(variable), method, method.requestDeserialize(Buffer.alloc(0)));

async function bearer(secret: string, audience: string, issuedAt: number, expiresAt: number): Promise<Metadata> {
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('intruder')
    .setAudience(audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));
  const metadata = new Metadata();
  metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
  return metadata;
}

describe('service identity: gRPC calls without the platform identity are refused', () => {
  let org: TestOrg;
  let contactId: string;
  const ref = () => ({ org_id: org.orgId, id: contactId });
  beforeAll(async () => {
    org = await createTestOrg();
    const created = await org.raw.post('/v1/contacts', { name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(created.status).toBe(201);
    contactId = created.body.data.id;
  });

  it("neither reads nor updates an organization's contact for a caller without a token", async () => {
    const crm = firstAddress('CRM_GRPC_URL');
    expect((await rawCall(crm, ContactServiceService.getContact, ref())).code).toBe(status.UNAUTHENTICATED);
    const update = { ...ref(), body: { name: 'Mallory' } };
    expect((await rawCall(crm, ContactServiceService.updateContact, update)).code).toBe(status.UNAUTHENTICATED);
    const read = await org.raw.get(`/v1/contacts/${contactId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe('Ada Lovelace');
  });

  it('refuses a caller without a token on every service', async () => {
    const calls = [
      emptyCall('CRM_GRPC_URL', AccountServiceService.authenticate),
      emptyCall('MESSAGING_GRPC_URL', MessagingServiceService.listConversations),
      emptyCall('MESSAGING_GRPC_URL', BroadcastServiceService.listBroadcasts),
      emptyCall('AGENTS_GRPC_URL', AgentServiceService.listAgents),
      emptyCall('WEBHOOKS_GRPC_URL', WebhookServiceService.listWebhooks),
    ];
    expect((await Promise.all(calls)).map((result) => result.code)).toEqual(Array(calls.length).fill(status.UNAUTHENTICATED));
  });

  it('refuses a forged, an expired and a foreign-audience token, and serves a valid one', async () => {
    const crm = firstAddress('CRM_GRPC_URL');
    const secret = env().SERVICE_TOKEN_SECRET ?? '';
    const now = Math.floor(Date.now() / 1000);
    const audience = 'crm.v1.ContactService';
    const forged = await bearer('x'.repeat(48), audience, now, now + 60);
    const expired = await bearer(secret, audience, now - 300, now - 240);
    const foreign = await bearer(secret, 'webhooks.v1.WebhookService', now, now + 60);
    for (const metadata of [forged, expired, foreign]) {
      expect((await rawCall(crm, ContactServiceService.getContact, ref(), metadata)).code).toBe(status.UNAUTHENTICATED);
    }
    const valid = await rawCall(crm, ContactServiceService.getContact, ref(), await bearer(secret, audience, now, now + 60));
    expect(valid.code).toBe(status.OK);
    expect(valid.response?.id).toBe(contactId);
  });
});
