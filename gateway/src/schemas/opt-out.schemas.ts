import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

export const OptOut = component(
  'OptOut',
  z.object({
    contact: Ref,
    channel: nullable(z.enum(['chatapp', 'photoapp', 'socialmsg'])).describe('the channel a STOP came in on; null for an API opt-out'),
    source: z.enum(['keyword', 'api']).describe('keyword: the contact wrote STOP (or another opt-out word); api: POST …/opt-out'),
    keyword: nullable(z.string()),
    opted_out_at: timestamp,
  }),
  "A contact's opt-out of marketing broadcasts: the payload of contact.opted_out.",
);
