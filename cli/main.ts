import { parseArgs } from "node:util";
import { ENV } from "../shared/config/config.js";
import { formatValidationLine, validateSkillTrees } from "./validate.js";
import { renderSkill } from "./render.js";
import { runTokenCommand, TOKEN_USAGE } from "./token.js";

const USAGE = `usage:
  skills validate <dir>...                                   validate every skill directory below each path
  skills render <skills-root> <name> [--args "…"] [--set key=value ...]
                                                             print the composed skill section of one skill
  ${TOKEN_USAGE.replace("Usage: ", "")}
                                                             print a signed token (secret: ${ENV.jwtSecret},
                                                             locally local-dev-secret)`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "validate": {
      if (rest.length === 0) throw new UsageError("validate needs at least one directory");
      const lines = await validateSkillTrees(rest);
      for (const line of lines) console.log(formatValidationLine(line));
      const errors = lines.filter((l) => l.severity === "error").length;
      console.error(`${errors} error(s), ${lines.length - errors} warning(s)`);
      return errors > 0 ? 1 : 0;
    }
    case "render": {
      const { values, positionals } = parseArgs({
        args: [...rest],
        allowPositionals: true,
        options: { args: { type: "string" }, set: { type: "string", multiple: true } },
      });
      const [root, name] = positionals;
      if (!root || !name) throw new UsageError("render needs <skills-root> <name>");
      const { section, warnings } = await renderSkill({ root, name, args: values.args, set: values.set ?? [] });
      for (const warning of warnings) console.error(`warning: ${warning}`);
      process.stdout.write(`${section}\n`);
      return 0;
    }
    case "token":
      return runTokenCommand(rest);
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
