import { useEffect, useRef, useState } from "preact/hooks";
import type { ShadowedSkill, SkillDetail, SkillProblem, SkillSearchResult, SkillsClient, SkillSummary } from "./api.js";
import type { EditorTarget } from "./editor-screen.js";
import { ProblemsPanel } from "./problems-panel.js";
import { SourceBadge } from "./source-badge.js";
import { useLoad } from "./use-load.js";

interface SkillsData {
  skills: SkillSummary[];
  shadowed: ShadowedSkill[];
  problems: SkillProblem[];
}

/** Flags a reader should see without opening the skill. */
export function skillFlags(skill: Pick<SkillSummary, "disableModelInvocation" | "userInvocable" | "lifecycle">): string[] {
  const flags: string[] = [];
  if (skill.disableModelInvocation) flags.push("model-invocation off");
  if (skill.userInvocable === false) flags.push("user-invocable off");
  if (skill.lifecycle === "shot") flags.push("shot");
  return flags;
}

export function SkillsScreen({
  client,
  project,
  onEdit,
}: {
  client: SkillsClient;
  project: string;
  onEdit: (target: EditorTarget) => void;
}) {
  const [query, setQuery] = useState("");
  const [showShadowed, setShowShadowed] = useState(true);
  const [selected, setSelected] = useState<string | undefined>();
  const data = useLoad<SkillsData>(async () => {
    const [list, problems] = await Promise.all([
      client.skills.listWithShadowed({ projectId: project }),
      client.skills.problems({ projectId: project }),
    ]);
    return { skills: list.skills, shadowed: list.shadowed ?? [], problems };
  }, [client, project]);

  const needle = query.trim().toLowerCase();
  const matches = (text: string): boolean => needle === "" || text.toLowerCase().includes(needle);
  const skills = (data.value?.skills ?? []).filter((skill) =>
    matches(`${skill.name} ${skill.title} ${skill.description} ${skill.tags.join(" ")}`),
  );
  const shadowed = (data.value?.shadowed ?? []).filter((entry) => matches(entry.name));
  const problems = data.value?.problems ?? [];

  return (
    <div class="skills-screen">
      <section class="skills-list" aria-labelledby="skills-heading">
        <h2 id="skills-heading">Effective skills in {project}</h2>
        <div class="toolbar">
          <label>
            Search
            <input type="search" value={query} onInput={(event) => setQuery(event.currentTarget.value)} placeholder="name, title, tag…" />
          </label>
          <label class="inline">
            <input type="checkbox" checked={showShadowed} onChange={(event) => setShowShadowed(event.currentTarget.checked)} />
            Show shadowed
          </label>
          <button type="button" class="secondary" onClick={data.reload}>
            Reload
          </button>
        </div>
        {needle !== "" && <RelevantSkills client={client} project={project} query={query.trim()} onSelect={setSelected} />}
        {data.error && (
          <p role="alert" class="error">
            {data.error}
          </p>
        )}
        {data.loading && !data.value && <p aria-live="polite">Loading…</p>}
        <ul class="skill-rows" aria-label="Skills">
          {skills.map((skill) => (
            <li key={skill.name}>
              <button
                type="button"
                class="skill-row"
                aria-current={selected === skill.name}
                onClick={() => setSelected(skill.name)}
                data-skill={skill.name}
              >
                <span class="skill-name">{skill.name}</span>
                <SourceBadge source={skill.source} />
                {skillFlags(skill).map((flag) => (
                  <span key={flag} class="flag">
                    {flag}
                  </span>
                ))}
                <span class="skill-description">{skill.description}</span>
              </button>
            </li>
          ))}
        </ul>
        {skills.length === 0 && data.value && <p>No skill matches “{query}”.</p>}
        {showShadowed && shadowed.length > 0 && (
          <>
            <h3>Shadowed</h3>
            <ul class="shadowed-rows" aria-label="Shadowed skills">
              {shadowed.map((entry) => (
                <li key={`${entry.source}:${entry.path}`} data-shadowed={entry.name}>
                  <span class="skill-name">{entry.name}</span> <SourceBadge source={entry.source} />{" "}
                  <span class="flag">hidden by {entry.shadowedBy}</span>
                  {entry.reason && <span class="flag">{entry.reason}</span>}
                  <code class="path">{entry.path}</code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      {/* Beside the list, above the problems: the detail opens where the click was, not below a long problems list. */}
      <div class="skills-side">
        {selected && <SkillDetailPanel key={selected} client={client} project={project} name={selected} onEdit={onEdit} />}
        <ProblemsPanel problems={problems} />
      </div>
    </div>
  );
}

/**
 * What the model's skill_search would answer for the search text (GET …/skills/search): the best
 * matches with their score, typos and product spellings included, beside the plain filter below.
 */
function RelevantSkills({
  client,
  project,
  query,
  onSelect,
}: {
  client: SkillsClient;
  project: string;
  query: string;
  onSelect: (name: string) => void;
}) {
  const found = useLoad<SkillSearchResult>(() => client.skills.search(query, { projectId: project, limit: 10 }), [client, project, query]);
  const results = found.value?.results ?? [];
  return (
    <section class="relevant-skills" aria-label="Best matches">
      <h3>Best matches {found.value ? `(${results.length} of ${found.value.total})` : ""}</h3>
      {found.error && (
        <p role="alert" class="error">
          {found.error}
        </p>
      )}
      {found.value && results.length === 0 && <p>No skill is relevant to “{query}”.</p>}
      <ol class="skill-rows">
        {results.map((r) => (
          <li key={r.name} data-relevant={r.name}>
            <button type="button" class="skill-row" onClick={() => onSelect(r.name)}>
              <span class="skill-name">{r.name}</span>
              <SourceBadge source={r.source} />
              <span class="flag">score {r.score.toFixed(2)}</span>
              <span class="skill-description">{r.description}</span>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

function SkillDetailPanel({
  client,
  project,
  name,
  onEdit,
}: {
  client: SkillsClient;
  project: string;
  name: string;
  onEdit: (target: EditorTarget) => void;
}) {
  const detail = useLoad<SkillDetail>(() => client.skills.get(name, { projectId: project }), [client, project, name]);
  const skill = detail.value;
  const panel = useRef<HTMLElement>(null);
  // One column (a narrow window): the detail follows the whole list, so bring it into view.
  useEffect(() => panel.current?.scrollIntoView({ block: "nearest" }), []);
  return (
    <section class="skill-detail" aria-labelledby="detail-heading" ref={panel}>
      <h2 id="detail-heading">
        {name} {skill && <SourceBadge source={skill.source} />}
      </h2>
      {detail.error && (
        <p role="alert" class="error">
          {detail.error}
        </p>
      )}
      {skill && (
        <>
          <p>{skill.description}</p>
          <button type="button" onClick={() => onEdit({ name: skill.name, source: skill.source })}>
            Edit SKILL.md
          </button>
          <dl class="facts">
            <dt>Title</dt>
            <dd>{skill.title}</dd>
            <dt>Version</dt>
            <dd>{skill.version}</dd>
            <dt>Lifecycle</dt>
            <dd>{skill.lifecycle}</dd>
            <dt>Tools</dt>
            <dd>{skill.tools.length > 0 ? skill.tools.join(", ") : "none"}</dd>
            <dt>Triggers</dt>
            <dd>
              {skill.triggers.length === 0
                ? "none"
                : skill.triggers.map((trigger, index) => (
                    <div key={index}>
                      {trigger.type === "PATTERN" ? `pattern ${trigger.pattern ?? ""}` : `keywords ${(trigger.keywords ?? []).join(", ")}`}
                    </div>
                  ))}
            </dd>
            <dt>Arguments</dt>
            <dd>
              {Array.isArray(skill.arguments)
                ? skill.arguments.map((argument) => (
                    <div key={argument.name}>
                      {argument.name} ({argument.type}
                      {argument.required ? ", required" : ""}){argument.description ? ` — ${argument.description}` : ""}
                    </div>
                  ))
                : skill.arguments
                  ? "free text ($ARGUMENTS)"
                  : "none"}
            </dd>
            <dt>Files</dt>
            <dd>
              {skill.files.length === 0
                ? "none"
                : skill.files.map((file) => (
                    <div key={file.path}>
                      {file.path} ({file.size} B)
                    </div>
                  ))}
            </dd>
          </dl>
          <h3>Body</h3>
          <pre class="body">{skill.body}</pre>
        </>
      )}
    </section>
  );
}
