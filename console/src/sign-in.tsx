import { useState } from "preact/hooks";
import { sessionOf } from "./session.js";
import type { Session } from "./session.js";

/** Paste a token; the local stack pre-fills its dev token. The service verifies it on every call. */
export function SignIn({
  devToken,
  refusal,
  onSignIn,
}: {
  devToken?: string;
  refusal?: string;
  onSignIn: (session: Session, project?: string) => void;
}) {
  const [token, setToken] = useState(devToken ?? "");
  const [project, setProject] = useState("");
  const [error, setError] = useState<string | undefined>();
  return (
    <main class="sign-in">
      <h1>Skills console</h1>
      {refusal && (
        <p role="alert" class="error" data-testid="token-refused">
          {refusal}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          try {
            onSignIn(sessionOf(token), project.trim() === "" ? undefined : project.trim());
          } catch (failure) {
            setError(failure instanceof Error ? failure.message : String(failure));
          }
        }}
      >
        <label for="token">Bearer token (JWT)</label>
        <textarea
          id="token"
          rows={5}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-describedby="token-help"
          spellcheck={false}
        />
        <p id="token-help" class="hint">
          {devToken
            ? `Pre-filled with the local stack's dev token${refusal ? ", not the refused one" : ""}.`
            : "Paste a token, e.g. from `npx skills token --tenant T --user U --projects P`."}
        </p>
        <label for="project">Project (optional, default: the token's first)</label>
        <input id="project" value={project} onInput={(event) => setProject(event.currentTarget.value)} />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
