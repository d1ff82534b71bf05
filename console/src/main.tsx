import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { clientFor } from "./api.js";
import { loadConsoleConfig } from "./console-config.js";
import type { ConsoleConfig } from "./console-config.js";
import { EditorScreen } from "./editor-screen.js";
import type { EditorTarget } from "./editor-screen.js";
import { PlaygroundScreen } from "./playground-screen.js";
import { ProjectPicker } from "./project-picker.js";
import { forgetToken, openToken, projectHash, rememberedToken, rememberToken, takeHashParameters } from "./session.js";
import type { Session } from "./session.js";
import { SignIn } from "./sign-in.js";
import { SkillsScreen } from "./skills-screen.js";
import "./styles.css";

type Screen = "skills" | "editor" | "playground";

const SCREENS: { id: Screen; label: string }[] = [
  { id: "skills", label: "Skills" },
  { id: "editor", label: "Editor" },
  { id: "playground", label: "Playground" },
];

type Opened = ReturnType<typeof openToken>;

function App({ config, opened, initialProject }: { config: ConsoleConfig; opened?: Opened; initialProject?: string }) {
  const [session, setSession] = useState<Session | undefined>(opened && "session" in opened ? opened.session : undefined);
  const [refusal, setRefusal] = useState<string | undefined>(opened && "refusal" in opened ? opened.refusal : undefined);
  const [project, setProject] = useState<string>(initialProject ?? session?.projects[0] ?? "");
  const [screen, setScreen] = useState<Screen>("skills");
  const [editorTarget, setEditorTarget] = useState<EditorTarget | undefined>();
  const client = useMemo(() => (session ? clientFor(config, session) : undefined), [config, session]);

  useEffect(() => {
    if (session) rememberToken(session.token);
  }, [session]);

  // The hash is followed live: a new #project= (or a new #token= link) applies without a reload.
  useEffect(() => {
    const follow = (): void => {
      const next = takeHashParameters();
      if (next.token !== undefined) {
        const reopened = openToken(next.token, "link");
        if ("session" in reopened) {
          setSession(reopened.session);
          setRefusal(undefined);
        } else {
          forgetToken();
          setSession(undefined);
          setRefusal(reopened.refusal);
        }
      }
      if (next.project !== undefined) setProject(next.project);
    };
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);

  // …and it says the project in use, so a reload or a shared link opens the same one.
  useEffect(() => {
    if (session && project !== "" && location.hash !== projectHash(project))
      history.replaceState(null, "", location.pathname + location.search + projectHash(project));
  }, [session, project]);

  if (!session || !client) {
    return (
      <SignIn
        {...(config.devToken ? { devToken: config.devToken } : {})}
        {...(refusal ? { refusal } : {})}
        onSignIn={(signedIn, chosenProject) => {
          setSession(signedIn);
          setRefusal(undefined);
          setProject(chosenProject ?? takeHashParameters().project ?? signedIn.projects[0] ?? "");
        }}
      />
    );
  }

  return (
    <div class="shell">
      <header class="topbar">
        <h1>Skills console</h1>
        <dl class="identity" aria-label="Signed-in identity">
          <dt>Tenant</dt>
          <dd data-testid="identity-tenant">{session.tenant}</dd>
          <dt>User</dt>
          <dd data-testid="identity-user">{session.login}</dd>
          <dt>Roles</dt>
          <dd data-testid="identity-roles">{session.roles.length > 0 ? session.roles.join(", ") : "none"}</dd>
        </dl>
        <ProjectPicker session={session} project={project} onChange={setProject} />
        <button
          type="button"
          class="secondary"
          onClick={() => {
            forgetToken();
            setSession(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="Screens">
        {SCREENS.map((item) => (
          <button key={item.id} type="button" role="tab" aria-selected={screen === item.id} onClick={() => setScreen(item.id)}>
            {item.label}
          </button>
        ))}
      </nav>
      <main>
        {screen === "skills" && (
          <SkillsScreen
            client={client}
            project={project}
            onEdit={(target) => {
              setEditorTarget(target);
              setScreen("editor");
            }}
          />
        )}
        {screen === "editor" && (
          <EditorScreen client={client} session={session} project={project} {...(editorTarget ? { target: editorTarget } : {})} />
        )}
        {screen === "playground" && <PlaygroundScreen client={client} project={project} />}
      </main>
    </div>
  );
}

const config = await loadConsoleConfig();
const fromHash = takeHashParameters();
const remembered = rememberedToken();
const opened =
  fromHash.token !== undefined ? openToken(fromHash.token, "link") : remembered !== undefined ? openToken(remembered, "tab") : undefined;
if (opened && "refusal" in opened) forgetToken();
const root = document.getElementById("app");
if (root)
  render(<App config={config} {...(opened ? { opened } : {})} {...(fromHash.project ? { initialProject: fromHash.project } : {})} />, root);
