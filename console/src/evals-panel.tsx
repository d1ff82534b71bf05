import { useState } from "preact/hooks";
import { describeError } from "./api.js";
import type { DocumentProblem, SkillEvalsResult, SkillsClient } from "./api.js";

type State =
  | { kind: "idle" | "running" }
  | { kind: "report"; report: SkillEvalsResult }
  | { kind: "missing" }
  | { kind: "refused"; problems: DocumentProblem[] }
  | { kind: "error"; message: string };

const percent = (value: number): string => `${Math.round(value * 100)}%`;

/**
 * The skill's `evals/triggers.yaml` run on demand against the effective skills (API.md "Author's
 * loop"): precision, recall, what the triggers miss, what they wrongly catch, and which other
 * skills fire on the same messages.
 */
export function EvalsPanel({
  client,
  project,
  name,
  onCreate,
}: {
  client: SkillsClient;
  project: string;
  name: string;
  onCreate: () => void;
}) {
  const [state, setState] = useState<State>({ kind: "idle" });
  const run = async (): Promise<void> => {
    setState({ kind: "running" });
    try {
      setState({ kind: "report", report: await client.skills.evals(name, { projectId: project }) });
    } catch (error) {
      const failure = describeError(error);
      if (failure.code === "DOCUMENT_NOT_FOUND") return setState({ kind: "missing" });
      if (failure.code === "INVALID_DOCUMENT") return setState({ kind: "refused", problems: failure.problems });
      setState({ kind: "error", message: failure.message });
    }
  };
  return (
    <section class="evals-panel" aria-labelledby="evals-heading">
      <h2 id="evals-heading">Trigger evals of {name}</h2>
      <p class="hint">
        Runs the effective skill's evals/triggers.yaml through the turn's trigger rule, with every other skill of {project} as a rival: a
        message counts as fired when a turn would activate the skill (no recipe whitelist applies here).
      </p>
      <button type="button" onClick={() => void run()} disabled={state.kind === "running"}>
        Run evals
      </button>
      {state.kind === "running" && <p aria-live="polite">Running…</p>}
      {state.kind === "error" && <p role="alert">{state.message}</p>}
      {state.kind === "missing" && (
        <p data-testid="evals-missing">
          {name} has no evals/triggers.yaml at its level: a YAML file with <code>should:</code> and <code>should-not:</code> lists of
          messages.{" "}
          <button type="button" class="link" onClick={onCreate}>
            Write one
          </button>
        </p>
      )}
      {state.kind === "refused" && (
        <div role="alert" data-testid="evals-refused">
          The evals file does not parse:
          <ul>
            {state.problems.map((problem, index) => (
              <li key={index}>
                {problem.line === undefined ? "" : `line ${problem.line}: `}
                {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {state.kind === "report" && <EvalsReport report={state.report} />}
    </section>
  );
}

function EvalsReport({ report }: { report: SkillEvalsResult }) {
  const misses = report.cases.filter((c) => c.expected && !c.fired);
  const falseHits = report.cases.filter((c) => !c.expected && c.fired);
  const confused = report.cases.filter((c) => (c.alsoFired ?? []).length > 0);
  const should = report.cases.filter((c) => c.expected).length;
  return (
    <div data-testid="evals-report">
      <dl class="facts">
        <dt>Precision</dt>
        <dd data-testid="evals-precision">{percent(report.precision)}</dd>
        <dt>Recall</dt>
        <dd data-testid="evals-recall">{percent(report.recall)}</dd>
        <dt>Cases</dt>
        <dd>
          {report.cases.length} ({should} should, {report.cases.length - should} should not)
        </dd>
      </dl>
      {report.incomplete === true && (
        <p role="status" data-testid="evals-incomplete">
          Cut short by the time budget: {report.cases.length} of {report.totalCases ?? "?"} cases ran; precision and recall are theirs.{" "}
          <code>skills eval</code> runs the whole suite offline.
        </p>
      )}
      {report.cases.length === 0 && report.incomplete !== true && <p>The evals file lists no message.</p>}
      {report.triggers === 0 && (
        <p data-testid="evals-no-triggers">
          {report.name} has no triggers: no message activates it by matching, so every should message is a miss. It is activated by{" "}
          <code>/skill {report.name}</code> or by the model choosing it from the catalog (<code>skills eval</code> shows its catalog
          standing).
        </p>
      )}
      <Routing report={report} />
      <CaseList title="Misses (should fire, did not)" testId="evals-misses" cases={misses} empty="None: every should message fires." />
      <CaseList
        title="False hits (should not fire, did)"
        testId="evals-false-hits"
        cases={falseHits}
        empty="None: no should-not message fires."
      />
      <h3>Confusion (other skills firing on the same message)</h3>
      {confused.length === 0 ? (
        <p data-testid="evals-confusion">No other skill fires on these messages.</p>
      ) : (
        <ul data-testid="evals-confusion">
          {confused.map((c, index) => (
            <li key={index}>
              “{c.message}” → {(c.alsoFired ?? []).join(", ")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** "Does the skill reach the model" per should message: listed in the catalog, and its rank in skill_search. */
function Routing({ report }: { report: SkillEvalsResult }) {
  const should = report.cases.filter((c) => c.expected && c.listed !== undefined);
  if (should.length === 0) return null;
  const listed = should.filter((c) => c.listed === true).length;
  return (
    <>
      <h3>Reaching the model (catalog and skill_search)</h3>
      <p data-testid="evals-routing">
        Listed in the catalog for {listed} of {should.length} should messages; in the search's top 5 for{" "}
        {should.filter((c) => c.searchRank != null && c.searchRank <= 5).length}.
      </p>
      <ul data-testid="evals-routing-cases">
        {should.map((c, index) => (
          <li key={index}>
            “{c.message}” — {c.listed === true ? "listed" : "not listed"}, search rank {c.searchRank ?? "past 20"}
          </li>
        ))}
      </ul>
    </>
  );
}

function CaseList({ title, testId, cases, empty }: { title: string; testId: string; cases: SkillEvalsResult["cases"]; empty: string }) {
  return (
    <>
      <h3>{title}</h3>
      {cases.length === 0 ? (
        <p data-testid={testId}>{empty}</p>
      ) : (
        <ul data-testid={testId}>
          {cases.map((c, index) => (
            <li key={index}>
              “{c.message}”{c.blocked !== undefined && <span class="hint"> — matches, but a turn would not activate it: {c.blocked}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
