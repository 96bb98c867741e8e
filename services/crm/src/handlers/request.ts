import type { Order } from '@crm/shared';

export { pageInfo, pageOf, requireId } from '@crm/shared';

export const orderOf = (order: string): Order => (order === 'asc' ? 'asc' : 'desc');
