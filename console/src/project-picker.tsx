import { useEffect, useState } from "preact/hooks";
import { mayOpenAnyProject } from "./session.js";
import type { Session } from "./session.js";

/**
 * The project the screens work in. A tenant-admin may open any project of the tenant, so types it
 * (the token's projects are offered as suggestions); anyone else picks one of the token's. A
 * typed project is taken on Enter or when the field is left, not per keystroke.
 */
export function ProjectPicker({ session, project, onChange }: { session: Session; project: string; onChange: (project: string) => void }) {
  const [draft, setDraft] = useState(project);
  useEffect(() => setDraft(project), [project]);

  if (mayOpenAnyProject(session)) {
    const commit = (value: string): void => {
      const trimmed = value.trim();
      if (trimmed === "") setDraft(project);
      else if (trimmed !== project) onChange(trimmed);
    };
    return (
      <label class="project-picker">
        Project
        <input
          value={draft}
          list="project-choices"
          spellcheck={false}
          autocomplete="off"
          title="Any project of the tenant (you are tenant-admin); Enter opens it"
          onInput={(event) => setDraft(event.currentTarget.value)}
          onChange={(event) => commit(event.currentTarget.value)}
        />
        <datalist id="project-choices">
          {session.projects.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </label>
    );
  }

  const choices = session.projects.includes(project) || project === "" ? session.projects : [project, ...session.projects];
  return (
    <label class="project-picker">
      Project
      <select value={project} onChange={(event) => onChange(event.currentTarget.value)}>
        {choices.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </select>
    </label>
  );
}
