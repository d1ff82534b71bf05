/**
 * `config.json` beside index.html says where the API is. The local stack answers it with its own
 * origin and its dev token (so the sign-in form is pre-filled); a deployment writes the API and
 * WebSocket URLs next to the assets. Without it the console calls its own origin.
 */
export interface ConsoleConfig {
  apiUrl: string;
  webSocketUrl?: string;
  devToken?: string;
}

export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  const fallback: ConsoleConfig = { apiUrl: location.origin };
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (!response.ok) return fallback;
    const body = (await response.json()) as Partial<Record<keyof ConsoleConfig, unknown>>;
    const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
    const webSocketUrl = text(body.webSocketUrl);
    const devToken = text(body.devToken);
    return { apiUrl: text(body.apiUrl) ?? fallback.apiUrl, ...(webSocketUrl ? { webSocketUrl } : {}), ...(devToken ? { devToken } : {}) };
  } catch {
    return fallback;
  }
}
