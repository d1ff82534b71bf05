import type { SkillsClient, Turn } from "../client/index.js";
import type { LlmConfig } from "../shared/llm/llm-config.js";

/**
 * The real loop of `skills chat` with SKILLS_LLM_URL set: the composed Turn goes to the
 * OpenAI-compatible chat-completions endpoint (the same settings as shared/llm's adapter, which
 * answers JSON only and so cannot carry tool calls) with the Turn's toolSpecs as tools; each tool
 * call goes to POST …/tools/{name} (skill_activate, skill_read_file, scripts); the final text is
 * the turn's output.
 */
export const MAX_TOOL_ROUNDS = 8;

interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ModelLoopIo {
  info(line: string): void;
  signal?: AbortSignal;
}

export async function runModelTurn(
  config: LlmConfig,
  client: SkillsClient,
  processId: string,
  turn: Turn,
  io: ModelLoopIo,
): Promise<string> {
  const messages: ChatMessage[] = [
    ...turn.systemPrompt.map((m) => ({ role: "system" as const, content: m.content })),
    ...turn.messages.map((m) => ({ role: "user" as const, content: m.sender.startsWith("_") ? `[${m.sender}] ${m.text}` : m.text })),
  ];
  const tools = turn.toolSpecs.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  for (let round = 0; round < MAX_TOOL_ROUNDS; round += 1) {
    const reply = await complete(config, messages, tools, io.signal);
    messages.push(reply);
    if (!reply.tool_calls || reply.tool_calls.length === 0) return reply.content ?? "";
    for (const call of reply.tool_calls) {
      io.info(`→ tool ${call.function.name} ${call.function.arguments.slice(0, 200)}`);
      let content: string;
      try {
        const args = call.function.arguments.trim() === "" ? {} : (JSON.parse(call.function.arguments) as Record<string, unknown>);
        content = JSON.stringify(await client.tools.call(processId, call.function.name, args));
      } catch (error) {
        // The model sees the failure and may recover; the turn goes on.
        content = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
      }
      io.info(`← ${content.slice(0, 200)}`);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  return "(stopped: too many tool rounds)";
}

async function complete(
  config: LlmConfig,
  messages: ChatMessage[],
  tools: unknown[],
  signal: AbortSignal | undefined,
): Promise<ChatMessage> {
  const timeout = AbortSignal.timeout(config.timeoutMs * 4);
  const response = await fetch(`${config.url.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
    body: JSON.stringify({ model: config.model, messages, ...(tools.length > 0 ? { tools } : {}) }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!response.ok) throw new Error(`the model answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const body = (await response.json()) as { choices?: { message?: ChatMessage }[] };
  const message = body.choices?.[0]?.message;
  if (!message) throw new Error("the model's answer has no message");
  return { role: "assistant", content: message.content ?? null, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) };
}
