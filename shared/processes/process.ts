import * as z from "zod/mini";
import "../../contract/locale.js";
import type { Process as ContractProcess } from "../../contract/index.js";
import type { SkillScope } from "../documents/cascade-scope.js";

/**
 * The process state the Skills service owns (spec §5d, §7, §7a; DESIGN.md "Data").
 * One zod schema per concept: the stores validate every item they write and read with it,
 * so a bad mutation cannot persist and a corrupt item cannot leak into the domain.
 */
const IsoInstant = z.iso.datetime({ offset: true });

const SkillScopeName = z.enum(["USER", "PROJECT", "VANCE", "RESOURCE"]) satisfies z.ZodMiniType<SkillScope>;

/** API.md "Catalog and model activation": the path that made a skill active. */
export const ActivatedBy = z.enum(["explicit", "trigger", "model", "recipe", "spawn"]);
export type ActivatedBy = z.infer<typeof ActivatedBy>;

/**
 * An item stored before `activatedBy` existed: a recipe entry was put there by the recipe,
 * anything else is taken for explicit (the only other sticky path then; a stored trigger entry
 * lives one turn, so a guess of "explicit" is wrong for at most that turn).
 */
const withActivatedBy = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null || Array.isArray(value) || "activatedBy" in value) return value;
  const fromRecipe = (value as { fromRecipe?: unknown }).fromRecipe === true;
  return { ...value, activatedBy: fromRecipe ? "recipe" : "explicit" };
};

/** Spec §5d `ActiveSkillRef`, field for field, plus `activatedBy` (API.md). */
export const ActiveSkillRef = z.pipe(
  z.transform(withActivatedBy),
  z.object({
    name: z.string().check(z.minLength(1)),
    resolvedFromScope: SkillScopeName,
    oneShot: z.boolean(),
    fromRecipe: z.boolean(),
    activatedAt: IsoInstant,
    /** Raw rest of the invocation line (spec §2b); null when none was given. */
    args: z.nullable(z.string()),
    activatedBy: ActivatedBy,
  }),
);

/**
 * A message waiting for the next turn. `sender` is a user login or one of the service
 * senders `_skill`, `_guard`, `_process`; each pending message is delivered in exactly one turn.
 * Texts are not capped here; the domain must cap them so the item stays under DynamoDB's
 * 400 KB (the stores reject an oversized process with `ProcessTooLarge` as a backstop).
 */
export const PendingMessage = z.object({
  id: z.string().check(z.minLength(1)),
  sender: z.string().check(z.minLength(1)),
  text: z.string(),
  kind: z.optional(z.enum(["user", "action", "shot", "guard", "report", "args"])),
  at: IsoInstant,
  skill: z.optional(z.string()),
  childProcessId: z.optional(z.string()),
});

/** Installed by the engine commands `guard inline …` / `guard script <path>`. */
export const GuardConfig = z.discriminatedUnion("type", [
  z.object({ type: z.literal("inline"), source: z.string() }),
  z.object({
    type: z.literal("script"),
    path: z.string().check(z.minLength(1)),
    /** The document layer the script is read from (pinned like a skill's siblings). */
    layer: z.optional(z.object({ source: SkillScopeName, project: z.string().check(z.minLength(1)) })),
  }),
]);

export const ProcessChild = z.object({ processId: z.string().check(z.minLength(1)), name: z.string().check(z.minLength(1)) });

/** The turn in flight: which oneShot skills it consumed and must auto-clear on completion. */
const ProcessTurn = z.object({
  turnId: z.string().check(z.minLength(1)),
  oneShotSkills: z.array(z.string()),
  /** What the turn was asked to do (`vance.guard.task`): its user message, else its consumed pending texts; capped. */
  task: z.optional(z.string()),
});

export const ProcessStatus = z.enum(["ACTIVE", "DONE", "FAILED"]);

export const Process = z.object({
  tenant: z.string().check(z.minLength(1)),
  processId: z.string().check(z.minLength(1)),
  sessionId: z.string().check(z.minLength(1)),
  /** Unique within the session (claimed by the store on create), never changed afterwards. */
  name: z.string().check(z.minLength(1)),
  recipe: z.string().check(z.minLength(1)),
  engine: z.string(),
  projectId: z.string().check(z.minLength(1)),
  userId: z.optional(z.string()),
  activeSkills: z.array(ActiveSkillRef),
  /** Snapshot of the recipe's `allowedSkills` (spec §7a): null = no restriction, [] = lockdown. */
  allowedSkillsOverride: z.nullable(z.array(z.string())),
  /** Snapshot of the recipe's `skillVersions` (issue 17): skill name → versionId of its SKILL.md. */
  skillVersions: z.optional(z.record(z.string(), z.string())),
  locked: z.boolean(),
  pending: z.array(PendingMessage),
  guard: z.nullable(GuardConfig),
  parentProcessId: z.nullable(z.string()),
  children: z.array(ProcessChild),
  status: ProcessStatus,
  mode: z.optional(z.string()),
  statusText: z.optional(z.string()),
  lastOutput: z.optional(z.string()),
  turn: z.optional(z.nullable(ProcessTurn)),
  /** The last few requestIds applied to this process, for at-most-once application (applied-requests.ts). */
  appliedRequests: z.array(z.string()),
  createdAt: IsoInstant,
  updatedAt: IsoInstant,
  /** Optimistic-concurrency counter: 1 on create, +1 on every write. */
  version: z.number().check(z.int(), z.gte(1)),
});

export type ActiveSkillRef = z.infer<typeof ActiveSkillRef>;
export type PendingMessage = z.infer<typeof PendingMessage>;
export type GuardConfig = z.infer<typeof GuardConfig>;
export type ProcessChild = z.infer<typeof ProcessChild>;
type ProcessTurn = z.infer<typeof ProcessTurn>;
export type ProcessStatus = z.infer<typeof ProcessStatus>;
export type Process = z.infer<typeof Process>;

/**
 * The `Process` object of API.md — nothing internal (tenant, engine, turn, appliedRequests…) leaks
 * out. It extends the contract's, so a mapper that drifts from API.md does not compile.
 */
interface ApiProcess extends ContractProcess {
  processId: string;
  sessionId: string;
  name: string;
  recipe: string;
  projectId: string;
  activeSkills: ActiveSkillRef[];
  allowedSkillsOverride: string[] | null;
  /** Only when the recipe pins skills: skill name → versionId. */
  skillVersions?: Record<string, string>;
  locked: boolean;
  pending: PendingMessage[];
  guard: GuardConfig | null;
  parentProcessId: string | null;
  children: ProcessChild[];
  status: ProcessStatus;
  version: number;
}

export const toApiProcess = (p: Process): ApiProcess => ({
  processId: p.processId,
  sessionId: p.sessionId,
  name: p.name,
  recipe: p.recipe,
  projectId: p.projectId,
  activeSkills: p.activeSkills.map((s) => ({ ...s })),
  allowedSkillsOverride: p.allowedSkillsOverride === null ? null : [...p.allowedSkillsOverride],
  ...(p.skillVersions !== undefined ? { skillVersions: { ...p.skillVersions } } : {}),
  locked: p.locked,
  pending: p.pending.map((m) => ({ ...m })),
  guard: p.guard === null ? null : structuredClone(p.guard),
  parentProcessId: p.parentProcessId,
  children: p.children.map((c) => ({ ...c })),
  status: p.status,
  version: p.version,
});

/**
 * The fields the metadata view leaves out, named in its `withheld`. Each can carry text derived
 * from a `_user_` document of the owner (a private skill's rendered `action:` or `activate:` in
 * `pending[].text`, the guard it installed, args a `run:` passed, a private recipe's skill list and
 * pins), and API.md says such content reaches no one but its user, not even a tenant-admin.
 */
export const WITHHELD_PROCESS_FIELDS = [
  "pending[].text",
  "guard.source",
  "guard.path",
  "guard.layer",
  "activeSkills[].args",
  "allowedSkillsOverride",
  "skillVersions",
] as const;

/** An active skill as a non-owner sees it: that it is active and how, not its args. */
export type ActiveSkillMetadata = Omit<ActiveSkillRef, "args">;

/** A pending message as a non-owner sees it: that it waits, from whom and of which kind, not what it says. */
type PendingMessageMetadata = Omit<PendingMessage, "text">;

/** `GET …/processes/{id}` for `project-admin:P` or tenant-admin when they are not the owner. */
interface ProcessMetadata extends Omit<ApiProcess, "activeSkills" | "pending" | "guard" | "allowedSkillsOverride" | "skillVersions"> {
  activeSkills: ActiveSkillMetadata[];
  pending: PendingMessageMetadata[];
  guard: { type: GuardConfig["type"] } | null;
  withheld: (typeof WITHHELD_PROCESS_FIELDS)[number][];
}

export const toActiveSkillMetadata = (ref: ActiveSkillRef): ActiveSkillMetadata => {
  const { args: _args, ...rest } = ref;
  return { ...rest };
};

/** The metadata view: built field by field from what may be shown, so a field added later stays out until it is named here. */
export const toProcessMetadata = (p: Process): ProcessMetadata => ({
  processId: p.processId,
  sessionId: p.sessionId,
  name: p.name,
  recipe: p.recipe,
  projectId: p.projectId,
  activeSkills: p.activeSkills.map(toActiveSkillMetadata),
  locked: p.locked,
  pending: p.pending.map(({ id, sender, kind, at, skill, childProcessId }) => ({
    id,
    sender,
    at,
    ...(kind !== undefined ? { kind } : {}),
    ...(skill !== undefined ? { skill } : {}),
    ...(childProcessId !== undefined ? { childProcessId } : {}),
  })),
  guard: p.guard === null ? null : { type: p.guard.type },
  parentProcessId: p.parentProcessId,
  children: p.children.map((c) => ({ ...c })),
  status: p.status,
  version: p.version,
  withheld: [...WITHHELD_PROCESS_FIELDS],
});

/** What a caller must decide when creating a process; everything else starts empty. */
type NewProcessInit = Pick<Process, "tenant" | "processId" | "sessionId" | "name" | "recipe" | "engine" | "projectId"> &
  Partial<Omit<Process, "createdAt" | "updatedAt" | "version">>;

/** A fresh ACTIVE process, version 1, with no skills, messages, guard or relatives unless given. */
export const newProcess = (init: NewProcessInit, now: Date = new Date()): Process => {
  const at = now.toISOString();
  return {
    activeSkills: [],
    allowedSkillsOverride: null,
    locked: false,
    pending: [],
    guard: null,
    parentProcessId: null,
    children: [],
    status: "ACTIVE",
    turn: null,
    appliedRequests: [],
    ...init,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
};
