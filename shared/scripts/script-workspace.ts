import { InvalidRequest } from "../errors.js";
import { strictUtf8 } from "../documents/document-body.js";
import { validateDocumentPath, validateProjectId } from "../documents/document-path.js";
import type { DocumentStore } from "../documents/document-store.js";
import type { HostFunction } from "../sandbox/host-call.js";
import { WorkspaceQuotaExceeded } from "./workspace-errors.js";

/**
 * Every workspace document lives below this folder of the process's project: a reserved,
 * member-writable area (docs/decisions.md "WebSocket lifetime, render budget, workspace area").
 * A member's script writes only here, so it can never overwrite or delete a project document
 * that the member's own PUT may not touch (`workspace/…`, `_vance/…`, anything else). The
 * leading underscore keeps it apart from authors' folders, as `_vance/` is.
 */
export const WORKSPACE_PREFIX = "_workspace/";

interface WorkspaceLimits {
  /** One read or write. */
  maxCallBytes: number;
  /** Bytes read plus written by one tool invocation, nested `vance.tool` calls included. */
  maxInvocationBytes: number;
  /** Calls of `vance.workspace.*` per invocation. */
  maxOperations: number;
  maxListEntries: number;
  /** Bytes the whole workspace of one project may hold, across invocations. */
  maxProjectBytes: number;
  /** Documents the whole workspace of one project may hold. */
  maxProjectDocuments: number;
}

const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  maxCallBytes: 1024 * 1024,
  maxInvocationBytes: 8 * 1024 * 1024,
  maxOperations: 1_000,
  maxListEntries: 1_000,
  maxProjectBytes: 16 * 1024 * 1024,
  maxProjectDocuments: 1_000,
};

/**
 * What one tool invocation may still do in the workspace. One budget is shared by the whole
 * invocation tree, so a script cannot multiply its quota by calling tools that run scripts.
 */
export class WorkspaceBudget {
  private bytes = 0;
  private operations = 0;

  constructor(readonly limits: WorkspaceLimits = DEFAULT_WORKSPACE_LIMITS) {}

  /** A budget with some limits changed (tests, configuration). */
  static with(overrides: Partial<WorkspaceLimits>): WorkspaceBudget {
    return new WorkspaceBudget({ ...DEFAULT_WORKSPACE_LIMITS, ...overrides });
  }

  operation(): void {
    this.operations += 1;
    if (this.operations > this.limits.maxOperations)
      throw new WorkspaceQuotaExceeded(`vance.workspace: more than ${this.limits.maxOperations} calls in one invocation`);
  }

  transfer(bytes: number, path: string): void {
    if (bytes > this.limits.maxCallBytes)
      throw new WorkspaceQuotaExceeded(`vance.workspace: '${path}' is larger than ${this.limits.maxCallBytes} bytes`);
    if (this.bytes + bytes > this.limits.maxInvocationBytes) {
      throw new WorkspaceQuotaExceeded(
        `vance.workspace: more than ${this.limits.maxInvocationBytes} bytes read and written in one invocation`,
      );
    }
    this.bytes += bytes;
  }
}

const pathArg = (value: unknown, what: string): string => {
  if (typeof value !== "string") throw new InvalidRequest(`vance.workspace.${what}: the path must be a string`);
  try {
    return validateDocumentPath(value);
  } catch (error) {
    // Re-worded: the guest should read "workspace path", not the key rules' wording for documents.
    throw new InvalidRequest(`vance.workspace.${what}: ${(error as Error).message.replace(/^Document path/, "workspace path")}`, {
      cause: error,
    });
  }
};

/**
 * `vance.workspace.read/write/list/delete` (spec §13.4): the project workspace of the process,
 * `_workspace/…` documents of its project, through the DocumentStore port (S3 on AWS). Paths are
 * relative to the workspace and checked with the document key rules — no `..`, no leading `/`,
 * no backslash, nothing that could leave the prefix — and never normalized.
 */
export class ScriptWorkspace {
  private readonly project: string;

  constructor(
    private readonly store: DocumentStore,
    private readonly tenant: string,
    projectId: string,
    private readonly budget: WorkspaceBudget,
  ) {
    this.project = validateProjectId(projectId);
  }

  /** The document text, or null when there is none. */
  async read(path: string): Promise<string | null> {
    this.budget.operation();
    const doc = await this.store.get(this.tenant, this.project, WORKSPACE_PREFIX + path);
    if (!doc) return null;
    this.budget.transfer(doc.body.byteLength, path);
    const text = strictUtf8(doc.body);
    if (text === undefined) throw new InvalidRequest(`vance.workspace.read: '${path}' is not UTF-8 text`);
    return text;
  }

  async write(path: string, content: string): Promise<{ path: string; size: number }> {
    this.budget.operation();
    const bytes = Buffer.byteLength(content, "utf8");
    this.budget.transfer(bytes, path);
    await this.assertProjectQuota(path, bytes);
    await this.store.put(this.tenant, this.project, WORKSPACE_PREFIX + path, content, "text/plain; charset=utf-8");
    return { path, size: bytes };
  }

  /**
   * The per-project quota, counted from the store's listing (what is there, whoever wrote it),
   * with this path's current size replaced by the new one. Two concurrent writes may both pass
   * and overshoot by one call's bytes each (at most maxCallBytes): the quota bounds growth, it
   * is not a ledger.
   */
  private async assertProjectQuota(path: string, bytes: number): Promise<void> {
    const { maxProjectBytes, maxProjectDocuments } = this.budget.limits;
    const refs = await this.store.list(this.tenant, this.project, WORKSPACE_PREFIX);
    const key = WORKSPACE_PREFIX + path;
    const others = refs.filter((ref) => ref.path !== key);
    const used = others.reduce((sum, ref) => sum + ref.size, 0);
    if (used + bytes > maxProjectBytes) {
      throw new WorkspaceQuotaExceeded(
        `vance.workspace.write: the project's workspace would exceed ${maxProjectBytes} bytes (${used} used); delete documents first`,
      );
    }
    if (others.length + 1 > maxProjectDocuments) {
      throw new WorkspaceQuotaExceeded(`vance.workspace.write: the project's workspace holds at most ${maxProjectDocuments} documents`);
    }
  }

  /** Documents below `folder` (or the whole workspace), paths relative to the workspace, by path. */
  async list(folder: string | undefined): Promise<{ entries: { path: string; size: number }[]; truncated: boolean }> {
    this.budget.operation();
    const prefix = WORKSPACE_PREFIX + (folder === undefined ? "" : `${folder}/`);
    const refs = await this.store.list(this.tenant, this.project, prefix);
    const max = this.budget.limits.maxListEntries;
    return {
      entries: refs.slice(0, max).map((ref) => ({ path: ref.path.slice(WORKSPACE_PREFIX.length), size: ref.size })),
      truncated: refs.length > max,
    };
  }

  async delete(path: string): Promise<boolean> {
    this.budget.operation();
    return this.store.delete(this.tenant, this.project, WORKSPACE_PREFIX + path);
  }

  /** The guest-facing functions: argument checks here, so the methods above take checked values. */
  bindings(): Record<"read" | "write" | "list" | "delete", HostFunction> {
    return {
      read: ([path]) => this.read(pathArg(path, "read")),
      write: ([path, content]) => {
        const checked = pathArg(path, "write");
        if (typeof content !== "string") throw new InvalidRequest("vance.workspace.write: the content must be a string");
        return this.write(checked, content);
      },
      list: async ([folder]) => {
        const listing = await this.list(folder === undefined || folder === null || folder === "" ? undefined : pathArg(folder, "list"));
        return listing.entries;
      },
      delete: ([path]) => this.delete(pathArg(path, "delete")),
    };
  }
}
