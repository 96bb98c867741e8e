import { AppError, invalidReference } from '@crm/shared';
import type { FunnelRecord, StageRecord } from '../repository/funnel.repository';
import type { CrmDeps } from './deps';

export interface Placement {
  funnel: FunnelRecord;
  stage: StageRecord;
}

/**
 * Where a deal goes: the given funnel (or the organization's default) and the given stage of that funnel (or
 * its first stage). An archived funnel takes no new deals, moves or transfers.
 */
export async function placementFor(
  deps: Pick<CrmDeps, 'funnels'>,
  orgId: string,
  funnelId: string | undefined,
  stageId: string | undefined,
): Promise<Placement> {
  const funnel = funnelId ? await deps.funnels.getById(orgId, funnelId) : await deps.funnels.getDefault(orgId);
  if (!funnel && !funnelId) {
    throw new AppError(
      'INVALID_REFERENCE',
      'The organization has no default funnel: create one with POST /v1/funnels, or send funnel_id.',
      { field: 'funnel_id', id: null },
    );
  }
  if (!funnel) throw invalidReference('funnel_id', funnelId ?? '');
  if (funnel.is_archived)
    throw new AppError('INVALID_REFERENCE', 'The funnel is archived and takes no deals.', { field: 'funnel_id', id: funnel.id });
  return { funnel, stage: stageIn(funnel, stageId) };
}

/** A stage of this funnel (INVALID_REFERENCE otherwise), or its first stage when none is given. */
export function stageIn(funnel: FunnelRecord, stageId: string | undefined): StageRecord {
  const stage = stageId ? funnel.stages.find((candidate) => candidate.id === stageId) : funnel.stages[0];
  if (!stage) {
    throw new AppError('INVALID_REFERENCE', `stage_id is not a stage of the funnel ${funnel.id}.`, {
      field: 'stage_id',
      id: stageId ?? null,
    });
  }
  return stage;
}

/**
 * Checks every body reference before anything is written, so that a request with one bad link changes nothing:
 * contacts and the company must be live records of the organization, the assignee an active member of it.
 */
export async function checkDealLinks(
  deps: Pick<CrmDeps, 'contacts' | 'links' | 'members'>,
  orgId: string,
  links: { contact_ids?: string[] | undefined; company_id?: string | null | undefined; assigned_to?: string | null | undefined },
): Promise<void> {
  if (links.contact_ids && links.contact_ids.length > 0) {
    const found = new Set((await deps.contacts.getMany(orgId, links.contact_ids)).map((contact) => contact.id));
    const missing = links.contact_ids.find((id) => !found.has(id));
    if (missing) throw invalidReference('contact_ids', missing);
  }
  if (links.company_id && !(await deps.links.companyExists(orgId, links.company_id)))
    throw invalidReference('company_id', links.company_id);
  if (links.assigned_to && !(await deps.members.getActive(orgId, links.assigned_to))) {
    throw new AppError('INVALID_REFERENCE', 'assigned_to is not an active member of this organization.', {
      field: 'assigned_to',
      id: links.assigned_to,
    });
  }
}
