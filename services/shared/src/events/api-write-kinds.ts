import { z } from 'zod';
import * as data from './event-data';
import * as ex from './event-examples';
import { companyObject, contactObject, conversationObject, dealObject, ref, taskObject } from './event-objects';
import { api, COMPANY, CONTACT, CONVERSATION, DEAL, earlier, kind, MESSAGE, TASK } from './event-kind';

/** The 21 kinds API writes emit (catalogue §6), in the order of the public list. */
export const API_WRITE_KINDS = {
  'contact.created': kind({
    ...api,
    ...CONTACT,
    description: 'A contact was created (POST /v1/contacts, or a first message from a new address).',
    data: data.recordData(contactObject),
    example: (now) => ({ object: ex.exampleContact(now) }),
  }),
  'contact.updated': kind({
    ...api,
    ...CONTACT,
    description: 'A contact was updated (PATCH /v1/contacts/{id}); data.previous holds the old values of the changed fields.',
    data: data.changeData(contactObject, data.changedFields),
    example: (now) => ({ object: ex.exampleContact(now), previous: { tags: ['lead'], updated_at: earlier(now) } }),
  }),
  'contact.deleted': kind({
    ...api,
    ...CONTACT,
    description: 'A contact was deleted (DELETE /v1/contacts/{id}).',
    data: data.deletedData('contact'),
    example: () => ({ object: { id: ex.EXAMPLE_IDS.contact } }),
  }),
  'contact.tag.added': kind({
    ...api,
    ...CONTACT,
    description: 'A tag was added to a contact.',
    data: data.tagData,
    example: () => ({ contact: ex.MARIA, tag: 'vip' }),
  }),
  'contact.tag.removed': kind({
    ...api,
    ...CONTACT,
    description: 'A tag was removed from a contact.',
    data: data.tagData,
    example: () => ({ contact: ex.MARIA, tag: 'lead' }),
  }),
  'contact.note.added': kind({
    ...api,
    ...CONTACT,
    description: 'A note was created on a contact.',
    data: data.contactNoteData,
    example: (now) => ({ note: ex.exampleNote(now), contact_id: ex.EXAMPLE_IDS.contact }),
  }),
  'company.created': kind({
    ...api,
    ...COMPANY,
    description: 'A company was created.',
    data: data.recordData(companyObject),
    example: (now) => ({ object: ex.exampleCompany(now) }),
  }),
  'company.updated': kind({
    ...api,
    ...COMPANY,
    description: 'A company was updated; data.previous holds the old values of the changed fields.',
    data: data.changeData(companyObject, data.changedFields),
    example: (now) => ({ object: ex.exampleCompany(now), previous: { name: 'Padaria Central Ltda', updated_at: earlier(now) } }),
  }),
  'company.deleted': kind({
    ...api,
    ...COMPANY,
    description: 'A company was deleted.',
    data: data.deletedData('company'),
    example: () => ({ object: { id: ex.EXAMPLE_IDS.company } }),
  }),
  'deal.created': kind({
    ...api,
    ...DEAL,
    description: 'A deal was created.',
    data: data.recordData(dealObject),
    example: (now) => ({ object: ex.exampleDeal(now) }),
  }),
  'deal.updated': kind({
    ...api,
    ...DEAL,
    description: 'A deal was updated or its status changed (won, lost, reopened); data.previous holds the old values.',
    data: data.changeData(dealObject, data.changedFields),
    example: (now) => ({ object: ex.exampleDeal(now), previous: { value: 4200, updated_at: earlier(now) } }),
  }),
  'deal.deleted': kind({
    ...api,
    ...DEAL,
    description: 'A deal was deleted.',
    data: data.deletedData('deal'),
    example: () => ({ object: { id: ex.EXAMPLE_IDS.deal } }),
  }),
  'deal.assigned': kind({
    ...api,
    ...DEAL,
    description: 'The assigned_to of a deal changed; data.previous.assigned_to is the former assignee (or null).',
    data: data.changeData(dealObject, data.assigneeChange),
    example: (now) => ({ object: ex.exampleDeal(now), previous: { assigned_to: null } }),
  }),
  'deal.stage.changed': kind({
    ...api,
    ...DEAL,
    description: 'A deal moved to another stage of its pipeline; data.previous.stage is the stage it left.',
    data: data.changeData(dealObject, z.object({ stage: ref('stage') })),
    example: (now) => ({
      object: ex.exampleDeal(now),
      previous: { stage: { id: ex.EXAMPLE_IDS.previousStage, name: 'Qualified' } },
    }),
  }),
  'deal.pipeline.transferred': kind({
    ...api,
    ...DEAL,
    description: 'A deal moved to another pipeline; data.previous holds the pipeline and stage it left.',
    data: data.changeData(dealObject, z.object({ funnel: ref('funnel'), stage: ref('stage') })),
    example: (now) => ({
      object: ex.exampleDeal(now),
      previous: {
        funnel: { id: ex.EXAMPLE_IDS.otherFunnel, name: 'Inbound' },
        stage: { id: ex.EXAMPLE_IDS.previousStage, name: 'Qualified' },
      },
    }),
  }),
  'deal.note.added': kind({
    ...api,
    ...DEAL,
    description: 'A note was created on a deal.',
    data: data.dealNoteData,
    example: (now) => ({ note: ex.exampleNote(now), deal_id: ex.EXAMPLE_IDS.deal }),
  }),
  'task.created': kind({
    ...api,
    ...TASK,
    description: 'A task was created.',
    data: data.recordData(taskObject),
    example: (now) => ({ object: ex.exampleTask(now) }),
  }),
  'task.completed': kind({
    ...api,
    ...TASK,
    description: 'A task was completed.',
    data: data.recordData(taskObject),
    example: (now) => ({ object: { ...ex.exampleTask(now), status: 'completed' as const, completed_at: now.toISOString() } }),
  }),
  'conversation.assigned': kind({
    ...api,
    ...CONVERSATION,
    description: 'A conversation was assigned to a member; data.previous.assigned_to is the former assignee (or null).',
    data: data.changeData(conversationObject, data.assigneeChange),
    example: (now) => ({ object: ex.exampleConversation(now), previous: { assigned_to: null } }),
  }),
  'conversation.closed': kind({
    ...api,
    ...CONVERSATION,
    description: 'A conversation was closed.',
    data: data.recordData(conversationObject),
    example: (now) => ({ object: { ...ex.exampleConversation(now), status: 'closed' as const, closed_at: now.toISOString() } }),
  }),
  'message.sent': kind({
    ...api,
    ...MESSAGE,
    description: 'A message left: sent through the API, a broadcast, an AI agent or typed on the phone of a QR-code number.',
    data: data.messageData,
    example: (now) => ({ object: ex.exampleMessage(now, 'outbound') }),
  }),
} as const;
