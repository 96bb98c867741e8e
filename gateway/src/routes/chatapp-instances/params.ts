import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const chatInstanceIdParams = z.object({ id: idOf('chatInstance') });
