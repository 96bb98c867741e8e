import type { RouteDefinition } from '../http/route';
import { listCustomFieldsRoute } from './account/list-custom-fields.route';
import { listMembersRoute } from './account/list-members.route';
import { listTagsRoute } from './account/list-tags.route';
import { getMeRoute } from './account/me.route';
import { listApiKeysRoute } from './api-keys/list-api-keys.route';
import { revokeApiKeyRoute } from './api-keys/revoke-api-key.route';
import { activateAgentRoute } from './ai-agents/activate-agent.route';
import { createAgentRoute } from './ai-agents/create-agent.route';
import { deactivateAgentRoute } from './ai-agents/deactivate-agent.route';
import { deleteAgentRoute } from './ai-agents/delete-agent.route';
import { getAgentRoute } from './ai-agents/get-agent.route';
import { getRunRoute } from './ai-agents/get-run.route';
import { listAgentsRoute } from './ai-agents/list-agents.route';
import { listRunsRoute } from './ai-agents/list-runs.route';
import { patchAgentRoute } from './ai-agents/patch-agent.route';
import { replaceAgentRoute } from './ai-agents/replace-agent.route';
import { cancelBroadcastRoute } from './broadcasts/cancel-broadcast.route';
import { createBroadcastRoute } from './broadcasts/create-broadcast.route';
import { deleteBroadcastRoute } from './broadcasts/delete-broadcast.route';
import { estimateAudienceRoute } from './broadcasts/estimate-audience.route';
import { getBroadcastRoute } from './broadcasts/get-broadcast.route';
import { launchBroadcastRoute } from './broadcasts/launch-broadcast.route';
import { listBroadcastsRoute } from './broadcasts/list-broadcasts.route';
import { listRecipientsRoute } from './broadcasts/list-recipients.route';
import { pauseBroadcastRoute } from './broadcasts/pause-broadcast.route';
import { resumeBroadcastRoute } from './broadcasts/resume-broadcast.route';
import { scheduleBroadcastRoute } from './broadcasts/schedule-broadcast.route';
import { updateBroadcastRoute } from './broadcasts/update-broadcast.route';
import { batchUpsertCompaniesRoute } from './companies/batch-upsert-companies.route';
import { createCompanyRoute } from './companies/create-company.route';
import { deleteCompanyRoute } from './companies/delete-company.route';
import { getCompanyRoute } from './companies/get-company.route';
import { listCompaniesRoute } from './companies/list-companies.route';
import { listCompanyContactsRoute } from './companies/list-company-contacts.route';
import { listCompanyDealsRoute } from './companies/list-company-deals.route';
import { updateCompanyRoute } from './companies/update-company.route';
import { addContactTagsRoute } from './contacts/add-contact-tags.route';
import { batchUpsertContactsRoute } from './contacts/batch-upsert-contacts.route';
import { createContactRoute } from './contacts/create-contact.route';
import { deleteContactRoute } from './contacts/delete-contact.route';
import { getContactRoute } from './contacts/get-contact.route';
import { listContactsRoute } from './contacts/list-contacts.route';
import { mergeContactsRoute } from './contacts/merge-contacts.route';
import { optOutContactRoute } from './contacts/opt-out-contact.route';
import { removeContactTagRoute } from './contacts/remove-contact-tag.route';
import { updateContactRoute } from './contacts/update-contact.route';
import { createDealRoute } from './deals/create-deal.route';
import { getEventRoute } from './events/get-event.route';
import { listEventsRoute } from './events/list-events.route';
import { deleteDealRoute } from './deals/delete-deal.route';
import { getDealRoute } from './deals/get-deal.route';
import { listContactDealsRoute } from './deals/list-contact-deals.route';
import { listDealsRoute } from './deals/list-deals.route';
import { loseDealRoute } from './deals/lose-deal.route';
import { moveDealRoute } from './deals/move-deal.route';
import { reopenDealRoute } from './deals/reopen-deal.route';
import { transferDealRoute } from './deals/transfer-deal.route';
import { updateDealRoute } from './deals/update-deal.route';
import { winDealRoute } from './deals/win-deal.route';
import { createFunnelRoute } from './funnels/create-funnel.route';
import { createStageRoute } from './funnels/create-stage.route';
import { deleteStageRoute } from './funnels/delete-stage.route';
import { getFunnelRoute } from './funnels/get-funnel.route';
import { listFunnelsRoute } from './funnels/list-funnels.route';
import { updateFunnelRoute } from './funnels/update-funnel.route';
import { updateStageRoute } from './funnels/update-stage.route';
import { getChatInstanceRoute } from './chatapp-instances/get-chat-instance.route';
import { listChatInstancesRoute } from './chatapp-instances/list-chat-instances.route';
import { listTemplatesRoute } from './chatapp-instances/list-templates.route';
import { assignConversationRoute } from './conversations/assign-conversation.route';
import { closeConversationRoute } from './conversations/close-conversation.route';
import { getConversationRoute } from './conversations/get-conversation.route';
import { listConversationMessagesRoute } from './conversations/list-conversation-messages.route';
import { listConversationsRoute } from './conversations/list-conversations.route';
import { getMessageRoute } from './messages/get-message.route';
import { sendMessageRoute } from './messages/send-message.route';
import { messageCreditRoutes } from './message-credits/discontinued.routes';
import { createContactNoteRoute } from './notes/create-contact-note.route';
import { createDealNoteRoute } from './notes/create-deal-note.route';
import { deleteContactNoteRoute } from './notes/delete-contact-note.route';
import { deleteDealNoteRoute } from './notes/delete-deal-note.route';
import { listContactNotesRoute } from './notes/list-contact-notes.route';
import { listDealNotesRoute } from './notes/list-deal-notes.route';
import { updateContactNoteRoute } from './notes/update-contact-note.route';
import { updateDealNoteRoute } from './notes/update-deal-note.route';
import { completeTaskRoute } from './tasks/complete-task.route';
import { createTaskRoute } from './tasks/create-task.route';
import { deleteTaskRoute } from './tasks/delete-task.route';
import { getTaskRoute } from './tasks/get-task.route';
import { listTasksRoute } from './tasks/list-tasks.route';
import { reopenTaskRoute } from './tasks/reopen-task.route';
import { updateTaskRoute } from './tasks/update-task.route';
import { createWebhookRoute } from './webhooks/create-webhook.route';
import { deleteWebhookRoute } from './webhooks/delete-webhook.route';
import { getDeliveryRoute } from './webhooks/get-delivery.route';
import { getWebhookRoute } from './webhooks/get-webhook.route';
import { listDeliveriesRoute } from './webhooks/list-deliveries.route';
import { listEventTypesRoute } from './webhooks/list-event-types.route';
import { listWebhooksRoute } from './webhooks/list-webhooks.route';
import { redeliverRoute } from './webhooks/redeliver.route';
import { rotateSecretRoute } from './webhooks/rotate-secret.route';
import { testWebhookRoute } from './webhooks/test-webhook.route';
import { updateWebhookRoute } from './webhooks/update-webhook.route';
import { getReplayRoute } from './webhooks/get-replay.route';
import { startReplayRoute } from './webhooks/start-replay.route';

/** Every operation of the public API, in catalogue order. */
export const ALL_ROUTES: RouteDefinition[] = [
  listContactsRoute,
  createContactRoute,
  getContactRoute,
  updateContactRoute,
  deleteContactRoute,
  addContactTagsRoute,
  removeContactTagRoute,
  mergeContactsRoute,
  optOutContactRoute,
  listContactDealsRoute,
  listContactNotesRoute,
  createContactNoteRoute,
  updateContactNoteRoute,
  deleteContactNoteRoute,
  listCompaniesRoute,
  createCompanyRoute,
  getCompanyRoute,
  updateCompanyRoute,
  deleteCompanyRoute,
  listCompanyContactsRoute,
  listCompanyDealsRoute,
  listDealsRoute,
  createDealRoute,
  getDealRoute,
  updateDealRoute,
  deleteDealRoute,
  listDealNotesRoute,
  createDealNoteRoute,
  updateDealNoteRoute,
  deleteDealNoteRoute,
  moveDealRoute,
  winDealRoute,
  loseDealRoute,
  reopenDealRoute,
  transferDealRoute,
  listFunnelsRoute,
  createFunnelRoute,
  getFunnelRoute,
  updateFunnelRoute,
  createStageRoute,
  updateStageRoute,
  deleteStageRoute,
  listTasksRoute,
  createTaskRoute,
  getTaskRoute,
  updateTaskRoute,
  deleteTaskRoute,
  completeTaskRoute,
  reopenTaskRoute,
  listConversationsRoute,
  getConversationRoute,
  listConversationMessagesRoute,
  assignConversationRoute,
  closeConversationRoute,
  sendMessageRoute,
  getMessageRoute,
  listChatInstancesRoute,
  getChatInstanceRoute,
  listTemplatesRoute,
  listBroadcastsRoute,
  createBroadcastRoute,
  estimateAudienceRoute,
  getBroadcastRoute,
  updateBroadcastRoute,
  deleteBroadcastRoute,
  launchBroadcastRoute,
  scheduleBroadcastRoute,
  pauseBroadcastRoute,
  resumeBroadcastRoute,
  cancelBroadcastRoute,
  listRecipientsRoute,
  listAgentsRoute,
  createAgentRoute,
  listRunsRoute,
  getRunRoute,
  getAgentRoute,
  replaceAgentRoute,
  patchAgentRoute,
  deleteAgentRoute,
  activateAgentRoute,
  deactivateAgentRoute,
  listWebhooksRoute,
  createWebhookRoute,
  listEventTypesRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  rotateSecretRoute,
  testWebhookRoute,
  getDeliveryRoute,
  redeliverRoute,
  getMeRoute,
  listMembersRoute,
  listCustomFieldsRoute,
  listTagsRoute,
  ...messageCreditRoutes,
  // Additions after the catalogue's 97 operations (issue 26).
  batchUpsertContactsRoute,
  batchUpsertCompaniesRoute,
  listEventsRoute,
  getEventRoute,
  startReplayRoute,
  getReplayRoute,
  // API keys: the security review's finding that a leaked key could only be revoked by the operator (issue 22).
  listApiKeysRoute,
  revokeApiKeyRoute,
];
