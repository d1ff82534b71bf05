import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { SkillProblem } from "./api.js";
import { groupProblems, SEVERITIES, severityCounts } from "./problem-groups.js";
import type { ProblemGroup } from "./problem-groups.js";
import { SourceBadge } from "./source-badge.js";

/** A group lists this many problems when opened; the rest is counted (10 000 skills make long lists). */
const SHOWN_PER_GROUP = 200;

/**
 * The effective skills' problems, grouped by rule with their counts. The list starts open only
 * when something is an error, and then only the groups with errors are open: warnings and infos
 * are one line each until asked for. A group's entries are built only while it is open.
 */
export function ProblemsPanel({ problems }: { problems: SkillProblem[] }) {
  const counts = severityCounts(problems);
  const groups = groupProblems(problems);
  const summary = SEVERITIES.filter((severity) => counts[severity] > 0)
    .map((severity) => `${counts[severity]} ${severity}${counts[severity] === 1 ? "" : "s"}`)
    .join(" · ");
  return (
    <section class="problems" aria-labelledby="problems-heading">
      <h2 id="problems-heading">Problems ({problems.length})</h2>
      {problems.length === 0 ? (
        <p>Every skill document loads cleanly.</p>
      ) : (
        // Keyed by whether errors exist: the open state is the initial one, then the user's.
        <Disclosure
          key={counts.error > 0 ? "errors" : "none"}
          initiallyOpen={counts.error > 0}
          label={`${summary} in ${groups.length} rule${groups.length === 1 ? "" : "s"}`}
          testId="problems-summary"
        >
          <ul aria-label="Problems" class="problem-groups">
            {groups.map((group) => (
              <li key={`${group.severity}:${group.rule}`} class={`problem-group severity-${group.severity}`} data-rule={group.rule}>
                <ProblemGroupView group={group} />
              </li>
            ))}
          </ul>
        </Disclosure>
      )}
    </section>
  );
}

function ProblemGroupView({ group }: { group: ProblemGroup }) {
  const shown = group.problems.slice(0, SHOWN_PER_GROUP);
  const label = (
    <>
      <span class="severity">{group.severity}</span> {group.rule} <span class="count">({group.problems.length})</span>
    </>
  );
  return (
    <Disclosure initiallyOpen={group.severity === "error"} label={label}>
      <ul aria-label={group.rule}>
        {shown.map((problem, index) => (
          <li key={index} class="problem">
            <strong>{problem.name}</strong> <SourceBadge source={problem.source} />{" "}
            <code class="path">
              {problem.path}
              {problem.line === undefined ? "" : `:${problem.line}`}
            </code>{" "}
            {problem.message}
          </li>
        ))}
      </ul>
      {group.problems.length > shown.length && <p class="hint">…and {group.problems.length - shown.length} more of this rule.</p>}
    </Disclosure>
  );
}

/** `<details>` whose content exists only while open. */
function Disclosure({
  initiallyOpen,
  label,
  testId,
  children,
}: {
  initiallyOpen: boolean;
  label: ComponentChildren;
  testId?: string;
  children: ComponentChildren;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary {...(testId ? { "data-testid": testId } : {})}>{label}</summary>
      {open && children}
    </details>
  );
}
