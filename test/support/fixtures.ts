import mongoose from 'mongoose';
import { testSystem } from './system';

let connection: Promise<mongoose.Connection> | undefined;

/** The run's CRM database, for fixtures the API can only read (channel identities set by the messaging side). */
async function crmDb(): Promise<mongoose.Connection> {
  connection ??= mongoose.createConnection(testSystem().env.MONGODB_URI ?? '', { dbName: testSystem().env.CRM_DB_NAME }).asPromise();
  return connection;
}

/** Sets channel identities as the messaging side would (a single-document update, isolated from the relay's). */
export async function setContactChannels(
  contactId: string,
  channels: { chatapp_jid?: string; photoapp_username?: string; socialmsg_psid?: string; socialmsg_name?: string },
): Promise<void> {
  const db = await crmDb();
  await db.collection('contacts').updateOne({ _id: contactId as never }, { $set: channels });
}

/** The raw stored document, to check what is (not) stored. */
export async function storedContact(contactId: string): Promise<Record<string, unknown> | null> {
  const db = await crmDb();
  return db.collection('contacts').findOne({ _id: contactId as never });
}
