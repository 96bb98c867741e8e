import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const companyIdParams = z.object({ id: idOf('company') });
