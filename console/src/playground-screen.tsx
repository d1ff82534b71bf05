import { useEffect, useState } from "preact/hooks";
import { describeError } from "./api.js";
import type { ActiveSkillRef, Process, SkillsClient, SkillSummary, SubscriptionFrame } from "./api.js";
import { CompositionView } from "./composition-view.js";
import type { ExplainedTurn } from "./composition-view.js";
import { argumentLine, completeSkillCommand, parseSkillCommand } from "./skill-command.js";
import { SourceBadge } from "./source-badge.js";
import { useLoad } from "./use-load.js";

/** Frames kept in the live panel; older ones scroll away. */
const LIVE_FRAMES = 50;

const newSessionId = (): string => `console-${crypto.randomUUID().slice(0, 8)}`;

/**
 * Spawn a process with a recipe, steer it (badges with clear buttons, a `/skill` line with
 * completion, a form from `arguments:`), and preview or compose a turn with its explanation.
 * Frames for the process arrive over the WebSocket and refresh what is shown.
 */
export function PlaygroundScreen({ client, project }: { client: SkillsClient; project: string }) {
  const [recipe, setRecipe] = useState("default");
  const [processName, setProcessName] = useState("");
  const [process, setProcess] = useState<Process | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [frames, setFrames] = useState<string[]>([]);
  const [live, setLive] = useState("not connected");
  const skills = useLoad<SkillSummary[]>(() => client.skills.list({ projectId: project }), [client, project]);

  const refresh = async (processId: string): Promise<void> => setProcess(await client.processes.get(processId));
  const processId = process?.processId;

  useEffect(() => {
    if (!processId) return;
    const subscription = client.subscribe({ processIds: [processId] });
    let open = true;
    const onFrame = (frame: SubscriptionFrame): void => {
      if (frame.type === "connection") return setLive(frame.state);
      setFrames((previous) =>
        [`${new Date().toLocaleTimeString()} ${frame.type}${"reason" in frame ? ` (${String(frame.reason)})` : ""}`, ...previous].slice(
          0,
          LIVE_FRAMES,
        ),
      );
      void refresh(processId).catch(() => undefined);
    };
    void (async () => {
      try {
        for await (const frame of subscription) {
          if (!open) break;
          onFrame(frame);
        }
      } catch (failure) {
        setLive(`closed: ${describeError(failure).message}`);
      }
    })();
    return () => {
      open = false;
      subscription.close();
    };
  }, [client, processId]);

  const spawn = async (): Promise<void> => {
    setError(undefined);
    try {
      const spawned = await client.processes.spawn(newSessionId(), {
        recipe: recipe.trim(),
        projectId: project,
        ...(processName.trim() ? { name: processName.trim() } : {}),
      });
      setProcess(spawned);
      setFrames([]);
    } catch (failure) {
      setError(describeError(failure).message);
    }
  };

  return (
    <div class="playground-screen">
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          void spawn();
        }}
      >
        <label>
          Recipe
          <input value={recipe} onInput={(event) => setRecipe(event.currentTarget.value)} list="recipes" />
          <datalist id="recipes">
            <option value="default" />
            <option value="analyze" />
            <option value="code-read" />
          </datalist>
        </label>
        <label>
          Process name (optional)
          <input value={processName} onInput={(event) => setProcessName(event.currentTarget.value)} />
        </label>
        <button type="submit">Spawn process</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {process && (
        <>
          <section aria-labelledby="process-heading" class="process">
            <h2 id="process-heading">
              {process.name}{" "}
              <span class="hint">
                ({process.processId}, recipe {process.recipe}
                {process.locked ? ", locked" : ""})
              </span>
            </h2>
            <p class="hint" aria-live="polite">
              Live updates: <span data-testid="live-state">{live}</span>
            </p>
            <ActiveBadges client={client} process={process} onChange={() => void refresh(process.processId)} />
          </section>
          <SteerPanel client={client} process={process} skills={skills.value ?? []} onChange={() => void refresh(process.processId)} />
          <TurnPanel client={client} process={process} onChange={() => void refresh(process.processId)} />
          <section aria-labelledby="frames-heading" class="frames">
            <h2 id="frames-heading">WebSocket frames</h2>
            <ol aria-live="polite">
              {frames.map((frame, index) => (
                <li key={index}>{frame}</li>
              ))}
            </ol>
          </section>
        </>
      )}
    </div>
  );
}

function ActiveBadges({ client, process, onChange }: { client: SkillsClient; process: Process; onChange: () => void }) {
  const [error, setError] = useState<string | undefined>();
  const clear = async (skill?: ActiveSkillRef): Promise<void> => {
    setError(undefined);
    try {
      if (skill) await client.steering.clear(process.processId, skill.name);
      else await client.steering.clearAll(process.processId);
      onChange();
    } catch (failure) {
      setError(describeError(failure).message);
    }
  };
  return (
    <div aria-labelledby="active-heading">
      <h3 id="active-heading">Active skills ({process.activeSkills.length})</h3>
      <ul class="badges" aria-label="Active skills">
        {process.activeSkills.map((skill) => (
          <li key={skill.name} class="active-badge" data-active={skill.name}>
            <strong>{skill.name}</strong> <SourceBadge source={skill.resolvedFromScope} /> <span class="flag">by {skill.activatedBy}</span>
            {skill.oneShot && <span class="flag">once</span>}
            {skill.fromRecipe && <span class="flag">recipe</span>}
            {skill.args && <span class="flag">args: {skill.args}</span>}
            <button type="button" class="secondary small" aria-label={`Clear ${skill.name}`} onClick={() => void clear(skill)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      {process.activeSkills.length > 0 && (
        <button type="button" class="secondary" onClick={() => void clear()}>
          Clear all
        </button>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}

function SteerPanel({
  client,
  process,
  skills,
  onChange,
}: {
  client: SkillsClient;
  process: Process;
  skills: SkillSummary[];
  onChange: () => void;
}) {
  const invocable = skills.filter((skill) => skill.userInvocable !== false);
  const [line, setLine] = useState("/skill ");
  const [formSkill, setFormSkill] = useState("");
  const [values, setValues] = useState<Record<string, string>>({});
  const [once, setOnce] = useState(false);
  const [message, setMessage] = useState<{ kind: "error" | "success"; text: string } | undefined>();
  const suggestions = completeSkillCommand(
    line,
    invocable.map((skill) => skill.name),
  );
  const chosen = invocable.find((skill) => skill.name === formSkill);
  const declared = chosen && Array.isArray(chosen.arguments) ? chosen.arguments : [];

  const activate = async (skillName: string, args: string | undefined, oneShot: boolean): Promise<void> => {
    setMessage(undefined);
    try {
      const result = await client.steering.activate(process.processId, skillName, { ...(args ? { args } : {}), oneShot });
      setMessage({
        kind: "success",
        text: `Activated ${skillName}${result.turnScheduled ? "; a turn is scheduled" : ""}${result.spawned ? `; spawned ${result.spawned.name}` : ""}.`,
      });
      onChange();
    } catch (failure) {
      setMessage({ kind: "error", text: describeError(failure).message });
    }
  };

  return (
    <section aria-labelledby="steer-heading" class="steer">
      <h2 id="steer-heading">Activate</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const parsed = parseSkillCommand(line);
          if ("error" in parsed) return setMessage({ kind: "error", text: parsed.error });
          void activate(parsed.skillName, parsed.args, parsed.oneShot);
        }}
      >
        <label for="skill-command">Command line</label>
        <input
          id="skill-command"
          value={line}
          onInput={(event) => setLine(event.currentTarget.value)}
          list="skill-completions"
          autocomplete="off"
          aria-describedby="skill-command-help"
        />
        <datalist id="skill-completions">
          {suggestions.map((suggestion) => (
            <option key={suggestion} value={suggestion} />
          ))}
        </datalist>
        <p id="skill-command-help" class="hint">
          /skill &lt;name&gt; [arguments] [--once] — names complete as you type.
        </p>
        <button type="submit">Run</button>
      </form>
      <form
        class="argument-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!chosen) return;
          const built = chosen.arguments === true ? { line: (values["$ARGUMENTS"] ?? "").trim() } : argumentLine(declared, values);
          if ("error" in built) return setMessage({ kind: "error", text: built.error });
          void activate(chosen.name, built.line === "" ? undefined : built.line, once);
        }}
      >
        <label for="form-skill">Skill to activate</label>
        <select
          id="form-skill"
          value={formSkill}
          onChange={(event) => {
            setFormSkill(event.currentTarget.value);
            setValues({});
          }}
        >
          <option value="">choose…</option>
          {invocable.map((skill) => (
            <option key={skill.name} value={skill.name}>
              {skill.name}
            </option>
          ))}
        </select>
        {chosen && chosen.arguments === true && (
          <label>
            Arguments ($ARGUMENTS){chosen.argumentHint ? ` — ${chosen.argumentHint}` : ""}
            <input
              value={values["$ARGUMENTS"] ?? ""}
              onInput={(event) => setValues({ ...values, $ARGUMENTS: event.currentTarget.value })}
            />
          </label>
        )}
        {declared.map((argument) => (
          <label key={argument.name}>
            {argument.name}
            {argument.required ? " (required)" : ""}{" "}
            <span class="hint">
              {argument.type}
              {argument.description ? ` — ${argument.description}` : ""}
            </span>
            <input
              name={argument.name}
              required={argument.required}
              inputMode={argument.type === "number" || argument.type === "integer" ? "decimal" : "text"}
              value={values[argument.name] ?? ""}
              onInput={(event) => setValues({ ...values, [argument.name]: event.currentTarget.value })}
            />
          </label>
        ))}
        {chosen && (
          <label class="inline">
            <input type="checkbox" checked={once} onChange={(event) => setOnce(event.currentTarget.checked)} /> one turn only (--once)
          </label>
        )}
        <button type="submit" disabled={!chosen}>
          Activate with these arguments
        </button>
      </form>
      {message && (
        <p role={message.kind === "error" ? "alert" : "status"} class={message.kind} data-testid="steer-message">
          {message.text}
        </p>
      )}
    </section>
  );
}

function TurnPanel({ client, process, onChange }: { client: SkillsClient; process: Process; onChange: () => void }) {
  const [message, setMessage] = useState("");
  const [turn, setTurn] = useState<{ label: string; turn: ExplainedTurn } | undefined>();
  const [error, setError] = useState<string | undefined>();

  const preview = async (): Promise<void> => {
    setError(undefined);
    try {
      const composed = await client.processes.composition(process.processId, { ...(message ? { message } : {}), explain: "all" });
      setTurn({ label: "Preview (nothing changed)", turn: composed as ExplainedTurn });
    } catch (failure) {
      setError(describeError(failure).message);
    }
  };

  const compose = async (): Promise<void> => {
    setError(undefined);
    try {
      const composed = await client.turns.compose(process.processId, message ? { message } : {});
      // The stored turn with every skill that did not fire, as the ledger keeps it.
      const explained = await client.http.json<ExplainedTurn>(
        "GET",
        `/brain/${encodeURIComponent(client.tenant)}/processes/${encodeURIComponent(process.processId)}/turns/${encodeURIComponent(composed.turnId)}`,
        {
          query: { explain: "all" },
        },
      );
      setTurn({ label: `Turn ${composed.turnId}`, turn: explained });
      onChange();
    } catch (failure) {
      setError(describeError(failure).message);
    }
  };

  return (
    <section aria-labelledby="turn-heading" class="turn">
      <h2 id="turn-heading">Message</h2>
      <label for="turn-message">User message</label>
      <textarea id="turn-message" rows={3} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      <div class="actions">
        <button type="button" onClick={() => void preview()}>
          Preview composition
        </button>
        <button type="button" class="secondary" onClick={() => void compose()}>
          Compose turn
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {turn && <CompositionView label={turn.label} turn={turn.turn} />}
    </section>
  );
}
