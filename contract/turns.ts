import * as z from "zod/mini";
import "./locale.js";
import { ActiveSkillRef, PendingMessage } from "./processes.js";

/** API.md `Turn`: what a composed turn gives the engine, and how each active skill got there. */

export const ToolSpec = z.looseObject({ name: z.string(), description: z.string(), inputSchema: z.looseObject({}) });

export const CatalogEntry = z.looseObject({ name: z.string(), description: z.string(), source: z.string() });

export const Catalog = z.looseObject({
  entries: z.array(CatalogEntry),
  omitted: z.array(z.string()),
  omittedCount: z.int(),
  budgetChars: z.int(),
  usedChars: z.int(),
  approxTokens: z.int(),
});

export const ActivationEntry = z.looseObject({
  name: z.string(),
  outcome: z.enum(["active", "activated", "blocked", "not-matched"]),
  activatedBy: z.optional(z.string()),
  reason: z.optional(z.string()),
  trigger: z.optional(
    z.looseObject({
      type: z.enum(["KEYWORDS", "PATTERN"]),
      index: z.int(),
      keywords: z.optional(z.array(z.string())),
      match: z.optional(z.string()),
    }),
  ),
  pinnedVersion: z.optional(z.string().check(z.describe("The versionId this active skill composed at (its recipe's skillVersions)"))),
});

export const Turn = z
  .looseObject({
    turnId: z.string(),
    systemPrompt: z.array(z.object({ role: z.literal("system"), content: z.string() })),
    skillSection: z.string(),
    tools: z.array(z.string()),
    toolSpecs: z.array(ToolSpec),
    manualPaths: z.array(z.string()),
    messages: z.array(PendingMessage),
    activeSkills: z.array(ActiveSkillRef),
    catalog: Catalog,
    activation: z.array(ActivationEntry),
  })
  .check(z.meta({ id: "Turn" }));

export type ToolSpec = z.infer<typeof ToolSpec>;
export type CatalogEntry = z.infer<typeof CatalogEntry>;
export type Catalog = z.infer<typeof Catalog>;
export type ActivationEntry = z.infer<typeof ActivationEntry>;
/** `messages`: the consumed pending messages, then the turn's own user message, each with role "user". */
export type Turn = z.infer<typeof Turn> & { messages: (PendingMessage & { role: "user" })[] };
