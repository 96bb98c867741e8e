export { pageInfo, pageOf, requireId } from '@crm/shared';
