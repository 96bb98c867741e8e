import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const webhookIdParams = z.object({ id: idOf('webhook') });
export const deliveryIdParams = z.object({ deliveryId: idOf('delivery') });
