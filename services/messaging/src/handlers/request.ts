import type { Order } from '@crm/shared';

export { pageInfo, pageOf, requireId } from '@crm/shared';

export const orderOf = (order: string, fallback: Order = 'desc'): Order => (order === 'asc' ? 'asc' : order === 'desc' ? 'desc' : fallback);
