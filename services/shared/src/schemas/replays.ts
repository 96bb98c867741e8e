import { z } from 'zod';
import { isoDateTimeSchema } from './common';
import { eventTypeSchema } from './webhooks';

/** POST /v1/webhooks/{id}/replay: the stored events of [since, until) (until defaults to, and is at most, now), of some kinds. */
export const replayBody = z.strictObject({
  since: isoDateTimeSchema,
  until: isoDateTimeSchema.optional(),
  types: z.array(eventTypeSchema).min(1, 'at least one event kind when given').max(100).optional(),
});

export type ReplayBody = z.infer<typeof replayBody>;
