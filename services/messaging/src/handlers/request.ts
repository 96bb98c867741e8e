export { oneOf, orderOf, pageInfo, pageOf, requireId, sortedPageOf } from '@crm/shared';
