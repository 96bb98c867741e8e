import type { KeysetPosition } from '@crm/shared';
import { CONTACT_SOURCES, idOf, isoDateTimeSchema, parseOrThrow, tagSchema } from '@crm/shared/schemas';
import { z } from 'zod';
import type { AudienceQuery } from '../repository/contact.repository';
import { viewAudienceContact, type AudienceContactView } from './audience.view';
import type { CrmDeps } from './deps';

export const AUDIENCE_TYPES = ['all', 'tags', 'contacts'] as const;
export const MAX_AUDIENCE_CONTACT_IDS = 10_000;
const DEFAULT_PAGE_SIZE = 500;

/**
 * The gRPC AudienceRequest, validated again (proto3 has no required fields, and its defaults — "", [], 0 — mean
 * "not given"). Its limits are those of the public broadcast audience.
 */
const audienceRequest = z
  .object({
    org_id: z.string().min(1, 'is required').pipe(idOf('organization')),
    type: z.enum(AUDIENCE_TYPES),
    tags: z.array(tagSchema).max(50, 'at most 50 tags'),
    tags_operator: z.enum(['', 'or', 'and']).transform((operator) => operator || 'or'),
    // Unknown, foreign or malformed ids are left out by the query, not refused (the proto's contract).
    contact_ids: z
      .array(z.string().min(1).max(64))
      .max(MAX_AUDIENCE_CONTACT_IDS, `at most ${MAX_AUDIENCE_CONTACT_IDS} contacts`)
      .transform((ids) => [...new Set(ids)]),
    has_chatapp: z.boolean().optional(),
    source: z.enum(CONTACT_SOURCES).optional(),
    created_after: isoDateTimeSchema.optional(),
    created_before: isoDateTimeSchema.optional(),
    exclude_tags: z.array(tagSchema).max(50, 'at most 50 tags'),
    page_size: z
      .number()
      .int()
      .refine((size) => size >= 0 && size <= 1_000, 'must be between 1 and 1000 (0 or absent: 500)')
      .transform((size) => size || DEFAULT_PAGE_SIZE),
  })
  .superRefine((request, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (request.type === 'tags' && request.tags.length === 0) issue('tags', 'must name at least one tag when type is tags');
    if (request.type !== 'tags' && request.tags.length > 0) issue('tags', 'is accepted only when type is tags');
    if (request.type === 'contacts' && request.contact_ids.length === 0) issue('contact_ids', 'must name at least one contact');
    if (request.type !== 'contacts' && request.contact_ids.length > 0) issue('contact_ids', 'is accepted only when type is contacts');
    const { created_after: after, created_before: before } = request;
    if (after && before && Date.parse(after) >= Date.parse(before)) issue('created_before', 'must be later than created_after');
  });

/**
 * The live contacts of an organization matching a broadcast audience, page by page, oldest first. A keyset walk:
 * each page is one bounded query, and contacts created meanwhile land after the position, never shift a page.
 */
export async function* streamAudience(deps: Pick<CrmDeps, 'contacts'>, rawRequest: unknown): AsyncGenerator<AudienceContactView[]> {
  const request = parseOrThrow(audienceRequest, rawRequest);
  const query = audienceQueryOf(request);
  let after: KeysetPosition | undefined;
  do {
    const page = await deps.contacts.audiencePage(request.org_id, query, { limit: request.page_size, after });
    if (page.items.length > 0) yield page.items.map(viewAudienceContact);
    after = page.next;
  } while (after);
}

function audienceQueryOf(request: z.infer<typeof audienceRequest>): AudienceQuery {
  const filters = {
    has_chatapp: request.has_chatapp,
    source: request.source,
    created_after: request.created_after,
    created_before: request.created_before,
    exclude_tags: request.exclude_tags,
  };
  switch (request.type) {
    case 'all':
      return { match: { type: 'all' }, ...filters };
    case 'tags':
      return { match: { type: 'tags', tags: request.tags, operator: request.tags_operator }, ...filters };
    case 'contacts':
      return { match: { type: 'contacts', ids: request.contact_ids }, ...filters };
  }
}
