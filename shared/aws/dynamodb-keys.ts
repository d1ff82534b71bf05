/**
 * Keys of the single table. The tenant leads every partition key, so another tenant's id
 * addresses a different item and is simply not found. Components are URI-encoded: `#` cannot
 * appear inside one, so a crafted id (e.g. a requestId `x#R#y`) cannot forge another key.
 */
const part = (value: string): string => encodeURIComponent(value);

export interface TableKey {
  pk: string;
  sk: string;
}

export const processItemKey = (tenant: string, processId: string): TableKey => ({
  pk: `T#${part(tenant)}#P#${part(processId)}`,
  sk: "PROCESS",
});

/** Sessions are per user (API.md): one partition per (tenant, user, session), so listing a session is one query. */
export const nameClaimPartition = (tenant: string, owner: string, sessionId: string): string => `T#${part(tenant)}#U#${part(owner)}#S#${part(sessionId)}`;

export const NAME_CLAIM_SORT_PREFIX = "NAME#";

export const nameClaimKey = (tenant: string, owner: string, sessionId: string, name: string): TableKey => ({
  pk: nameClaimPartition(tenant, owner, sessionId),
  sk: `${NAME_CLAIM_SORT_PREFIX}${part(name)}`,
});

/** The tenant a request item's key names (the inverse of requestItemKey's first part); undefined for another key. */
export const tenantOfRequestKey = (pk: string): string | undefined => {
  const match = /^T#([^#]*)#P#[^#]*#R#[^#]*$/.exec(pk);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
};

/** requestIds are scoped to their process (API.md): the same id on two processes is two requests. */
export const requestItemKey = (tenant: string, processId: string, requestId: string): TableKey => ({
  pk: `T#${part(tenant)}#P#${part(processId)}#R#${part(requestId)}`,
  sk: "REQUEST",
});
