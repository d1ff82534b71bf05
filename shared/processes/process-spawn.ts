import { InvalidDocument, InvalidRequest, RecipeNotFound, type DocumentProblem } from "../errors.js";
import { validateLogin, validateProjectId, validateTenantId } from "../documents/document-path.js";
import type { RecipeLoader } from "../recipes/recipe-loader.js";
import { isRecipeName, recipeDocumentPath } from "../recipes/recipe-paths.js";
import type { Recipe } from "../recipes/recipe-schema.js";
import type { SkillResolver } from "../skills/skill-resolver.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { newProcess } from "./process.js";
import type { ActiveSkillRef, Process } from "./process.js";
import { NameTaken } from "./process-errors.js";
import { newProcessId } from "./process-ids.js";
import type { ProcessStore } from "./process-store.js";

const MAX_PROCESS_NAME_LENGTH = 128;
const MAX_SESSION_ID_LENGTH = 128;
/** Auto-naming gives up after this many taken names instead of probing a session forever. */
const MAX_NAME_INDEX_ATTEMPTS = 100;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export interface SpawnDeps {
  processes: ProcessStore;
  recipes: Pick<RecipeLoader, "load">;
  skills: Pick<SkillResolver, "resolve" | "checkPin">;
  now?: () => Date;
  ids?: { newProcessId(): string };
}

export interface SpawnRequest {
  tenant: string;
  sessionId: string;
  userId?: string | undefined;
  projectId: string;
  recipe: string;
  /** Unique in the session; absent → `<recipe>-1`, `<recipe>-2`, … (see autoName). */
  name?: string | undefined;
  /**
   * Only without `name`: `<base>-<firstIndex>`, … instead of `<recipe>-1`, … (a spawned skill
   * worker is named after its skill, §2c). The recipe is loaded once for all probed names.
   */
  autoName?: { base?: string | undefined; firstIndex?: number | undefined } | undefined;
  parentProcessId?: string | null | undefined;
  /** A deterministic id (deterministicChildId) makes a redelivered spawn return the same process. */
  processId?: string | undefined;
}

/** A session id is part of a store key (with tenant and user): bounded and printable. */
export function validateSessionId(sessionId: unknown): string {
  if (typeof sessionId !== "string" || sessionId === "" || sessionId.length > MAX_SESSION_ID_LENGTH || CONTROL.test(sessionId)) {
    throw new InvalidRequest(`Session id must be 1 to ${MAX_SESSION_ID_LENGTH} printable characters`);
  }
  return sessionId;
}

/** A caller-chosen process name: it is shown in UIs and is part of a store key. */
function validateProcessName(name: string): string {
  if (typeof name !== "string" || name.trim() === "") throw new InvalidRequest("Process name must not be empty");
  if (name.length > MAX_PROCESS_NAME_LENGTH) throw new InvalidRequest(`Process name is longer than ${MAX_PROCESS_NAME_LENGTH} characters`);
  if (name !== name.trim()) throw new InvalidRequest("Process name must not start or end with whitespace");
  if (CONTROL.test(name)) throw new InvalidRequest("Process name must not contain control characters");
  if (name.normalize("NFC") !== name) throw new InvalidRequest("Process name is not in Unicode NFC form");
  return name;
}

interface IndexedNameOptions {
  /** Where to start probing, e.g. one past the children a caller already knows (default 1). */
  firstIndex?: number;
  maxAttempts?: number;
}

/**
 * `<base>-1`, `<base>-2`, … (spec §2c): calls `tryCreate` with the next name while it throws
 * NameTaken. A collision is never a silent success: either a create succeeds under some name,
 * or the last NameTaken is thrown. Other errors end the probing at once.
 */
export async function nextIndexedName<T>(
  base: string,
  tryCreate: (name: string) => Promise<T>,
  options: IndexedNameOptions = {},
): Promise<T> {
  const first = options.firstIndex ?? 1;
  const attempts = options.maxAttempts ?? MAX_NAME_INDEX_ATTEMPTS;
  if (!Number.isSafeInteger(first) || first < 1 || !Number.isSafeInteger(attempts) || attempts < 1) {
    throw new InvalidRequest("nextIndexedName needs a positive firstIndex and maxAttempts");
  }
  let lastTaken: NameTaken | undefined;
  for (let index = first; index < first + attempts; index++) {
    try {
      return await tryCreate(`${base}-${index}`);
    } catch (error) {
      if (!(error instanceof NameTaken)) throw error;
      lastTaken = error;
    }
  }
  throw lastTaken!;
}

/** Spec §7a: the recipe's default skills become sticky `fromRecipe` entries, in recipe order. */
async function recipeSkills(skills: SpawnDeps["skills"], scope: SkillScopeContext, recipe: Recipe, at: string): Promise<ActiveSkillRef[]> {
  // The scope is recorded for the UI badge only; engines re-resolve per turn, and a skill that is
  // not visible now keeps RESOURCE (the composer skips a missing skill with a warning).
  const resolved = await Promise.all(recipe.defaultActiveSkills.map((name) => skills.resolve(scope, name)));
  return recipe.defaultActiveSkills.map((name, i) => ({
    name,
    resolvedFromScope: resolved[i]?.source ?? "RESOURCE",
    oneShot: false,
    fromRecipe: true,
    activatedAt: at,
    args: null,
    activatedBy: "recipe" as const,
  }));
}

/**
 * The recipe's version pins, each checked against the level its skill resolves from in this scope:
 * a pin to a version that level does not hold (missing, expired, another level's) or that no
 * longer validates refuses the spawn with 422 INVALID_DOCUMENT naming the recipe, so no process
 * starts on a pin it could never compose. The pins are then a snapshot like allowedSkills.
 */
async function checkedPins(
  skills: SpawnDeps["skills"],
  scope: SkillScopeContext,
  recipe: Recipe,
): Promise<Record<string, string> | undefined> {
  const pins = recipe.skillVersions;
  if (pins === undefined || Object.keys(pins).length === 0) return undefined;
  const path = recipeDocumentPath(recipe.name);
  const outcomes = await Promise.all(
    Object.entries(pins).map(async ([name, versionId]) => [name, await skills.checkPin(scope, name, versionId)] as const),
  );
  const problems: DocumentProblem[] = outcomes.flatMap(([name, outcome]) =>
    "refusal" in outcome ? [{ path, message: `skillVersions.${name}: ${outcome.refusal}`, severity: "error" as const }] : [],
  );
  if (problems.length > 0) throw new InvalidDocument(path, problems);
  return { ...pins };
}

/**
 * Creates a process for one recipe (ThinkProcessService.create of spec §7a): engine, lock and
 * skill whitelist come from the recipe as it resolves in the process scope right now — later
 * recipe edits do not reach a running process.
 */
export async function spawnProcess(deps: SpawnDeps, req: SpawnRequest): Promise<Process> {
  validateTenantId(req.tenant);
  validateProjectId(req.projectId);
  if (req.userId !== undefined) validateLogin(req.userId);
  validateSessionId(req.sessionId);
  if (req.name !== undefined) validateProcessName(req.name);
  if (req.autoName?.base !== undefined) validateProcessName(req.autoName.base);
  if (!isRecipeName(req.recipe)) throw new RecipeNotFound(String(req.recipe));

  const scope: SkillScopeContext = { tenantId: req.tenant, userId: req.userId, projectId: req.projectId };
  const recipe = await deps.recipes.load(scope, req.recipe);
  if (!recipe) throw new RecipeNotFound(req.recipe);

  const skillVersions = await checkedPins(deps.skills, scope, recipe);
  const pinnedScope = skillVersions === undefined ? scope : { ...scope, skillVersions };

  const now = deps.now?.() ?? new Date();
  const processId = req.processId ?? deps.ids?.newProcessId() ?? newProcessId(now.getTime());
  const activeSkills = await recipeSkills(deps.skills, pinnedScope, recipe, now.toISOString());

  const create = async (name: string): Promise<Process> => {
    const process = newProcess(
      {
        tenant: req.tenant,
        processId,
        sessionId: req.sessionId,
        name,
        recipe: recipe.name,
        engine: recipe.engine,
        projectId: req.projectId,
        ...(req.userId !== undefined ? { userId: req.userId } : {}),
        activeSkills,
        allowedSkillsOverride: recipe.allowedSkills === null ? null : [...recipe.allowedSkills],
        ...(skillVersions !== undefined ? { skillVersions } : {}),
        locked: recipe.locked,
        parentProcessId: req.parentProcessId ?? null,
      },
      now,
    );
    // created: false is our own earlier attempt (same id, session and name): the same spawn.
    return (await deps.processes.create(process)).process;
  };

  if (req.name !== undefined) return create(req.name);
  const firstIndex = req.autoName?.firstIndex;
  return nextIndexedName(req.autoName?.base ?? recipe.name, create, firstIndex !== undefined ? { firstIndex } : {});
}
