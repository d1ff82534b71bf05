import type { DocumentProblem } from "../errors.js";
import type { SkillFile } from "./skill-files.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import type { SkillArgument, SkillReferenceDoc, SkillRun, SkillScript, SkillTrigger } from "./skill-frontmatter.js";

/** A SKILL.md after parsing and validation, defaults applied, before it is placed in the cascade. */
export interface SkillDefinition {
  name: string;
  title: string;
  description: string;
  /** Absent in Agent Skills documents: reported as absent, never invented. */
  version: string | undefined;
  /** Claude Code `when_to_use`: appended to the description in the catalog. */
  whenToUse: string | undefined;
  /** Claude Code `argument-hint`, shown in pickers. */
  argumentHint: string | undefined;
  /** Agent Skills `compatibility` (informational). */
  compatibility: string | undefined;
  /** `disable-model-invocation`: never a catalog candidate. */
  disableModelInvocation: boolean;
  /** `user-invocable` (default true): false refuses explicit activation and hides the skill from `skill-list` and prompts. */
  userInvocable: boolean;
  triggers: SkillTrigger[];
  /** Tool names: `tools` and the names of `allowed-tools` entries (the part before a `(`). */
  tools: string[];
  /** `allowed-tools` entries as written (`Bash(git add:*)`), for engines that enforce permission patterns. */
  allowedToolPatterns: string[];
  /** The body is a nunjucks template (the `template` field, default: title or version given). */
  template: boolean;
  /** Sanitized: no `..`, no leading `/`, backslashes turned into `/`. */
  manualPaths: string[];
  referenceDocs: SkillReferenceDoc[];
  tags: string[];
  enabled: boolean;
  lifecycle: "sticky" | "shot";
  run: Required<Pick<SkillRun, "target">> & Omit<SkillRun, "target">;
  /** `false` when the skill does not consume the rest of the line (spec §2b). */
  arguments: true | false | SkillArgument[];
  activate: string[];
  deactivate: string[];
  action?: string | undefined;
  scripts: SkillScript[];
  license?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** The promptExtension (Markdown after the frontmatter), possibly empty. */
  body: string;
  /**
   * What relevance indexes of the body (skill-search-text.ts): headings, tool names, first words;
   * bounded, derived at parse time so search never needs the body. Absent when there is nothing.
   */
  searchText?: string | undefined;
}

/** Where a resolved skill came from: the layer every sibling file is read from (layer pinning). */
export interface SkillLocation {
  source: SkillScope;
  /** Document project of that layer: a project id, `_tenant`, `_user_<login>`, or `bundled`. */
  project: string;
  /** Path of the skill directory relative to the project, e.g. `_vance/skills/code-review`. */
  directory: string;
  etag?: string | undefined;
  /** Set when a recipe pin composed this version of SKILL.md instead of the newest (issue 17). */
  versionId?: string | undefined;
}

export interface ResolvedReferenceDoc extends SkillReferenceDoc {
  /** Loaded for INLINE docs only; ON_DEMAND docs are read on request from the same layer. */
  content?: string | undefined;
}

export interface ResolvedSkill extends Omit<SkillDefinition, "referenceDocs"> {
  source: SkillScope;
  location: SkillLocation;
  referenceDocs: ResolvedReferenceDoc[];
  /** Non-fatal findings (unknown fields, triggers on a spawn skill, a missing reference file…). */
  warnings: DocumentProblem[];
  /**
   * Every file of the skill directory in the layer of its SKILL.md (layer pinning), SKILL.md
   * excluded, relative to the directory, sorted, capped (skill-files.ts). Always set by the loader;
   * optional so skills built by hand (tests, benches) need not name it.
   */
  files?: readonly SkillFile[];
}

/**
 * A skill as a listing (SkillLoader.listAvailable) hands it out: every field of ResolvedSkill, but
 * the body and the INLINE reference contents only when they were read. A catalogue serves
 * listings from level snapshots, which keep neither (they are read when a skill is active):
 * SkillLoader.complete gives the whole skill. A ResolvedSkill is a ListedSkill.
 */
export type ListedSkill = Omit<ResolvedSkill, "body"> & { body?: string | undefined };

/** A skill with its body (a ListedSkill from a snapshot has none; INLINE contents come with the body). */
export const isComplete = (skill: ListedSkill): skill is ResolvedSkill => typeof skill.body === "string";

/**
 * A finding of GET …/skills/problems: a document the cascade skipped and why (`error`), a
 * deviation of a skill that loads (`warning`, API.md "Agent Skills documents"), or a document an
 * inner level hides (`info`, API.md "Explainable activation").
 */
export interface SkillProblem {
  name: string;
  source: SkillScope;
  path: string;
  line?: number | undefined;
  message: string;
  severity?: "error" | "warning" | "info" | undefined;
}
