/**
 * The wire shapes of API.md, as a caller sees them. Written out here rather than imported from
 * shared/ so the client stays a self-contained package a browser bundle can take whole.
 */

export type SkillSource = "USER" | "PROJECT" | "VANCE" | "RESOURCE";
export type ActivatedBy = "explicit" | "trigger" | "model" | "recipe" | "spawn";

export interface ActiveSkillRef {
  name: string;
  resolvedFromScope: SkillSource;
  oneShot: boolean;
  fromRecipe: boolean;
  activatedAt: string;
  args: string | null;
  activatedBy: ActivatedBy;
}

export interface SkillArgument {
  name: string;
  type: string;
  description?: string;
  required: boolean;
  /** Every value the argument may take, when the author listed them. */
  enum?: (string | number | boolean)[];
}

export interface SkillTrigger {
  type: "PATTERN" | "KEYWORDS";
  pattern?: string;
  keywords?: string[];
}

export interface SkillSummary {
  name: string;
  title: string;
  description: string;
  version: string;
  tags: string[];
  source: SkillSource;
  lifecycle: "sticky" | "shot";
  triggers: SkillTrigger[];
  arguments: boolean | SkillArgument[];
  run: { target: "inline" | "spawn"; recipe?: string; inherit?: string };
  argumentHint?: string;
  disableModelInvocation?: boolean;
  userInvocable?: boolean;
}

export interface ShadowedSkill {
  name: string;
  source: string;
  path: string;
  shadowedBy: string;
  reason?: string;
}

export interface SkillDetail extends SkillSummary {
  body: string;
  tools: string[];
  manualPaths: string[];
  referenceDocs: { title: string; file: string; loadMode: "INLINE" | "ON_DEMAND"; summary?: string; content?: string }[];
  activate: string[];
  deactivate: string[];
  action: string | null;
  scripts: unknown[];
  /** `digest`: `sha256:<hex>` of the file's bytes (issue 32), where the service knows it. */
  files: { path: string; size: number; digest?: string }[];
}

export interface SkillProblem {
  name: string;
  source: string;
  path: string;
  line?: number;
  message: string;
  severity?: "error" | "warning" | "info";
}

export interface DocumentProblem {
  path?: string;
  line?: number;
  message: string;
  severity?: string;
}

export interface DocumentEntry {
  path: string;
  etag: string;
  size: number;
}

export interface SavedDocument {
  path: string;
  etag: string;
  warnings: DocumentProblem[];
}

/** One stored version of a document (API.md "Author's loop"). */
export interface DocumentVersion {
  versionId: string;
  etag: string;
  lastModified: string;
  size: number;
  /** The writer's login, where the service knows it. */
  writtenBy?: string;
}

/** Activations of one skill on one UTC day, by path, and refused ones. */
export interface SkillUsageRow {
  name: string;
  source: string | null;
  day: string;
  explicit: number;
  trigger: number;
  model: number;
  recipe: number;
  spawn: number;
  refused: number;
  /** `refused` by the error code each refusal answered (`SKILL_NOT_ALLOWED`, …). */
  refusedCodes?: Record<string, number>;
}

/** `GET …/skills/search`: the best matches and how many skills matched in all. */
export interface SkillSearchResult {
  results: { name: string; description: string; source: string; score: number }[];
  total: number;
}

export interface SkillEvalsResult {
  name: string;
  precision: number;
  recall: number;
  /** How many triggers the skill has: 0 means only `/skill` or the model can activate it. */
  triggers?: number;
  /**
   * `fired`: a turn would activate the skill on the message. `blocked`: its trigger matches but a
   * turn would not activate it, in the activation ledger's words (`spawn-only`, `shot`,
   * `disabled`, `argument-missing`). `alsoFired`: the other skills a turn would activate on the
   * same message (the confusion list).
   */
  /**
   * `listed` and `searchRank` (`should` cases): whether the catalog would list the skill for the
   * message in its level's context, and its 1-based rank in skill_search (null past 20).
   */
  cases: { message: string; expected: boolean; fired: boolean; blocked?: string; alsoFired?: string[]; listed?: boolean; searchRank?: number | null }[];
  /** Cases in the evals file; `cases` holds fewer when `incomplete`. */
  totalCases?: number;
  /** The run's time budget ran out: only the first cases ran, and precision and recall are theirs. */
  incomplete?: boolean;
}

export interface DocumentBody {
  body: Uint8Array;
  etag: string | undefined;
  contentType: string | undefined;
  /** Permission bits given when it was written (e.g. 0o755 for a script); absent when none were. */
  mode?: number;
  /** The body as UTF-8 text. */
  text(): string;
}

export interface PendingMessage {
  id: string;
  sender: string;
  text: string;
  kind?: string;
  skill?: string;
  [field: string]: unknown;
}

export interface Process {
  processId: string;
  sessionId: string;
  name: string;
  recipe: string;
  projectId: string;
  activeSkills: ActiveSkillRef[];
  allowedSkillsOverride: string[] | null;
  /** Only when the recipe pins skills: skill name → versionId of its SKILL.md. */
  skillVersions?: Record<string, string>;
  locked: boolean;
  pending: PendingMessage[];
  guard: null | { type: "inline" | "script"; [field: string]: unknown };
  parentProcessId: string | null;
  children: { processId: string; name: string }[];
  status: string;
  version: number;
}

export interface SpawnInput {
  recipe: string;
  projectId: string;
  name?: string;
}

export interface ProcessSkillRequest {
  command: "ACTIVATE" | "CLEAR" | "CLEAR_ALL";
  skillName?: string;
  args?: string;
  oneShot?: boolean;
  requestId?: string;
}

export interface ActivateResult {
  activeSkills: ActiveSkillRef[];
  turnScheduled: boolean;
  spawned?: { processId: string; name: string };
}

export interface ClearResult {
  activeSkills: ActiveSkillRef[];
}

export type RequestStatus = "QUEUED" | "DONE" | "FAILED";

export interface ApiErrorBody {
  code: string;
  message: string;
  problems?: DocumentProblem[];
}

export interface RequestRecord<R = unknown> {
  requestId: string;
  status: RequestStatus;
  result?: R;
  error?: ApiErrorBody;
}

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface CatalogEntry {
  name: string;
  description: string;
  source: string;
  [field: string]: unknown;
}

export interface Catalog {
  entries: CatalogEntry[];
  omitted: string[];
  budgetChars: number;
  usedChars: number;
  [field: string]: unknown;
}

export interface ActivationEntry {
  name: string;
  outcome: "active" | "activated" | "blocked" | "not-matched";
  activatedBy?: string;
  reason?: string;
  trigger?: { type: "KEYWORDS" | "PATTERN"; index: number; keywords?: string[]; match?: string };
  /** The versionId an active skill composed at (its recipe's skillVersions). */
  pinnedVersion?: string;
}

export interface Turn {
  turnId: string;
  systemPrompt: { role: "system"; content: string }[];
  skillSection: string;
  tools: string[];
  toolSpecs: ToolSpec[];
  manualPaths: string[];
  messages: (PendingMessage & { role: "user" })[];
  activeSkills: ActiveSkillRef[];
  catalog: Catalog;
  activation: ActivationEntry[];
  [field: string]: unknown;
}

export interface ComposeInput {
  message?: string;
  context?: Record<string, unknown>;
  requestId?: string;
}

export interface CompleteInput {
  output: string;
  final?: boolean;
  requestId?: string;
}

export interface CompleteResult {
  activeSkills: ActiveSkillRef[];
  [field: string]: unknown;
}

// WebSocket frames (API.md "WebSocket frames")

export type TurnScheduledReason = "action" | "shot" | "args" | "report" | "guard";

export interface ErrorFrame {
  type: "error";
  error: ApiErrorBody;
  requestId?: string;
}

export interface ProcessSkillResultFrame {
  type: "process-skill-result";
  requestId: string;
  processId: string;
  status: RequestStatus;
  result?: unknown;
  error?: ApiErrorBody;
  truncated?: true;
}

/** A composed turn's result (API.md third round); `process-skill-result` keeps the steering results. */
export interface ProcessTurnResultFrame {
  type: "process-turn-result";
  processId: string;
  requestId: string;
  turnId: string;
  status: RequestStatus;
  result?: unknown;
  error?: ApiErrorBody;
  truncated?: true;
}

export interface SkillListResultFrame {
  type: "skill-list-result";
  projectId: string;
  processId?: string;
  requestId?: string;
  skills: SkillSummary[];
  active: ActiveSkillRef[];
  nextCursor?: string;
  truncated?: true;
  total?: number;
}

export interface ProcessTurnScheduledFrame {
  type: "process-turn-scheduled";
  processId: string;
  reason: TurnScheduledReason;
  pending: PendingMessage[];
  truncated?: true;
}

export interface ProcessSubscribedFrame {
  type: "process-subscribed";
  processId: string;
  requestId?: string;
}

export interface ProcessSkillScriptExecuteFrame {
  type: "process-skill-script-execute";
  invocationId: string;
  processId: string;
  skillName: string;
  scriptName: string;
  args: Record<string, unknown>;
  source: string;
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

export type ServerFrame =
  | ErrorFrame
  | ProcessSkillResultFrame
  | ProcessTurnResultFrame
  | SkillListResultFrame
  | ProcessTurnScheduledFrame
  | ProcessSubscribedFrame
  | ProcessSkillScriptExecuteFrame;

export type SubscriptionFrame = ServerFrame | ConnectionFrame;

export type ClientFrame =
  | ({ type: "process-skill"; processId: string } & ProcessSkillRequest)
  | { type: "process-subscribe"; processId: string; requestId?: string }
  | { type: "skill-list"; projectId: string; processId?: string; cursor?: string; requestId?: string }
  | {
      type: "process-skill-script-result";
      invocationId: string;
      result?: unknown;
      error?: { code?: string; message: string };
      logs?: unknown[];
      requestId?: string;
    };
