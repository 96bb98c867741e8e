import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import { MessagingServiceService } from '@crm/proto/gen/messaging/v1/messaging';
import { callerIdentity, createAsyncClient, TtlCache, type Logger, type Storage } from '@crm/shared';
import type { AgentsConfig } from './config';
import type { AgentsDeps } from './domain/deps';
import { createModelProvider } from './models';
import { createAgentRepository } from './repository/agent.repository';
import { createConversationStateRepository } from './repository/conversation-state.repository';
import { createRunRepository } from './repository/run.repository';

/** Builds the repositories, the model provider and the CRM and messaging clients. */
export function createDeps(
  db: Storage,
  config: AgentsConfig,
  logger: Logger,
  runScheduled: AgentsDeps['runScheduled'] = () => undefined,
): AgentsDeps & { close(): void } {
  const identity = callerIdentity('agents', config);
  const contacts = createAsyncClient(ContactServiceService, config.CRM_GRPC_URL, 'crm.v1.ContactService', { identity });
  const accounts = createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService', { identity });
  const messaging = createAsyncClient(MessagingServiceService, config.MESSAGING_GRPC_URL, 'messaging.v1.MessagingService', { identity });
  return {
    agents: createAgentRepository(db),
    runs: createRunRepository(db),
    states: createConversationStateRepository(db),
    crm: { contacts, accounts },
    messaging,
    model: createModelProvider(config),
    settings: {
      leaseMs: config.AGENTS_RUN_LEASE_MS,
      historyMessages: config.AGENTS_HISTORY_MESSAGES,
      historyChars: config.AGENTS_HISTORY_CHARS,
      modelDeadlineMs: config.MODEL_DEADLINE_MS,
      costCentsPerMillionTokens: config.MODEL_COST_CENTS_PER_MILLION_TOKENS,
      allowedModels: config.AGENTS_ALLOWED_MODELS,
    },
    timezones: new TtlCache<string>(config.AGENTS_ORG_CACHE_MS),
    runScheduled,
    now: () => new Date(),
    logger,
    close: () => {
      contacts.close();
      accounts.close();
      messaging.close();
    },
  };
}
