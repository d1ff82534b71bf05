import { Process } from "./process.js";
import { ProcessStateInvalid } from "./process-errors.js";

/**
 * A stored process item (any shape) as the Process it holds, or undefined when there is none or
 * it belongs to another tenant or id. Shared by every adapter that reads process items, so a
 * combined read (dynamodb-process-versions-reader.ts) validates exactly like ProcessStore.get.
 */
export function parseStoredProcess(item: unknown, tenant: string, processId: string): Process | undefined {
  if (item === undefined) return undefined;
  const parsed = Process.safeParse(item);
  if (!parsed.success) throw new ProcessStateInvalid(processId, describeIssues(parsed.error.issues));
  // The key already carries the tenant; this guards against a key-building bug, not an attacker.
  if (parsed.data.tenant !== tenant || parsed.data.processId !== processId) return undefined;
  return parsed.data;
}

export const describeIssues = (issues: readonly { path: readonly PropertyKey[]; message: string }[]): string =>
  issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
