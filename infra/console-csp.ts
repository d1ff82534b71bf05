/**
 * The web console's Content-Security-Policy, one text for both places that serve it: the local
 * stack (infra/local/console-assets.ts) and CloudFront (infra/constructs/console-site.ts).
 * Scripts, fonts and images come only from the console's own origin (Vite emits no inline script,
 * and no eval: zod runs jitless there), nothing may frame it (clickjacking), and it may connect only
 * to its own origin and the API hosts given. Styles allow inline: CodeMirror writes its theme into
 * a <style> element and positions its tooltips and gutters by style attributes (measured in the
 * browser test: without it the lint markers stay hidden); a style cannot run code.
 */
export function consoleContentSecurityPolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...connectSources].join(" ")}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
