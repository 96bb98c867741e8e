import { ERROR_CATALOGUE, ERROR_TYPES, idPattern, SCOPES } from '@crm/shared/core';
import type { JsonSchema } from './json-schema';

/** INSUFFICIENT_SCOPES only (spec §5). */
const SCOPE_LIST = { type: 'array', items: { type: 'string', enum: [...SCOPES] } };
const REQUEST_ID = { type: 'string', pattern: idPattern('request') };

/** The envelope parts every operation shares (spec §7, §8). */
export const COMMON_COMPONENTS: Record<string, JsonSchema> = {
  Meta: { type: 'object', required: ['request_id'], properties: { request_id: REQUEST_ID } },
  ListMeta: {
    type: 'object',
    required: ['total', 'has_more', 'request_id'],
    properties: {
      total: { type: 'integer', minimum: 0, description: "Approximate count of the organization's records without filters" },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string', minLength: 1, description: 'Omitted on the last page; opaque: send it back as it is' },
      request_id: REQUEST_ID,
    },
  },
  Error: {
    type: 'object',
    required: ['error', 'meta'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message'],
        properties: {
          type: { type: 'string', enum: ERROR_TYPES, description: 'The class of the error, from its HTTP status' },
          code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
          required_scopes: SCOPE_LIST,
          missing_scopes: SCOPE_LIST,
          your_scopes: SCOPE_LIST,
        },
      },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  },
};
