import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const taskIdParams = z.object({ id: idOf('task') });
