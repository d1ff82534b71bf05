import type { Turn } from "./api.js";
import { approxTokens, skillBlocks } from "./skill-command.js";

/** A Turn as the service composed it, with the per-skill estimate it may carry. */
export type ExplainedTurn = Turn & { skillTokens?: { name: string; approxTokens: number }[] };

/** What the model would receive and why: prompt, skill section, tools, catalog, the activation ledger. */
export function CompositionView({ label, turn }: { label: string; turn: ExplainedTurn }) {
  const perSkill =
    turn.skillTokens ?? skillBlocks(turn.skillSection).map((block) => ({ name: block.name, approxTokens: approxTokens(block.chars) }));
  return (
    <section class="composition" aria-label="Composition">
      <h3>{label}</h3>
      <details open>
        <summary>
          System prompt ({approxTokens(turn.systemPrompt.map((message) => message.content).join("").length)} tokens approx.)
        </summary>
        {turn.systemPrompt.map((message, index) => (
          <pre key={index} class="body">
            {message.content}
          </pre>
        ))}
      </details>
      <details open>
        <summary>Skill section</summary>
        <table aria-label="Approximate tokens per skill">
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">≈ tokens</th>
            </tr>
          </thead>
          <tbody>
            {perSkill.map((entry) => (
              <tr key={entry.name}>
                <td>{entry.name}</td>
                <td>{entry.approxTokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <pre class="body" data-testid="skill-section">
          {turn.skillSection || "(empty: no skill is active)"}
        </pre>
      </details>
      <details open>
        <summary>Tools ({turn.tools.length})</summary>
        <p>{turn.tools.join(", ") || "none"}</p>
      </details>
      <details open>
        <summary>
          Catalog ({turn.catalog.entries.length} entries, {turn.catalog.usedChars}/{turn.catalog.budgetChars} chars)
        </summary>
        <ul>
          {turn.catalog.entries.map((entry) => (
            <li key={entry.name}>
              <strong>{entry.name}</strong> <span class="badge">{entry.source}</span> {entry.description}
            </li>
          ))}
        </ul>
        {turn.catalog.omitted.length > 0 && <p>Omitted by the budget: {turn.catalog.omitted.join(", ")}</p>}
      </details>
      <details open>
        <summary>Activation ledger ({turn.activation.length})</summary>
        <table aria-label="Activation ledger" data-testid="ledger">
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">Outcome</th>
              <th scope="col">By</th>
              <th scope="col">Reason or trigger</th>
            </tr>
          </thead>
          <tbody>
            {turn.activation.map((entry, index) => (
              <tr key={`${entry.name}:${index}`} data-ledger={entry.name} class={`outcome-${entry.outcome}`}>
                <td>{entry.name}</td>
                <td>{entry.outcome}</td>
                <td>{entry.activatedBy ?? ""}</td>
                <td>
                  {entry.reason ?? ""}
                  {entry.trigger
                    ? ` ${entry.trigger.type} #${entry.trigger.index}${entry.trigger.keywords ? ` [${entry.trigger.keywords.join(", ")}]` : ""}${entry.trigger.match ? ` “${entry.trigger.match}”` : ""}`
                    : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
