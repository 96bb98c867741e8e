import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const conversationIdParams = z.object({ id: idOf('conversation') });
