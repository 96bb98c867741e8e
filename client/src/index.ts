export { createCrmClient, idempotencyKey, unwrap, type CrmClient, type CrmClientOptions } from './client';
export { CrmApiError, type ErrorCode, type ErrorEnvelope } from './errors';
export type { components, operations, paths } from './generated/api';
export type { RequestBody, SuccessBody } from './types';
export { items, listAll, pages, type ListItem, type ListPage, type ListParams, type ListPath } from './paginate';
