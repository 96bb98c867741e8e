import type { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import type { ContactServiceService } from '@crm/proto/gen/crm/v1/contacts';
import type { MessagingServiceService } from '@crm/proto/gen/messaging/v1/messaging';
import type { AsyncClient, Logger, TtlCache } from '@crm/shared';
import type { ModelProvider } from '../models/model-provider';
import type { AgentRepository } from '../repository/agent.repository';
import type { ConversationStateRepository } from '../repository/conversation-state.repository';
import type { RunRepository } from '../repository/run.repository';

export interface RunnerSettings {
  /** How long a replica holds a run it executes before another may take it over. */
  leaseMs: number;
  historyMessages: number;
  historyChars: number;
  /** The deadline of one model call, retries included. */
  modelDeadlineMs: number;
  costCentsPerMillionTokens: number;
  /** The model names an agent may name (AGENTS_ALLOWED_MODELS); empty: any. */
  allowedModels: ReadonlySet<string>;
}

/** Everything a domain function may touch, wired once in wiring.ts. */
export interface AgentsDeps {
  agents: AgentRepository;
  runs: RunRepository;
  states: ConversationStateRepository;
  /** The CRM: contacts (tags, names), members (handoff), tags, the organization's timezone. */
  crm: { contacts: AsyncClient<typeof ContactServiceService>; accounts: AsyncClient<typeof AccountServiceService> };
  /** The messaging service: numbers, conversations, history, the send path and assignment. */
  messaging: AsyncClient<typeof MessagingServiceService>;
  model: ModelProvider;
  settings: RunnerSettings;
  /** Organization timezones by org id, briefly cached. */
  timezones: TtlCache<string>;
  /** Tells this replica's scheduler that a run falls due at `at`. */
  runScheduled: (at: Date) => void;
  now: () => Date;
  logger: Logger;
}
