import { createHash } from "node:crypto";
import type { LaneMessage } from "./lane-message.js";

/**
 * SQS MessageGroupId / MessageDeduplicationId: at most 128 characters from printable ASCII.
 * Everything that does not fit is replaced by a digest, so the ids stay deterministic.
 */
const SQS_ID_PATTERN = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/**
 * The lane of a process is `<tenant>#<processId>`. processIds are random, but the tenant
 * prefix means a caller naming another tenant's processId in its own tenant never shares (and
 * so can never delay) that process's lane. Raw ids contain exactly one `#`; digests contain
 * none, so the two forms cannot collide.
 */
export function laneGroupId(tenant: string, processId: string): string {
  const raw = `${tenant}#${processId}`;
  if (!tenant.includes("#") && !processId.includes("#") && SQS_ID_PATTERN.test(raw)) {
    return raw;
  }
  return digest([tenant, processId]);
}

export function laneGroupIdOf(message: Pick<LaneMessage, "tenant" | "processId">): string {
  return laneGroupId(message.tenant, message.processId);
}

/**
 * SQS de-duplicates per queue, and requestIds may come from callers: a bare requestId would
 * let one tenant's request silently swallow another's. Scoping by tenant and process keeps
 * "same requestId on the same process → once" and nothing more.
 */
export function laneDeduplicationId(message: Pick<LaneMessage, "tenant" | "processId" | "requestId">): string {
  return digest([message.tenant, message.processId, message.requestId]);
}

function digest(parts: readonly string[]): string {
  return `sha256:${createHash("sha256").update(JSON.stringify(parts)).digest("hex")}`;
}
