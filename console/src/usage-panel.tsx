import { useState } from "preact/hooks";
import type { SkillsClient } from "./api.js";
import { USAGE_DAY_CHOICES, USAGE_PATHS, describeCodes, summarizeUsage } from "./usage-summary.js";
import { useLoad } from "./use-load.js";

/** How often a skill was activated in the project, per UTC day and path, over the chosen days. */
export function UsagePanel({ client, project, name }: { client: SkillsClient; project: string; name: string }) {
  const [days, setDays] = useState<number>(USAGE_DAY_CHOICES[0]);
  const usage = useLoad(() => client.skills.usage({ projectId: project, days, name }), [client, project, name, days]);
  const summary = usage.value ? summarizeUsage(usage.value, name) : undefined;
  return (
    <section class="usage-panel" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage of {name}</h2>
      <div class="toolbar">
        <label>
          Days
          <select value={String(days)} onChange={(event) => setDays(Number(event.currentTarget.value))}>
            {USAGE_DAY_CHOICES.map((choice) => (
              <option key={choice} value={String(choice)}>
                last {choice} days
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={usage.reload}>
          Reload usage
        </button>
      </div>
      {usage.error && <p role="alert">{usage.error}</p>}
      {usage.loading && !summary && <p aria-live="polite">Loading…</p>}
      {summary && summary.total === 0 && (
        <p data-testid="usage-empty">
          No activation of {name} was counted in {project} in the last {days} days.
        </p>
      )}
      {summary && summary.total > 0 && (
        <div class="scroll">
          <table aria-label={`Usage of ${name} per day`} data-testid="usage-table">
            <thead>
              <tr>
                <th>Day (UTC)</th>
                {USAGE_PATHS.map((path) => (
                  <th key={path}>{path}</th>
                ))}
                <th>total</th>
              </tr>
            </thead>
            <tbody>
              {summary.days.map((day) => (
                <tr key={day.day} data-usage-day={day.day}>
                  <td>
                    {day.day} {day.sources.length > 0 && <span class="hint">{day.sources.join(", ")}</span>}
                  </td>
                  {USAGE_PATHS.map((path) => (
                    <td
                      key={path}
                      class={day.counts[path] === 0 ? "zero" : ""}
                      title={path === "refused" && day.counts.refused > 0 ? describeCodes(day.refusedCodes) : undefined}
                    >
                      {day.counts[path]}
                    </td>
                  ))}
                  <td>{day.total}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="usage-totals">
                <th>Total</th>
                {USAGE_PATHS.map((path) => (
                  <th key={path} data-usage-total={path}>
                    {summary.totals[path]}
                  </th>
                ))}
                <th data-usage-total="all">{summary.total}</th>
              </tr>
            </tfoot>
          </table>
          {summary.refusedCodes.length > 0 && (
            <p class="hint" data-testid="usage-refused-codes">
              Refused with: {describeCodes(summary.refusedCodes)}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
