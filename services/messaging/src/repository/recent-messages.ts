/**
 * The messages this replica stored or moved last, by provider key: a status callback (sent, delivered, read
 * arrive within a second of the send) finds its message here instead of reading it. What is kept may be stale
 * (another replica, an edit, a merge): every write made from it is conditional on the fields it was read with
 * (MessageRepository.applyStatus), so a stale copy only costs the read it would have saved. Bounded: the oldest
 * entry leaves when a new one comes in beyond `capacity`. A message being stored is found too: its callbacks wait for
 * the write (a 'sent' status often arrives before the transaction that stores the send has committed).
 */
export class RecentMessages<Message> {
  private readonly entries = new Map<string, Message>();
  /** Messages being stored now (their provider accepted them), until the write settles. */
  private readonly writes = new Map<string, Promise<Message | null>>();

  constructor(private readonly capacity: number) {}

  get(key: string): Message | undefined {
    return this.entries.get(key);
  }

  set(key: string, record: Message): void {
    this.entries.delete(key);
    this.entries.set(key, record);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  storing(key: string, write: Promise<Message | null>): void {
    this.writes.set(key, write);
  }

  /** The write settled (stored, already stored, or failed): callbacks look for the message as usual again. */
  stored(key: string, write: Promise<Message | null>): void {
    if (this.writes.get(key) === write) this.writes.delete(key);
  }

  whenStored(key: string): Promise<Message | null> | undefined {
    return this.writes.get(key);
  }
}
