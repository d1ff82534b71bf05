import { markdown } from "@codemirror/lang-markdown";
import { yaml, yamlFrontmatter } from "@codemirror/lang-yaml";
import { linter, lintGutter, setDiagnostics } from "@codemirror/lint";
import type { Diagnostic } from "@codemirror/lint";
import { EditorView, basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";
import type { LintProblem } from "./frontmatter-lint.js";

interface CodeEditorProps {
  /** Which document is open: a new one resets the editor's text and history. */
  documentKey: string;
  initialText: string;
  language: "markdown" | "yaml" | "text";
  label: string;
  onChange: (text: string) => void;
  /** Checks while typing (SKILL.md: the published schema). */
  lint?: (text: string) => LintProblem[];
  /** The service's own problems from the last save, pinned to their lines until the next edit. */
  serverProblems: LintProblem[];
}

function diagnosticsOf(view: EditorView, problems: LintProblem[]): Diagnostic[] {
  const lines = view.state.doc.lines;
  return problems.map((problem) => {
    const line = view.state.doc.line(Math.min(Math.max(problem.line, 1), lines));
    return { from: line.from, to: line.to, severity: problem.severity, message: problem.message, source: `line ${problem.line}` };
  });
}

/** CodeMirror 6 with YAML, or Markdown with a YAML frontmatter, highlighting, a lint gutter and the problems at their lines. */
export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    if (!host.current) return;
    // A SKILL.md: YAML between the `---` fences, Markdown after. Markdown alone reads the
    // frontmatter's last line before `---` as a setext heading (bold, underlined).
    const languageExtension =
      props.language === "markdown" ? [yamlFrontmatter({ content: markdown() })] : props.language === "yaml" ? [yaml()] : [];
    const lintExtension = props.lint
      ? [linter((v) => diagnosticsOf(v, latest.current.lint?.(v.state.doc.toString()) ?? []), { delay: 300 })]
      : [];
    const created = new EditorView({
      parent: host.current,
      doc: props.initialText,
      extensions: [
        basicSetup,
        ...languageExtension,
        lintGutter(),
        ...lintExtension,
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": props.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // A new document is a new editor; typing is not a reason to rebuild it.
  }, [props.documentKey]);

  useEffect(() => {
    const current = view.current;
    if (!current || props.serverProblems.length === 0) return;
    current.dispatch(setDiagnostics(current.state, diagnosticsOf(current, props.serverProblems)));
  }, [props.serverProblems]);

  return <div class="code-editor" ref={host} />;
}
