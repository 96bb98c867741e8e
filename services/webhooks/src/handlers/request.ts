export { oneOf, pageInfo, pageOf, requireId } from '@crm/shared';
