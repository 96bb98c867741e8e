import type { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import type { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import type { AsyncClient, Logger, Storage, TtlCache } from '@crm/shared';
import type { BroadcastParts } from './broadcasts/deps';
import type { Providers, ProviderAccount } from '../providers/provider';
import type { ChatInstanceRepository } from '../repository/chat-instance.repository';
import type { ConversationRepository } from '../repository/conversation.repository';
import type { MessageRepository } from '../repository/message.repository';
import type { TemplateRepository } from '../repository/template.repository';

/** Everything a domain function may touch, wired once in wiring.ts. */
export interface MessagingDeps {
  instances: ChatInstanceRepository;
  templates: TemplateRepository;
  conversations: ConversationRepository;
  messages: MessageRepository;
  broadcasts: BroadcastParts;
  providers: Providers;
  /** The CRM service over gRPC: contacts and members are its records. */
  crm: { contacts: AsyncClient<typeof ContactServiceService>; accounts: AsyncClient<typeof AccountServiceService> };
  /** Provider account answers (payment method) by instance id, briefly cached. */
  accounts: TtlCache<ProviderAccount>;
  settings: { windowMs: number };
  /** Tells this replica's window-expiry scheduler that a conversation's free-text window now ends at `at`. */
  windowArmed: (at: Date) => void;
  /** Runs `work` in one multi-document transaction (the storage kit's; retried by the driver on transient errors). */
  transaction: Storage['transaction'];
  now: () => Date;
  logger: Logger;
}
