/**
 * The one interface the agent runner asks a language model through. Implementations: the deterministic local
 * provider (the default: rule-based answers from the agent's instructions, no network) and the adapter for the
 * OpenAI-compatible chat-completions HTTP API.
 */
export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelRequest {
  /** The model name; empty means the provider's default. */
  model: string;
  /** The agent's instructions (aiConfig.instructions). */
  instructions: string;
  /** The conversation so far, oldest first, bounded by the caller; the last turn is the contact's message. */
  history: ChatTurn[];
  temperature: number;
  /** The contact's display name, for `{first_name}`/`{name}` in local answers and the system prompt; optional. */
  contactName?: string | null;
  /** Cancels the call (the runner's deadline). */
  signal?: AbortSignal;
}

export interface ModelReply {
  /** The text to send to the contact; empty when the model hands off without answering. */
  content: string;
  /** The model that answered (as the provider names it). */
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Set when the model asks for a person to take over: the reason and a short summary for them. */
  handoff: { reason: string; summary: string } | null;
}

export interface ModelProvider {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}
