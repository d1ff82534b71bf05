import { inert, terminal } from "./terminal-text.js";
import { parseArgs } from "node:util";
import type { ParseArgsConfig } from "node:util";
import { InvalidRequest } from "../shared/errors.js";
import { httpDocumentsApi } from "./documents-client.js";
import { runChatCommand } from "./chat-command.js";
import { pulledFileLine, runPull } from "./pull.js";
import { runPush } from "./push.js";
import { formatPushSummary, pushExitCode } from "./push-report.js";
import { parseLevelTarget, resolveRemote } from "./remote-target.js";
import { renderSkill, renderTarget } from "./render.js";
import { runTokenCommand } from "./token.js";
import { evalExitCode, formatEvalReport, runEvals } from "./eval.js";
import { fetchUsage, formatUsage } from "./usage-client.js";
import { fetchSearch, formatSearch } from "./search-client.js";
import { COMMAND_USAGE, isCommandName, USAGE } from "./usage.js";
import type { CommandName } from "./usage.js";
import { formatValidationLine, validateSkillReport, validationJson } from "./validate.js";
import { formatRuleCount, ruleSummary } from "./validate-summary.js";
import { LevelRootError, parseLevelRoots, validateLevelReport } from "./validate-levels.js";
import { historyLines } from "./version-history.js";

/** A mistake on the command line: the message and that command's usage, exit 2. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

function parse<O extends Options>(command: CommandName, args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { ...options, help: { type: "boolean" } } });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}

const REMOTE_OPTIONS = { url: { type: "string" }, token: { type: "string" } } as const;

async function remote(
  command: CommandName,
  value: string | undefined,
  flag: string,
  flags: { url?: string | undefined; token?: string | undefined },
) {
  try {
    return await resolveRemote(parseLevelTarget(value, flag), flags);
  } catch (error) {
    if (error instanceof InvalidRequest) throw new UsageError(error.message, command);
    throw error;
  }
}

// Every line a command prints may hold service text: all of it goes through terminal-text.ts.
const stdio = terminal;

async function validate(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("validate", rest, {
    "errors-only": { type: "boolean" },
    verbose: { type: "boolean", short: "v" },
    format: { type: "string" },
    level: { type: "string", multiple: true },
  });
  if (values.help) return help("validate");
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") throw new UsageError(`--format must be text or json, got '${String(format)}'`, "validate");
  const levelValues = values.level ?? [];
  if (levelValues.length > 0 && positionals.length > 0)
    throw new UsageError("validate takes directories or --level <name>=<dir>, not both", "validate");
  if (positionals.length === 0 && levelValues.length === 0) throw new UsageError("validate needs at least one directory", "validate");
  const levels = levelRoots(levelValues);
  const report = levels.length > 0 ? await validateLevelReport(levels) : await validateSkillReport(positionals);
  const errors = report.lines.filter((l) => l.severity === "error").length;
  const infos = report.lines.filter((l) => l.severity === "info").length;
  // Infos change nothing (a missing title:): counted always, listed only when asked for.
  const shown = report.lines.filter((l) =>
    values["errors-only"] ? l.severity === "error" : l.severity !== "info" || l.listed || values.verbose,
  );
  const rules = ruleSummary(report.lines);
  if (format === "json") terminal.out(validationJson(report, shown, rules));
  else for (const line of shown) terminal.out(formatValidationLine(line));
  if (report.skills === 0) {
    terminal.err(`no SKILL.md found below ${(levels.length > 0 ? levels.map((l) => l.dir) : positionals).join(", ")}`);
    return 1;
  }
  const unlisted = report.lines.some((l) => l.severity === "info" && !l.listed);
  const hidden = unlisted && !values.verbose && !values["errors-only"] ? " (not listed; --verbose lists them)" : "";
  const counts = `${errors} error(s), ${report.lines.length - errors - infos} warning(s), ${infos} info${hidden}`;
  terminal.err(`${report.skills} skill(s) checked${levels.length > 0 ? ` in ${levels.length} level(s)` : ""}: ${counts}`);
  if (format === "text" && rules.length > 0) {
    const width = String(Math.max(...rules.map((r) => r.count))).length;
    terminal.err("by rule:");
    for (const rule of rules) terminal.err(formatRuleCount(rule, width));
  }
  return errors > 0 ? 1 : 0;
}

function levelRoots(values: readonly string[]) {
  try {
    return parseLevelRoots(values);
  } catch (error) {
    if (error instanceof LevelRootError) throw new UsageError(error.message, "validate");
    throw error;
  }
}

async function render(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("render", rest, { args: { type: "string" }, set: { type: "string", multiple: true } });
  if (values.help) return help("render");
  const target = renderTarget(positionals);
  if (!target) throw new UsageError("render needs a skill folder (a directory holding SKILL.md) or <skills-root> <name>", "render");
  const { section, warnings } = await renderSkill({ ...target, args: values.args, set: values.set ?? [] });
  for (const warning of warnings) terminal.err(`warning: ${warning}`);
  process.stdout.write(`${inert(section)}\n`);
  return 0;
}

async function push(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("push", rest, {
    ...REMOTE_OPTIONS,
    to: { type: "string" },
    "dry-run": { type: "boolean" },
    concurrency: { type: "string" },
  });
  if (values.help) return help("push");
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw new UsageError("push needs exactly one folder", "push");
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)) {
    throw new UsageError(`--concurrency must be an integer from 1 to 64, got '${values.concurrency}'`, "push");
  }
  const dryRun = values["dry-run"] === true;
  const target = dryRun && values.to === undefined ? undefined : await remote("push", values.to, "--to", values);
  const summary = await runPush({ dir, dryRun, concurrency, io: stdio, ...(target && !dryRun ? { api: httpDocumentsApi(target) } : {}) });
  if (summary.skills === 0) terminal.err(`no SKILL.md found below ${dir}`);
  for (const line of formatPushSummary(summary, target ? `${target.tenant}/${target.level}` : "", dryRun)) terminal.out(line);
  return pushExitCode(summary);
}

async function pull(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("pull", rest, { ...REMOTE_OPTIONS, from: { type: "string" } });
  if (values.help) return help("pull");
  // API.md: `skills pull <tenant>/<level> <dir>`; `--from <tenant>/<level> <dir>` too.
  const [first, second, ...extra] = positionals;
  const [from, dir] = values.from !== undefined ? [values.from, first] : [first, second];
  if (dir === undefined || extra.length > 0 || (values.from !== undefined && second !== undefined)) {
    throw new UsageError("pull needs <tenant>/<level> and exactly one folder", "pull");
  }
  const target = await remote("pull", from, values.from !== undefined ? "--from" : "<tenant>/<level>", values);
  const summary = await runPull({ dir, api: httpDocumentsApi(target), io: stdio });
  for (const file of summary.files) terminal.out(pulledFileLine(file));
  for (const failure of summary.failed) terminal.err(`error: ${failure.path}: ${failure.reason}`);
  terminal.out(
    `pulled ${summary.written} file(s) of ${summary.skills} skill(s) from ${target.tenant}/${target.level} into ${dir}; ${summary.failed.length} failed`,
  );
  return summary.failed.length > 0 ? 1 : 0;
}

async function chat(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("chat", rest, {
    ...REMOTE_OPTIONS,
    project: { type: "string" },
    name: { type: "string" },
    process: { type: "string" },
    recipe: { type: "string" },
    session: { type: "string" },
    tenant: { type: "string" },
    "ws-url": { type: "string" },
    workdir: { type: "string" },
    show: { type: "string" },
  });
  if (values.help) return help("chat");
  if (positionals.length > 0) throw new UsageError(`chat takes no positional arguments, got '${positionals[0]}'`, "chat");
  try {
    return await runChatCommand(values);
  } catch (error) {
    if (error instanceof InvalidRequest) throw new UsageError(error.message, "chat");
    throw error;
  }
}

async function usage(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("usage", rest, {
    ...REMOTE_OPTIONS,
    days: { type: "string" },
    name: { type: "string" },
    format: { type: "string" },
  });
  if (values.help) return help("usage");
  const [where, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError("usage needs exactly one <tenant>/<project>", "usage");
  const days = values.days === undefined ? 30 : Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 400)
    throw new UsageError(`--days must be an integer from 1 to 400, got '${values.days}'`, "usage");
  const target = await remote("usage", where, "<tenant>/<project>", values);
  const { usage: rows, truncated } = await fetchUsage(target, days, values.name);
  if (values.format === "json") terminal.out(JSON.stringify({ usage: rows, ...(truncated ? { truncated } : {}) }, null, 2));
  else for (const line of formatUsage(rows)) terminal.out(line);
  if (truncated)
    terminal.err(
      `skills usage: the service cut the answer at ${rows.length} rows; the oldest days are left out (ask for fewer --days or one --name)`,
    );
  return 0;
}

async function search(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("search", rest, { ...REMOTE_OPTIONS, limit: { type: "string" }, json: { type: "boolean" } });
  if (values.help) return help("search");
  const [where, ...words] = positionals;
  const query = words.join(" ");
  if (query.trim() === "") throw new UsageError("search needs a <tenant>/<project> and a query", "search");
  const limit = values.limit === undefined ? 5 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 20)
    throw new UsageError(`--limit must be an integer from 1 to 20, got '${values.limit}'`, "search");
  const target = await remote("search", where, "<tenant>/<project>", values);
  const answer = await fetchSearch(target, query, limit);
  if (values.json) console.log(JSON.stringify(answer, null, 2));
  else for (const line of formatSearch(answer)) console.log(line);
  return 0;
}

/** A bare skill name stands for its SKILL.md. */
const documentPathOf = (value: string): string => (value.includes("/") ? value : `_vance/skills/${value}/SKILL.md`);

async function history(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("history", rest, REMOTE_OPTIONS);
  if (values.help) return help("history");
  const [where, doc, ...extra] = positionals;
  if (doc === undefined || extra.length > 0)
    throw new UsageError("history needs <tenant>/<level> and one skill name or document path", "history");
  const target = await remote("history", where, "<tenant>/<level>", values);
  const versions = (await httpDocumentsApi(target).versions?.(documentPathOf(doc))) ?? [];
  for (const line of historyLines(versions)) terminal.out(line);
  if (versions.length === 0) terminal.err("no versions");
  return 0;
}

async function restore(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("restore", rest, REMOTE_OPTIONS);
  if (values.help) return help("restore");
  const [where, doc, versionId, ...extra] = positionals;
  if (versionId === undefined || extra.length > 0)
    throw new UsageError("restore needs <tenant>/<level>, a skill name or document path, and a versionId", "restore");
  const target = await remote("restore", where, "<tenant>/<level>", values);
  const saved = await httpDocumentsApi(target).restore?.(documentPathOf(doc!), versionId);
  if (!saved) return 1;
  for (const warning of saved.warnings) terminal.err(`warning: ${warning.path ?? saved.path}: ${warning.message}`);
  terminal.out(`restored ${saved.path} to ${versionId} (etag ${saved.etag})`);
  return 0;
}

function threshold(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`${flag} must be a number from 0 to 1, got '${value}'`, "eval");
  return n;
}

async function evaluate(rest: readonly string[]): Promise<number> {
  const { values, positionals } = parse("eval", rest, {
    "min-recall": { type: "string" },
    "min-precision": { type: "string" },
    format: { type: "string" },
  });
  if (values.help) return help("eval");
  const [root, name, ...extra] = positionals;
  if (root === undefined || extra.length > 0) throw new UsageError("eval needs a skills root and at most one skill name", "eval");
  const thresholds = {
    minRecall: threshold(values["min-recall"], "--min-recall"),
    minPrecision: threshold(values["min-precision"], "--min-precision"),
  };
  const run = await runEvals(root, name);
  if (values.format === "json") terminal.out(JSON.stringify(run, null, 2));
  else for (const report of run.reports) for (const line of formatEvalReport(report)) terminal.out(line);
  for (const failure of run.failures) terminal.err(`error: ${failure.name}: ${failure.message}`);
  if (run.reports.length === 0 && run.failures.length === 0) terminal.err(`no skill with evals/triggers.yaml below ${root}`);
  return evalExitCode(run, thresholds);
}

function help(command?: CommandName): number {
  terminal.out(command ? COMMAND_USAGE[command] : USAGE);
  return 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "validate":
      return validate(rest);
    case "render":
      return render(rest);
    case "push":
      return push(rest);
    case "pull":
      return pull(rest);
    case "chat":
      return chat(rest);
    case "usage":
      return usage(rest);
    case "eval":
      return evaluate(rest);
    case "search":
      return search(rest);
    case "history":
      return history(rest);
    case "restore":
      return restore(rest);
    case "token":
      return rest.includes("--help") ? help("token") : runTokenCommand(rest);
    case undefined:
    case "help":
    case "--help":
      return help(isCommandName(rest[0]) ? rest[0] : undefined);
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) terminal.err(`${error.message}\n\n${error.command ? COMMAND_USAGE[error.command] : USAGE}`);
    else terminal.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
