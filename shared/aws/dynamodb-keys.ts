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

export const nameClaimKey = (tenant: string, sessionId: string, name: string): TableKey => ({
  pk: `T#${part(tenant)}#S#${part(sessionId)}`,
  sk: `NAME#${part(name)}`,
});

/** requestIds are scoped to their process (API.md): the same id on two processes is two requests. */
export const requestItemKey = (tenant: string, processId: string, requestId: string): TableKey => ({
  pk: `T#${part(tenant)}#P#${part(processId)}#R#${part(requestId)}`,
  sk: "REQUEST",
});
