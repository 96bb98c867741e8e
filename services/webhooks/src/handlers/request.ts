export { pageInfo, pageOf, requireId } from '@crm/shared';

/** Picks `value` when it is one of `allowed`; anything else means "no filter" (the gateway already refused it). */
export const oneOf = <T extends string>(allowed: readonly T[], value: string | null | undefined): T | null =>
  allowed.find((candidate) => candidate === value) ?? null;
