import { newId } from '@crm/shared';
import type { CompanyRecord } from '../../services/crm/src/repository/company.repository';
import type { ContactRecord } from '../../services/crm/src/repository/contact.repository';
import type { DealRecord } from '../../services/crm/src/repository/deal.repository';
import type { FunnelRecord } from '../../services/crm/src/repository/funnel.repository';
import type { NoteRecord } from '../../services/crm/src/repository/note.repository';
import type { TaskRecord } from '../../services/crm/src/repository/task.repository';

/** Complete CRM records for the integration tier, with what a test names overriding the defaults. */
const stamps = (at = new Date()) => ({ created_at: at, updated_at: at });

export const dealRecord = (orgId: string, fields: Partial<DealRecord> = {}): DealRecord => ({
  id: newId('deal'),
  org_id: orgId,
  title: 'Deal',
  description: null,
  value: 100,
  currency: 'USD',
  status: 'open',
  funnel_id: 'fn_1',
  stage_id: 'st_1',
  contact_ids: [],
  company_id: null,
  assigned_to: null,
  expected_close_date: null,
  probability: null,
  lost_reason: null,
  closed_at: null,
  tags: [],
  custom_fields: {},
  deleted_at: null,
  ...stamps(),
  ...fields,
});

export const companyRecord = (orgId: string, fields: Partial<CompanyRecord> = {}): CompanyRecord => ({
  id: newId('company'),
  org_id: orgId,
  name: 'Acme',
  email: null,
  phone: null,
  website: null,
  sector: null,
  size: null,
  city: null,
  state: null,
  assigned_to: null,
  tags: [],
  custom_fields: {},
  deleted_at: null,
  ...stamps(),
  ...fields,
});

export const noteRecord = (
  orgId: string,
  parent: { contact_id: string } | { deal_id: string },
  fields: Partial<NoteRecord> = {},
): NoteRecord => ({
  id: newId('note'),
  org_id: orgId,
  ...parent,
  content: 'Note',
  color: 'yellow',
  category: 'general',
  deleted_at: null,
  ...stamps(),
  ...fields,
});

export const taskRecord = (orgId: string, fields: Partial<TaskRecord> = {}): TaskRecord => ({
  id: newId('task'),
  org_id: orgId,
  title: 'Task',
  description: null,
  type: 'call',
  priority: 'medium',
  status: 'open',
  due_at: null,
  completed_at: null,
  assigned_to: null,
  contact_id: null,
  deal_id: null,
  company_id: null,
  deleted_at: null,
  ...stamps(),
  ...fields,
});

export const funnelRecord = (orgId: string, fields: Partial<FunnelRecord> = {}): FunnelRecord => ({
  id: newId('funnel'),
  org_id: orgId,
  name: 'Sales',
  position: 1,
  default_at: null,
  is_archived: false,
  stages: [],
  ...stamps(),
  ...fields,
});

export const contactRecord = (orgId: string, fields: Partial<ContactRecord> = {}): ContactRecord => {
  const at = fields.created_at ?? new Date();
  return {
    id: newId('contact'),
    org_id: orgId,
    name: 'Ada',
    email: null,
    phone: null,
    photoapp_username: null,
    chatapp_jid: null,
    socialmsg_psid: null,
    socialmsg_name: null,
    source: 'api',
    avatar_url: null,
    company_id: null,
    tags: [],
    custom_fields: {},
    funnel_stage: null,
    last_message_at: null,
    messages_count: 0,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    ...fields,
  };
};
