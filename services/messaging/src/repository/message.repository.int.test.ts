import { createLogger, newId, type Storage } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { commandsSent, REQUIRED_SETTINGS, useDatabase } from '../../../../test/support/integration';
import { messageRecord } from '../../../../test/support/messaging-records';
import { loadMessagingConfig } from '../config';
import { createDeps } from '../wiring';

describe('messages looked up by their provider id', () => {
  let deps: ReturnType<typeof createDeps>;
  let storage: Storage;
  useDatabase('messaging_messages', (opened) => {
    storage = opened;
    deps = createDeps(opened, loadMessagingConfig(REQUIRED_SETTINGS), createLogger('test', 'silent'));
  });

  it('are read through the unique provider key, one document examined, beside messages that have none', async () => {
    const orgId = newId('organization');
    const instanceId = newId('chatInstance');
    const conversationId = newId('conversation');
    for (let n = 0; n < 30; n++) {
      // A third have no provider id (provider_key null): the partial key leaves them out.
      const external_id = n % 3 === 0 ? null : `wamid.${n}`;
      await deps.messages.insert(messageRecord(orgId, conversationId, { instance_id: instanceId, external_id }), []);
    }
    const db = storage.connection.db!;
    const { result: found, commands } = await commandsSent(db, () => deps.messages.getByExternalId(instanceId, 'wamid.7'));
    expect(found).toMatchObject({ org_id: orgId, instance_id: instanceId, external_id: 'wamid.7' });

    // The lookup as sent, explained: read through the key, not by scanning the collection (the local store scanned
    // every message until its router could prove that a string equality implies the key's `$type: 'string'` bound).
    const sent = commands.find((command) => command.find === 'messages');
    const explained = await db.command({ explain: { find: 'messages', filter: sent?.filter }, verbosity: 'executionStats' });
    expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('"indexName":"provider_key_1"');
    expect(explained.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  });
});
