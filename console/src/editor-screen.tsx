import { useEffect, useMemo, useState } from "preact/hooks";
import { describeError } from "./api.js";
import type { DocumentEntry, DocumentProblem, SavedDocument, SkillsClient } from "./api.js";
import { CodeEditor } from "./code-editor.js";
import { EvalsPanel } from "./evals-panel.js";
import { lintSkillMarkdown } from "./frontmatter-lint.js";
import type { LintProblem } from "./frontmatter-lint.js";
import { HistoryPanel } from "./history-panel.js";
import { levelsOf } from "./session.js";
import type { Session } from "./session.js";
import { evalsPath, evalsTemplate, languageOf, skillFolder, skillPath, skillTemplate } from "./skill-template.js";
import { UsagePanel } from "./usage-panel.js";

/** What the skills screen asks the editor to open. */
export interface EditorTarget {
  name: string;
  source: string;
}

type Status = { kind: "idle" } | { kind: "info" | "success" | "error"; message: string };

const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/**
 * One level's SKILL.md (or a new one from a template) and the files alongside it, edited in
 * CodeMirror with the published schema checked while typing, saved with PUT (a 422's problems
 * land at their lines), deleted after a confirmation that says what the cascade falls back to.
 * Below it, the author's loop (issue 17): the skill's usage, its trigger evals, and the open
 * file's history with restore.
 */
export function EditorScreen({
  client,
  session,
  project,
  target,
}: {
  client: SkillsClient;
  session: Session;
  project: string;
  target?: EditorTarget;
}) {
  const levels = levelsOf(session, project);
  const initialLevel = levels.find((level) => level.source === target?.source)?.id ?? project;
  const [level, setLevel] = useState(initialLevel);
  const [name, setName] = useState(target?.name ?? "");
  const [openedName, setOpenedName] = useState<string | undefined>();
  const [path, setPath] = useState<string | undefined>();
  const [text, setText] = useState("");
  const [loadedText, setLoadedText] = useState("");
  const [version, setVersion] = useState(0);
  const [files, setFiles] = useState<DocumentEntry[]>([]);
  const [newFile, setNewFile] = useState("references/notes.md");
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [serverProblems, setServerProblems] = useState<LintProblem[]>([]);
  const [problemList, setProblemList] = useState<{ line?: number; message: string }[]>([]);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [saveWarnings, setSaveWarnings] = useState<DocumentProblem[]>([]);
  const [revision, setRevision] = useState(0);

  const levelLabel = levels.find((entry) => entry.id === level)?.label ?? level;
  const isSkillFile = path !== undefined && openedName !== undefined && path === skillPath(openedName);
  const liveProblems = useMemo(() => (isSkillFile ? lintSkillMarkdown(text) : []), [isSkillFile, text]);

  const refreshFiles = async (skill: string): Promise<void> => {
    const listed = await client.documents.list(level, { prefix: skillFolder(skill) });
    setFiles(listed.filter((entry) => entry.path !== skillPath(skill)));
  };

  const openDocument = async (documentPath: string, fallback?: string): Promise<void> => {
    setServerProblems([]);
    setProblemList([]);
    setSaveWarnings([]);
    setConfirmingDelete(false);
    try {
      const document = await client.documents.get(level, documentPath);
      show(documentPath, document.text());
      setStatus({ kind: "info", message: `Opened ${documentPath} from ${levelLabel}.` });
    } catch (error) {
      const failure = describeError(error);
      if (failure.code !== "DOCUMENT_NOT_FOUND" || fallback === undefined) return setStatus({ kind: "error", message: failure.message });
      show(documentPath, fallback);
      setStatus({
        kind: "info",
        message: `${documentPath} does not exist at ${levelLabel} yet: started from a template. Save creates it.`,
      });
    }
  };

  const show = (documentPath: string, body: string): void => {
    setPath(documentPath);
    setText(body);
    setLoadedText(body);
    setVersion((value) => value + 1);
  };

  const openSkill = async (): Promise<void> => {
    const skill = name.trim();
    if (!SKILL_NAME.test(skill))
      return setStatus({ kind: "error", message: "A skill name is lower-case letters, digits and hyphens (its directory name)." });
    setOpenedName(skill);
    await openDocument(skillPath(skill), skillTemplate(skill));
    await refreshFiles(skill).catch(() => setFiles([]));
  };

  useEffect(() => {
    if (target) void openSkill();
    // Opening once per target the skills screen hands over.
  }, [target?.name, target?.source]);

  const save = async (): Promise<void> => {
    if (!path || !openedName) return;
    setStatus({ kind: "info", message: "Saving…" });
    try {
      const saved = await client.documents.put(level, path, text);
      setServerProblems([]);
      setProblemList([]);
      setLoadedText(text);
      setSaveWarnings(saved.warnings);
      setRevision((value) => value + 1);
      const count = saved.warnings.length;
      setStatus({
        kind: "success",
        message: `Saved ${saved.path} at ${levelLabel}${count > 0 ? ` with ${count} warning(s), listed below` : ""}.`,
      });
      await refreshFiles(openedName);
    } catch (error) {
      const failure = describeError(error);
      showRefusal(
        failure.problems,
        failure.code === "INVALID_DOCUMENT"
          ? `Not saved: the service refused it (${failure.problems.length} problem(s)).`
          : `Not saved: ${failure.message}`,
      );
    }
  };

  // A refused save and a refused restore read the same: problems at their lines, nothing written.
  const showRefusal = (problems: DocumentProblem[], message: string): void => {
    setServerProblems(problems.map((problem) => ({ line: problem.line ?? 1, severity: "error" as const, message: problem.message })));
    setProblemList(
      problems.map((problem) => ({ ...(problem.line === undefined ? {} : { line: problem.line }), message: problem.message })),
    );
    setStatus({ kind: "error", message });
  };

  const restored = (documentPath: string, body: string, saved: SavedDocument): void => {
    show(documentPath, body);
    setServerProblems([]);
    setProblemList([]);
    setSaveWarnings(saved.warnings);
    setRevision((value) => value + 1);
    setStatus({
      kind: "success",
      message: `Restored an older version of ${documentPath} at ${levelLabel}: it is the newest now and the editor shows it.`,
    });
  };

  const remove = async (): Promise<void> => {
    if (!path || !openedName) return;
    setConfirmingDelete(false);
    try {
      await client.documents.delete(level, path);
      let fallback = "";
      if (path === skillPath(openedName)) {
        const effective = await client.skills.get(openedName, { projectId: project }).catch(() => undefined);
        fallback = effective ? ` ${openedName} now resolves from ${effective.source}.` : ` No level provides ${openedName} now.`;
      }
      setStatus({ kind: "success", message: `Deleted ${path} at ${levelLabel}.${fallback}` });
      setPath(undefined);
      await refreshFiles(openedName);
    } catch (error) {
      setStatus({ kind: "error", message: describeError(error).message });
    }
  };

  return (
    <div class="editor-screen">
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          void openSkill();
        }}
      >
        <label>
          Level
          <select value={level} onChange={(event) => setLevel(event.currentTarget.value)}>
            {levels.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Skill name
          <input value={name} onInput={(event) => setName(event.currentTarget.value)} placeholder="my-skill" />
        </label>
        <button type="submit">Open or create</button>
      </form>
      {status.kind !== "idle" && (
        <p role={status.kind === "error" ? "alert" : "status"} class={`status status-${status.kind}`} data-testid="editor-status">
          {status.message}
        </p>
      )}
      {openedName && (
        <div class="editor-layout">
          <aside class="files" aria-labelledby="files-heading">
            <h2 id="files-heading">Files of {openedName}</h2>
            <ul>
              <li>
                <button
                  type="button"
                  class="link"
                  aria-current={path === skillPath(openedName)}
                  onClick={() => void openDocument(skillPath(openedName), skillTemplate(openedName))}
                >
                  SKILL.md
                </button>
              </li>
              {files.map((file) => (
                <li key={file.path}>
                  <button type="button" class="link" aria-current={path === file.path} onClick={() => void openDocument(file.path)}>
                    {file.path.slice(skillFolder(openedName).length)}
                  </button>{" "}
                  <span class="hint">{file.size} B</span>
                </li>
              ))}
            </ul>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                const relative = newFile.trim().replace(/^\/+/, "");
                if (relative !== "") void openDocument(`${skillFolder(openedName)}${relative}`, "");
              }}
            >
              <label>
                New or other file
                <input value={newFile} onInput={(event) => setNewFile(event.currentTarget.value)} />
              </label>
              <button type="submit" class="secondary">
                Open file
              </button>
            </form>
          </aside>
          {path && (
            <section class="document" aria-labelledby="document-heading">
              <h2 id="document-heading">
                <code>{path}</code> at {levelLabel}
                {text !== loadedText && <span class="flag">unsaved</span>}
              </h2>
              <CodeEditor
                documentKey={`${level}:${path}:${version}`}
                initialText={text}
                language={languageOf(path)}
                label={`Contents of ${path}`}
                onChange={setText}
                {...(isSkillFile ? { lint: lintSkillMarkdown } : {})}
                serverProblems={serverProblems}
              />
              <div class="actions">
                <button type="button" onClick={() => void save()}>
                  Save
                </button>
                {!confirmingDelete ? (
                  <button type="button" class="danger" onClick={() => setConfirmingDelete(true)}>
                    Delete…
                  </button>
                ) : (
                  <span role="group" aria-label="Confirm deletion" class="confirm">
                    Delete {path} at {levelLabel}? The next outer level's document takes over.
                    <button type="button" class="danger" onClick={() => void remove()}>
                      Yes, delete
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirmingDelete(false)}>
                      Cancel
                    </button>
                  </span>
                )}
              </div>
              {isSkillFile && (
                <section aria-labelledby="check-heading" class="checks">
                  <h3 id="check-heading">Schema check while typing</h3>
                  {liveProblems.length === 0 ? (
                    <p data-testid="live-problems">The frontmatter matches the published schema.</p>
                  ) : (
                    <ul data-testid="live-problems">
                      {liveProblems.map((problem, index) => (
                        <li key={index}>
                          line {problem.line}: {problem.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </section>
              )}
              {saveWarnings.length > 0 && (
                <section aria-labelledby="save-warnings-heading" class="checks">
                  <h3 id="save-warnings-heading">Saved, with warnings</h3>
                  <ul data-testid="save-warnings">
                    {saveWarnings.map((warning, index) => (
                      <li key={index}>
                        {warning.line === undefined ? "" : `line ${warning.line}: `}
                        {warning.message}
                      </li>
                    ))}
                  </ul>
                </section>
              )}
              {problemList.length > 0 && (
                <section aria-labelledby="server-problems-heading" class="checks">
                  <h3 id="server-problems-heading">The service refused it</h3>
                  <ul data-testid="server-problems">
                    {problemList.map((problem, index) => (
                      <li key={index}>
                        {problem.line === undefined ? "" : `line ${problem.line}: `}
                        {problem.message}
                      </li>
                    ))}
                  </ul>
                </section>
              )}
            </section>
          )}
        </div>
      )}
      {openedName && (
        <div class="authors-loop">
          {/* Keyed by skill: a report of the skill opened before must not stay on screen. */}
          <UsagePanel key={`usage:${openedName}`} client={client} project={project} name={openedName} />
          <EvalsPanel
            key={`evals:${openedName}`}
            client={client}
            project={project}
            name={openedName}
            onCreate={() => void openDocument(evalsPath(openedName), evalsTemplate(openedName))}
          />
          {path && (
            <HistoryPanel
              client={client}
              level={level}
              levelLabel={levelLabel}
              path={path}
              currentText={text}
              unsaved={text !== loadedText}
              revision={revision}
              onRestored={(body, saved) => restored(path, body, saved)}
              onRefused={showRefusal}
            />
          )}
        </div>
      )}
    </div>
  );
}
