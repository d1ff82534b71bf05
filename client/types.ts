/**
 * The wire shapes of API.md, as a caller sees them: inferred from the contract's schemas
 * (contract/, `z.infer`), so the client, the service and the OpenAPI document cannot drift apart.
 * Type-only: the client carries no schema and no zod at run time.
 */
export type {
  ActivateResult,
  ActivatedBy,
  ActivationEntry,
  ActiveSkillMetadata,
  ActiveSkillRef,
  ApiErrorBody,
  Catalog,
  CatalogEntry,
  ClearResult,
  ClientFrame,
  CompleteInput,
  CompleteResult,
  ComposeInput,
  DocumentEntry,
  DocumentProblem,
  DocumentVersion,
  ErrorFrame,
  PendingMessage,
  Process,
  ProcessSkillRequest,
  ProcessSkillResultFrame,
  ProcessSkillScriptExecuteFrame,
  ProcessSubscribedFrame,
  ProcessTurnResultFrame,
  ProcessTurnScheduledFrame,
  RequestRecord,
  RequestStatus,
  SavedDocument,
  ServerFrame,
  ShadowedSkill,
  SkillArgument,
  SkillDetail,
  SkillEvalsResult,
  SkillFile,
  SkillListResultFrame,
  SkillProblem,
  SkillSearchResult,
  SkillSource,
  SkillSummary,
  SkillTrigger,
  SkillUsageRow,
  SpawnInput,
  ToolSpec,
  Turn,
  TurnContext,
  TurnScheduledReason,
} from "../contract/index.js";
import type { ServerFrame } from "../contract/index.js";

/** A document's raw body as `documents.get` reads it (not JSON, so not a contract schema). */
export interface DocumentBody {
  body: Uint8Array;
  etag: string | undefined;
  contentType: string | undefined;
  /** Permission bits given when it was written (e.g. 0o755 for a script); absent when none were. */
  mode?: number;
  /** The body as UTF-8 text. */
  text(): string;
}

/**
 * Not sent by the service: the subscription's own news about its socket, in the same stream so
 * a UI can show "reconnecting…" where the frames are. `attempt` counts reconnects since the last open.
 */
export interface ConnectionFrame {
  type: "connection";
  state: "open" | "reconnecting" | "closed";
  attempt: number;
  /** The WebSocket close code that caused the change, when there was one. */
  closeCode?: number;
  reason?: string;
}

export type SubscriptionFrame = ServerFrame | ConnectionFrame;
