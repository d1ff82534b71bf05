import { ENV } from "../shared/config/config.js";
import { TOKEN_USAGE } from "./token.js";

/** One usage text per subcommand (`skills <command> --help`), and the overview they make up. */
export const COMMAND_USAGE = {
  validate: `usage: skills validate <dir>... [--errors-only] [--verbose] [--format text|json]
       skills validate --level <name>=<dir> [--level <name>=<dir> ...] [--errors-only] [--verbose] [--format text|json]
  Validates every SKILL.md below each path with the service's own parser and prints each problem
  as path:line: severity: message, sorted by path then line, then how many skills it checked and
  how often each rule fired. Severities: error (the skill is refused), warning (it loads, but
  behaves differently than written or looks like a mistake), info (changes nothing, e.g. the
  title: or version: Agent Skills documents do not have). No SKILL.md found is an error. Exit 1
  on any error.
  --verbose, -v        list info lines too (they are always counted)
  --level name=dir     check the folders as levels of one cascade, inner first (e.g. --level user=./u
                       --level project=./p --level tenant=./t): a skill name in several levels gets
                       info lines, "shadows tenant/<name>/SKILL.md" on the one the service would use
  --errors-only        print errors only (warnings and info are still counted)
  --format json        print {skills, count, problems:[{path, line?, severity, message}], rules:[{rule, severity, count}]}`,
  render: `usage: skills render <skill-folder> [--args "…"] [--set key=value ...]
       skills render <skills-root> <name> [--args "…"] [--set key=value ...]
  Prints the composed skill section of one skill, as a turn would carry it.
  --args "…"           the raw rest of the line, as after /skill <name>
  --set key=value      render context: tier, model, provider, mode, profile, recipe, engine, lang, params.<key>`,
  push: `usage: skills push <dir> --to <tenant>/<level> [--url URL] [--token T] [--dry-run] [--concurrency N]
  Uploads every skill below <dir> (each directory holding a SKILL.md, named by its directory) to
  _vance/skills/<name>/… of the level: a project id, _tenant or _user_<login>. Validates every skill
  first; a refused skill is not uploaded at all. Files whose ETag already matches are skipped.
  --url URL            the service (default: $${ENV.cliUrl})
  --token T            bearer token (default: $${ENV.cliToken}; prefer the variable)
  --dry-run            validate and plan only; no request is made
  --concurrency N      requests at once (default 8)`,
  pull: `usage: skills pull <tenant>/<level> <dir> [--url URL] [--token T]   (or --from <tenant>/<level> <dir>)
  Writes every document of the level below _vance/skills/ to <dir>/<name>/…, byte for byte.
  Files already in <dir> that the level does not hold are left alone.
  Prints one line per file written, "sha256:<hex> <bytes> <name>/<path>" (the digests the skill
  detail and MCP hosts see; an MCP host sees a SKILL.md without name: with that line added).
  --url URL            the service (default: $${ENV.cliUrl})
  --token T            bearer token (default: $${ENV.cliToken})`,
  chat: `usage: skills chat --project <id> [--name <processName> | --process <processId>] [--recipe <name>]
                  [--session <id>] [--tenant T] [--url URL] [--token T] [--ws-url URL] [--workdir DIR]
                  [--show section,tools,catalog,prompt,messages|all|none]
  An interactive terminal for one process: spawns one (or attaches with --process, or to the
  process of that --name in the session). /skill <name> [--once] [args], /skill list,
  /skill clear [name]; Tab completes skill names and declared argument values; the prompt shows
  the active skills with how they were activated. A plain message composes a turn and prints
  what --show asks for (default section,tools,catalog). Scheduled turns are shown as they
  arrive; FOOT scripts run here, in the sandbox, on --workdir (default a folder per process
  under the system temp dir). With $${ENV.llmUrl} set the turn goes to that model with the
  turn's tools, and its answer completes the turn; without, the turn is completed empty.
  --recipe name        for a new process (default: default)
  --session id         the session of a new process (default: chat)
  --tenant T           default: the token's tenant, else demo (the local stack's)
  --url URL            the service (default: $${ENV.cliUrl}); --ws-url: its WebSocket (default: <url>/ws)
  --token T            bearer token (default: $${ENV.cliToken}; a local URL gets a dev token)`,
  usage: `usage: skills usage <tenant>/<project> [--days N] [--name NAME] [--url URL] [--token T] [--format text|json]
  Prints the project's skill usage counters per UTC day, skill and level: activations by path
  (explicit, trigger, model, recipe, spawn) and refused activations.
  --days N             days back, today included (1-400, default 30)
  --name NAME          one skill only`,
  search: `usage: skills search <tenant>/<project> <query> [--limit N] [--json] [--url URL] [--token T]
  Finds the project's skills (your effective skills: the project, tenant and bundled levels and
  your own) for what a user asks, as skill_search does for the model: best first, with score.
  --limit N            results at most (1-20, default 5)
  --json               print {results:[{name, description, source, score}], total}`,
  history: `usage: skills history <tenant>/<level> <skill-name|document-path> [--url URL] [--token T]
  Lists a document's versions, newest first (versionId, lastModified, size, etag, who wrote it:
  '-' where unknown). A bare skill name means _vance/skills/<name>/SKILL.md.`,
  restore: `usage: skills restore <tenant>/<level> <skill-name|document-path> <versionId> [--url URL] [--token T]
  Writes that version back as the newest, validated like a push; a refused version changes nothing.`,
  eval: `usage: skills eval <skills-root> [name] [--min-recall R] [--min-precision P] [--format text|json]
  Runs each skill's evals/triggers.yaml (should: [...], should-not: [...]) offline through the
  service's trigger matcher against every skill below <skills-root>, and prints precision, recall,
  the wrong cases and the confusion list (other skills firing on the same message).
  Exit 1 when a skill is below --min-recall or --min-precision (0..1, default 0) or an evals file is invalid.`,
  token: `${TOKEN_USAGE.replace("Usage: ", "usage: ")}
  Prints a signed token (secret: $${ENV.jwtSecret}, locally local-dev-secret).`,
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export const isCommandName = (name: string | undefined): name is CommandName => name !== undefined && Object.hasOwn(COMMAND_USAGE, name);

export const USAGE = `usage: skills <command> …   (skills <command> --help for one command)\n\n${Object.values(COMMAND_USAGE).join("\n\n")}`;
