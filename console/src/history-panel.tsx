import { useEffect, useMemo, useState } from "preact/hooks";
import { describeError } from "./api.js";
import type { DocumentProblem, DocumentVersion, SavedDocument, SkillsClient } from "./api.js";
import { diffLines } from "./line-diff.js";
import { formatSize, shortVersionId, writtenByOf } from "./version-label.js";

type Versions =
  { kind: "loading" } | { kind: "unavailable" } | { kind: "error"; message: string } | { kind: "list"; versions: DocumentVersion[] };
type Viewed = { version: DocumentVersion; text?: string; error?: string };

export interface HistoryPanelProps {
  client: SkillsClient;
  level: string;
  levelLabel: string;
  path: string;
  /** The editor's text now: what a version is compared with. */
  currentText: string;
  /** The editor holds edits not saved yet, which a restore replaces. */
  unsaved: boolean;
  /** Bumped by the editor after each save, so a new version shows up. */
  revision: number;
  onRestored: (text: string, saved: SavedDocument) => void;
  onRefused: (problems: DocumentProblem[], message: string) => void;
}

/**
 * A document's versions at one level, newest first (API.md "Author's loop"): one opened
 * read-only beside a line diff against the editor's text, and restored after a confirmation. A
 * stack whose bucket keeps no versions (501 VERSIONS_UNAVAILABLE) is a state, not an error.
 */
export function HistoryPanel({
  client,
  level,
  levelLabel,
  path,
  currentText,
  unsaved,
  revision,
  onRestored,
  onRefused,
}: HistoryPanelProps) {
  const [versions, setVersions] = useState<Versions>({ kind: "loading" });
  const [viewed, setViewed] = useState<Viewed | undefined>();
  const [mode, setMode] = useState<"diff" | "text">("diff");
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | undefined>();

  useEffect(() => {
    let current = true;
    setVersions({ kind: "loading" });
    client.documents.versions(level, path).then(
      (list) => current && setVersions({ kind: "list", versions: list }),
      (error: unknown) => {
        if (!current) return;
        const failure = describeError(error);
        if (failure.code === "VERSIONS_UNAVAILABLE") return setVersions({ kind: "unavailable" });
        // A document not saved yet has no history, which is not a failure either.
        if (failure.code === "DOCUMENT_NOT_FOUND") return setVersions({ kind: "list", versions: [] });
        setVersions({ kind: "error", message: failure.message });
      },
    );
    return () => {
      current = false;
    };
  }, [client, level, path, revision]);

  useEffect(() => {
    setViewed(undefined);
    setConfirming(false);
    setMessage(undefined);
  }, [level, path]);

  const view = async (version: DocumentVersion): Promise<void> => {
    setConfirming(false);
    setMessage(undefined);
    setViewed({ version });
    try {
      const document = await client.documents.get(level, path, { versionId: version.versionId });
      setViewed({ version, text: document.text() });
    } catch (error) {
      setViewed({ version, error: describeError(error).message });
    }
  };

  const restore = async (version: DocumentVersion): Promise<void> => {
    setConfirming(false);
    setMessage(`Restoring ${shortVersionId(version.versionId)}…`);
    try {
      const saved = await client.documents.restore(level, path, version.versionId);
      const document = await client.documents.get(level, path);
      setViewed(undefined);
      setMessage(undefined);
      onRestored(document.text(), saved);
    } catch (error) {
      const failure = describeError(error);
      if (failure.code === "VERSIONS_UNAVAILABLE") {
        setMessage(undefined);
        return setVersions({ kind: "unavailable" });
      }
      setMessage(`Not restored: ${failure.message}`);
      if (failure.code === "INVALID_DOCUMENT")
        onRefused(
          failure.problems,
          `Not restored: that version does not validate any more (${failure.problems.length} problem(s)); nothing was overwritten.`,
        );
    }
  };

  return (
    <section class="history-panel" aria-labelledby="history-heading">
      <h2 id="history-heading">
        History of <code>{path}</code> at {levelLabel}
      </h2>
      {versions.kind === "loading" && <p aria-live="polite">Loading…</p>}
      {versions.kind === "unavailable" && (
        <p data-testid="history-unavailable">
          This stack keeps no versions (its bucket is not versioned), so there is no history to show or restore.
        </p>
      )}
      {versions.kind === "error" && <p role="alert">{versions.message}</p>}
      {versions.kind === "list" && versions.versions.length === 0 && <p data-testid="history-empty">No saved version yet.</p>}
      {versions.kind === "list" && versions.versions.length > 0 && (
        <div class="scroll">
          <table aria-label={`Versions of ${path}`} data-testid="history-versions">
            <thead>
              <tr>
                <th>Version</th>
                <th>Saved (UTC)</th>
                <th>Size</th>
                <th>Written by</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {versions.versions.map((version, index) => (
                <tr key={version.versionId} data-version={version.versionId} aria-current={viewed?.version.versionId === version.versionId}>
                  <td>
                    <code title={version.versionId}>{shortVersionId(version.versionId)}</code>{" "}
                    {index === 0 && <span class="flag">newest</span>}
                  </td>
                  <td>{version.lastModified.replace("T", " ").replace(/\.\d+Z$|Z$/, "")}</td>
                  <td>{formatSize(version.size)}</td>
                  <td>{writtenByOf(version) ?? <span class="hint">unknown</span>}</td>
                  <td>
                    <button type="button" class="small secondary" onClick={() => void view(version)}>
                      View {shortVersionId(version.versionId)}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {message && (
        <p role="status" data-testid="history-status">
          {message}
        </p>
      )}
      {viewed && (
        <VersionView
          viewed={viewed}
          currentText={currentText}
          unsaved={unsaved}
          mode={mode}
          onMode={setMode}
          confirming={confirming}
          onConfirm={setConfirming}
          onRestore={() => void restore(viewed.version)}
          path={path}
          levelLabel={levelLabel}
        />
      )}
    </section>
  );
}

interface VersionViewProps {
  viewed: Viewed;
  currentText: string;
  unsaved: boolean;
  mode: "diff" | "text";
  onMode: (mode: "diff" | "text") => void;
  confirming: boolean;
  onConfirm: (confirming: boolean) => void;
  onRestore: () => void;
  path: string;
  levelLabel: string;
}

function VersionView({ viewed, currentText, unsaved, mode, onMode, confirming, onConfirm, onRestore, path, levelLabel }: VersionViewProps) {
  const label = shortVersionId(viewed.version.versionId);
  const diff = useMemo(() => (viewed.text === undefined ? undefined : diffLines(viewed.text, currentText)), [viewed.text, currentText]);
  const changed = diff ? diff.lines.filter((line) => line.kind !== "same").length : 0;
  return (
    <div class="version-view" data-testid="version-view">
      <h3>Version {label} (read-only)</h3>
      {viewed.error && <p role="alert">{viewed.error}</p>}
      {viewed.text === undefined && !viewed.error && <p aria-live="polite">Loading…</p>}
      {viewed.text !== undefined && diff && (
        <>
          <div class="actions" role="group" aria-label="Show the version as">
            <button type="button" class={mode === "diff" ? "" : "secondary"} aria-pressed={mode === "diff"} onClick={() => onMode("diff")}>
              Diff against the editor
            </button>
            <button type="button" class={mode === "text" ? "" : "secondary"} aria-pressed={mode === "text"} onClick={() => onMode("text")}>
              Text of this version
            </button>
          </div>
          {mode === "text" ? (
            <pre class="body" data-testid="version-text">
              {viewed.text}
            </pre>
          ) : changed === 0 ? (
            <p data-testid="version-diff">This version is the editor's text, line for line.</p>
          ) : (
            <>
              <p class="hint">
                <span class="diff-removed">− only in {label}</span> <span class="diff-added">+ only in the editor</span>
                {diff.approximate && " (too large to align line by line: shown as replaced)"}
              </p>
              <pre class="body diff" data-testid="version-diff">
                {diff.lines.map((line, index) => (
                  <div key={index} class={`diff-${line.kind}`}>
                    {line.kind === "removed" ? "− " : line.kind === "added" ? "+ " : "  "}
                    {line.text}
                  </div>
                ))}
              </pre>
            </>
          )}
          <div class="actions">
            {!confirming ? (
              <button type="button" onClick={() => onConfirm(true)}>
                Restore {label}…
              </button>
            ) : (
              <span role="group" aria-label="Confirm restore" class="confirm">
                Restore {label} of {path} at {levelLabel}? It is validated like a save and becomes the newest version; the current one stays
                in the history.
                {unsaved && " The editor's unsaved edits are replaced."}
                <button type="button" onClick={onRestore}>
                  Yes, restore
                </button>
                <button type="button" class="secondary" onClick={() => onConfirm(false)}>
                  Cancel
                </button>
              </span>
            )}
          </div>
        </>
      )}
    </div>
  );
}
