import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const contactIdParams = z.object({ id: idOf('contact') });
