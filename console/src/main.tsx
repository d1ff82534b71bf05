import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { clientFor } from "./api.js";
import { loadConsoleConfig } from "./console-config.js";
import type { ConsoleConfig } from "./console-config.js";
import { EditorScreen } from "./editor-screen.js";
import type { EditorTarget } from "./editor-screen.js";
import { PlaygroundScreen } from "./playground-screen.js";
import { forgetToken, rememberedToken, rememberToken, sessionOf, takeHashParameters } from "./session.js";
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

function App({ config, initialToken, initialProject }: { config: ConsoleConfig; initialToken?: string; initialProject?: string }) {
  const [session, setSession] = useState<Session | undefined>(() => {
    if (!initialToken) return undefined;
    try {
      return sessionOf(initialToken);
    } catch {
      return undefined;
    }
  });
  const [project, setProject] = useState<string>(initialProject ?? session?.projects[0] ?? "");
  const [screen, setScreen] = useState<Screen>("skills");
  const [editorTarget, setEditorTarget] = useState<EditorTarget | undefined>();
  const client = useMemo(() => (session ? clientFor(config, session) : undefined), [config, session]);

  useEffect(() => {
    if (session) rememberToken(session.token);
  }, [session]);

  if (!session || !client) {
    return (
      <SignIn
        {...(config.devToken ? { devToken: config.devToken } : {})}
        onSignIn={(signedIn, chosenProject) => {
          setSession(signedIn);
          setProject(chosenProject ?? signedIn.projects[0] ?? "");
        }}
      />
    );
  }

  const projectChoices = session.projects.includes(project) || project === "" ? session.projects : [project, ...session.projects];
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
        <label class="project-picker">
          Project
          <select value={project} onChange={(event) => setProject(event.currentTarget.value)}>
            {projectChoices.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
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
        {screen === "editor" && <EditorScreen client={client} session={session} project={project} {...(editorTarget ? { target: editorTarget } : {})} />}
        {screen === "playground" && <PlaygroundScreen client={client} project={project} />}
      </main>
    </div>
  );
}

const config = await loadConsoleConfig();
const fromHash = takeHashParameters();
const token = fromHash.token ?? rememberedToken();
const root = document.getElementById("app");
if (root) render(<App config={config} {...(token ? { initialToken: token } : {})} {...(fromHash.project ? { initialProject: fromHash.project } : {})} />, root);
