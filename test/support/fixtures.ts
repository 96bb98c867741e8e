import mongoose from 'mongoose';
import { testSystem } from './system';

let connection: Promise<mongoose.Connection> | undefined;

/** The run's CRM database, for fixtures the API can only read (channel identities set by the messaging side). */
async function crmDb(): Promise<mongoose.Connection> {
  connection ??= mongoose.createConnection(testSystem().env.MONGODB_URI ?? '', { dbName: testSystem().env.CRM_DB_NAME, retryWrites: false }).asPromise();
  return connection;
}

/**
 * Sets channel identities as the messaging side would. It waits until the relay has published the contact's
 * events first: on FerretDB a write from outside the CRM process is not serialized with the relay's own
 * writes to the document (see KeyedLocks), and one of them could undo the other.
 */
export async function setContactChannels(contactId: string, channels: { chatapp_jid?: string; photoapp_username?: string; socialmsg_psid?: string; socialmsg_name?: string }): Promise<void> {
  const db = await crmDb();
  const contacts = db.collection('contacts');
  const deadline = Date.now() + 15_000;
  while ((await contacts.findOne({ _id: contactId as never }))?._outbox_pending === true) {
    if (Date.now() > deadline) throw new Error(`the outbox of ${contactId} was not drained`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await contacts.updateOne({ _id: contactId as never }, { $set: channels });
}

/** The raw stored document, to check what is (not) stored. */
export async function storedContact(contactId: string): Promise<Record<string, unknown> | null> {
  const db = await crmDb();
  return db.collection('contacts').findOne({ _id: contactId as never });
}
