import { inject, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../../test/support/integration';
import { withCommandCount } from './command-count';
import { connectStorage } from './storage';

/** The commands one read by a fresh connection is counted as, with command monitoring as asked. */
async function countedRead(monitorCommands: boolean | undefined): Promise<string[]> {
  const storage = await connectStorage(inject('integration').MONGODB_URI, uniqueName('monitoring'), { monitorCommands });
  try {
    const counted = withCommandCount(() => storage.connection.collection('probe').findOne({ _id: 'none' as never }));
    await counted.result;
    return counted.commands;
  } finally {
    await storage.connection.dropDatabase();
    await storage.close();
  }
}

describe('command monitoring (the diagnostics of EXPOSE_DB_COMMANDS)', () => {
  it('is off unless asked for: nothing is counted', async () => {
    expect(await countedRead(undefined)).toEqual([]);
    expect(await countedRead(false)).toEqual([]);
  });

  it('counts the commands of a request when asked for', async () => {
    expect(await countedRead(true)).toEqual(['find:probe']);
  });
});
