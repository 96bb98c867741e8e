import { ERROR_CATALOGUE } from '@crm/shared/core';
import type { JsonSchema } from './json-schema';

/** The envelope parts every operation shares (spec §7, §8). */
export const COMMON_COMPONENTS: Record<string, JsonSchema> = {
  Meta: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string' } } },
  ListMeta: {
    type: 'object',
    required: ['total', 'has_more', 'request_id'],
    properties: {
      total: { type: 'integer', description: "Approximate count of the organization's records without filters" },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string', description: 'Omitted on the last page' },
      request_id: { type: 'string' },
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
          type: { type: 'string' },
          code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
          required_scopes: { type: 'array', items: { type: 'string' } },
          missing_scopes: { type: 'array', items: { type: 'string' } },
          your_scopes: { type: 'array', items: { type: 'string' } },
        },
      },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  },
};
