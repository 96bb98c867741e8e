import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const funnelIdParams = z.object({ id: idOf('funnel') });
export const stageIdParams = z.object({ id: idOf('funnel'), stageId: idOf('stage') });
