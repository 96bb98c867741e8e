import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { AudienceServiceService } from '@crm/proto/gen/crm/v1/audiences';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { callerIdentity, createAsyncClient, TtlCache, type Logger, type Storage } from '@crm/shared';
import { createBroadcastRepository } from './repository/broadcast.repository';
import { createLaneRepository } from './repository/lane.repository';
import { createOptOutRepository } from './repository/opt-out.repository';
import { createRecipientRepository } from './repository/recipient.repository';
import type { MessagingConfig } from './config';
import type { MessagingDeps } from './domain/deps';
import { cloudApiAdapter } from './providers/cloud-api.adapter';
import { pageMessengerAdapter } from './providers/page-messenger.adapter';
import type { ProviderAccount, Providers } from './providers/provider';
import { qrBridgeAdapter } from './providers/qr-bridge.adapter';
import { createChatInstanceRepository } from './repository/chat-instance.repository';
import { createConversationRepository } from './repository/conversation.repository';
import { createMessageRepository } from './repository/message.repository';
import { createTemplateRepository } from './repository/template.repository';

export function createProviders(config: MessagingConfig): Providers {
  const common = { token: config.PROVIDER_TOKEN, timeoutMs: config.PROVIDER_TIMEOUT_MS };
  return {
    official: cloudApiAdapter({ ...common, baseUrl: config.CLOUD_API_BASE_URL }),
    qrcode: qrBridgeAdapter({ ...common, baseUrl: config.QR_BRIDGE_BASE_URL }),
    photoapp: pageMessengerAdapter({ ...common, kind: 'photoapp', baseUrl: config.PHOTOAPP_BASE_URL }),
    socialmsg: pageMessengerAdapter({ ...common, kind: 'socialmsg', baseUrl: config.SOCIALMSG_BASE_URL }),
  };
}

/** Builds the repositories, provider adapters and CRM clients. Used by the server and by the admin CLI. */
export function createDeps(
  db: Storage,
  config: MessagingConfig,
  logger: Logger,
  wakeBroadcasts: () => void = () => undefined,
  windowArmed: (at: Date) => void = () => undefined,
): MessagingDeps & { close(): void } {
  const identity = callerIdentity('messaging', config);
  const contacts = createAsyncClient(ContactServiceService, config.CRM_GRPC_URL, 'crm.v1.ContactService', { identity });
  const accounts = createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService', { identity });
  const audience = createAsyncClient(AudienceServiceService, config.CRM_GRPC_URL, 'crm.v1.AudienceService', { identity });
  return {
    instances: createChatInstanceRepository(db),
    templates: createTemplateRepository(db),
    conversations: createConversationRepository(db),
    messages: createMessageRepository(db),
    broadcasts: {
      records: createBroadcastRepository(db),
      recipients: createRecipientRepository(db),
      lanes: createLaneRepository(db),
      optOuts: createOptOutRepository(db),
      audience,
      settings: {
        paceMultiplier: config.BROADCAST_PACE_MULTIPLIER,
        leaseMs: config.BROADCAST_LEASE_MS,
        maxLanes: config.BROADCAST_MAX_LANES,
      },
      wake: wakeBroadcasts,
    },
    providers: createProviders(config),
    crm: { contacts, accounts },
    accounts: new TtlCache<ProviderAccount>(config.PROVIDER_ACCOUNT_CACHE_MS),
    settings: { windowMs: config.MESSAGING_WINDOW_HOURS * 3_600_000 },
    windowArmed,
    transaction: db.transaction,
    now: () => new Date(),
    logger,
    close: () => {
      contacts.close();
      accounts.close();
      audience.close();
    },
  };
}
