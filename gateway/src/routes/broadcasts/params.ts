import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const broadcastIdParams = z.object({ id: idOf('broadcast') });

/** The checks a launch runs (#64), also run by schedule (#65); resume (#67) runs the connection and warm-up ones. */
export const LAUNCH_ERRORS = [
  'INVALID_STATUS',
  'MIXED_PROVIDERS',
  'MISSING_MESSAGE',
  'MISSING_CLOUD_TEMPLATE',
  'TEMPLATE_NOT_APPROVED',
  'WARMUP_LIMIT_EXCEEDED',
  'CHANNEL_DISCONNECTED',
] as const;
