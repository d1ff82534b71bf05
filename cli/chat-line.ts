/**
 * One line typed into `skills chat`: the spec §6a slash grammar, the chat's own commands, or a
 * message for a turn. Per §6a the rest of a `/skill <name>` line goes unchanged as `args`: the
 * service decides whether the skill consumes it.
 */
export type ChatLine =
  | { kind: "activate"; name: string; once: boolean; args?: string }
  | { kind: "list" }
  | { kind: "clear"; name?: string }
  | { kind: "turn" }
  | { kind: "show"; parts: string[] }
  | { kind: "help" }
  | { kind: "exit" }
  | { kind: "message"; text: string }
  | { kind: "empty" }
  | { kind: "invalid"; message: string };

export const CHAT_HELP = `  /skill <name> [--once] [args…]   activate a skill (args: the raw rest of the line)
  /skill list                      effective skills, active ones marked with how they were activated
  /skill clear [name]              clear one skill, or every skill not from a locked recipe
  /turn                            compose a turn without a message (consumes what is pending)
  /show [section|tools|catalog|prompt|messages|all|none]…   what a turn prints
  /help  /exit                     this text; leave (Ctrl-D too)
  anything else                    a message: composes a turn`;

export function parseChatLine(input: string): ChatLine {
  const line = input.trim();
  if (line === "") return { kind: "empty" };
  if (!line.startsWith("/")) return { kind: "message", text: line };
  const [command = "", ...words] = line.split(/\s+/);
  switch (command) {
    case "/skill":
      return skillLine(line.slice("/skill".length).trim());
    case "/turn":
      return { kind: "turn" };
    case "/show":
      return { kind: "show", parts: words };
    case "/help":
    case "/?":
      return { kind: "help" };
    case "/exit":
    case "/quit":
      return { kind: "exit" };
    default:
      return { kind: "invalid", message: `unknown command ${command}; /help lists them` };
  }
}

function skillLine(rest: string): ChatLine {
  if (rest === "") return { kind: "invalid", message: "usage: /skill <name> [--once] [args…] | /skill list | /skill clear [name]" };
  const [name = "", ...tail] = rest.split(/\s+/);
  if (name === "list") return tail.length === 0 ? { kind: "list" } : { kind: "invalid", message: "/skill list takes nothing after it" };
  if (name === "clear") {
    if (tail.length > 1) return { kind: "invalid", message: "/skill clear takes at most one skill name" };
    return tail[0] === undefined ? { kind: "clear" } : { kind: "clear", name: tail[0] };
  }
  // Only a leading --once is the flag; later ones belong to the args, which are passed on verbatim.
  let args = rest.slice(name.length).trimStart();
  let once = false;
  if (args === "--once" || args.startsWith("--once ")) {
    once = true;
    args = args.slice("--once".length).trimStart();
  }
  return { kind: "activate", name, once, ...(args === "" ? {} : { args }) };
}
