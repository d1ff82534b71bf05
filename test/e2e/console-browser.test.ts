import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../infra/local/console-build.js";
import { ApiClient, skillMd } from "./support/api-client.js";
import { launchBrowser } from "./support/browser.js";
import type { Browser } from "./support/browser.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * The web console (issue 18) in headless Chromium against the local stack, as an author uses it:
 * sign in with the pre-filled dev token, find a skill and the one it shadows, edit a SKILL.md
 * (refused at its line, then fixed), spawn a process, activate with the argument form, preview
 * and compose a turn and read its ledger, clear a badge. Each screen is saved to docs/console/.
 * The steps share one page, in order, as a user would take them.
 */

const TENANT = "demo";
const PROJECT = "demo";
const SHADOWED = "_vance/skills/house-style/SKILL.md";
const SCREENSHOTS = new URL("../../docs/console/", import.meta.url);

let stack: LocalStack;
let browser: Browser;
let page: Page;
/** What Chromium reports about the Content-Security-Policy while the author works (issue 28: it must report nothing). */
const violations: string[] = [];

const shot = async (name: string): Promise<void> => void (await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true }));

beforeAll(async () => {
  await ensureConsoleBuilt();
  stack = await startLocalStack();
  const admin = new ApiClient(stack.httpUrl, stack.devToken);
  const seeded = [
    await admin.putDocument(TENANT, "_tenant", SHADOWED, skillMd("title: House style\nversion: 1.0.0\ndescription: The tenant's house style.", "Tenant body.\n")),
    await admin.putDocument(TENANT, PROJECT, SHADOWED, skillMd("title: House style\nversion: 1.0.0\ndescription: The project's house style.", "Project body.\n")),
    await admin.putDocument(
      TENANT,
      PROJECT,
      "_vance/skills/greet/SKILL.md",
      skillMd(
        "title: Greet\nversion: 1.0.0\ndescription: Greets someone by name.\narguments:\n  - name: who\n    type: string\n    required: true\ntriggers:\n  - type: KEYWORDS\n    keywords: [hello]",
        "Greet {{ args.who }} warmly.\n",
      ),
    ),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
  browser = await launchBrowser(stack.httpUrl);
  page = await browser.context.newPage();
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  // A string: this file is type-checked without the DOM library.
  await page.addInitScript(
    'document.addEventListener("securitypolicyviolation", (e) => console.error("Content-Security-Policy violation: " + e.violatedDirective + " " + e.blockedURI))',
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("the web console in Chromium", () => {
  it("pre-fills the local dev token and signs in, showing tenant, user and roles", async () => {
    // Act
    await page.goto(`${stack.httpUrl}/console/`);
    const token = page.getByLabel("Bearer token (JWT)");
    await token.waitFor();
    const prefilled = await token.inputValue();
    await shot("sign-in");
    await page.getByRole("button", { name: "Sign in" }).click();

    // Assess
    expect(prefilled).toBe(stack.devToken);
    expect(await page.getByTestId("identity-tenant").textContent()).toBe(TENANT);
    expect(await page.getByTestId("identity-user").textContent()).toBe("dev");
    expect(await page.getByTestId("identity-roles").textContent()).toBe("tenant-admin");
  });

  it("finds a skill by search, shows its source badge and the tenant document it shadows, and the problem that says so", async () => {
    // Act
    await page.getByLabel("Search").fill("house");
    const row = page.locator('[data-skill="house-style"]');
    await row.waitFor();
    const shadowed = page.locator('[data-shadowed="house-style"]');
    await shadowed.waitFor();
    await row.click();
    await page.getByRole("heading", { name: /house-style/ }).waitFor();
    await page.getByText("Project body.").waitFor();
    await shot("skills");

    // Assess
    expect(await row.locator(".badge").textContent()).toBe("PROJECT");
    expect(await page.locator('[data-skill="greet"]').count()).toBe(0);
    expect(await shadowed.textContent()).toContain("VANCE");
    expect(await shadowed.textContent()).toContain("hidden by PROJECT");
    expect(await page.getByRole("list", { name: "Problems" }).textContent()).toContain("shadowed by the PROJECT level");
  });

  it("opens the skill in the editor, refuses an invalid SKILL.md with the problem at its line, then saves the fix", async () => {
    // Prepare
    await page.getByRole("button", { name: "Edit SKILL.md" }).click();
    await page.getByTestId("editor-status").filter({ hasText: `Opened ${SHADOWED}` }).waitFor();
    const invalid = "---\ntitle: House style\nversion: 1.0.0\ndescription: The project's house style.\nlifecycle: forever\n---\nProject body.\n";
    const fixed = "---\ntitle: House style\nversion: 1.0.1\ndescription: The project's house style, revised.\n---\nProject body, revised.\n";

    // Act
    await replaceEditorText(invalid);
    await page.getByRole("button", { name: "Save" }).click();
    const refused = page.getByTestId("server-problems");
    await refused.waitFor();
    const refusal = await refused.textContent();
    const live = await page.getByTestId("live-problems").textContent();
    // CodeMirror lints after a pause in typing: wait for its gutter marker instead of racing it.
    await page.locator(".cm-lint-marker-error").first().waitFor();
    const marked = await page.locator(".cm-lint-marker-error").count();
    await shot("editor");
    await replaceEditorText(fixed);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByTestId("editor-status").filter({ hasText: "Saved" }).waitFor();
    const saved = await new ApiClient(stack.httpUrl, stack.devToken).getDocument(TENANT, PROJECT, SHADOWED);

    // Assess
    expect(refusal).toMatch(/line 5: .*lifecycle/);
    expect(live).toMatch(/line 5: lifecycle/);
    expect(marked).toBeGreaterThan(0);
    expect(saved.text).toBe(fixed);
  });

  it("spawns a process, activates a skill with the argument form and another from the /skill line with completion", async () => {
    // Act
    await page.getByRole("tab", { name: "Playground" }).click();
    await page.getByRole("button", { name: "Spawn process" }).click();
    await page.getByRole("heading", { name: /recipe default/ }).waitFor();
    await page.getByTestId("live-state").filter({ hasText: "open" }).waitFor();
    await page.getByLabel("Skill to activate").selectOption("greet");
    await page.getByLabel(/^who/).fill("Ada Lovelace");
    await page.getByRole("button", { name: "Activate with these arguments" }).click();
    const greet = page.locator('[data-active="greet"]');
    await greet.waitFor();
    await page.getByLabel("Command line").fill("/skill hou");
    const completions = await Promise.all((await page.locator("#skill-completions option").all()).map((option) => option.getAttribute("value")));
    await page.getByLabel("Command line").fill("/skill house-style");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator('[data-active="house-style"]').waitFor();

    // Assess
    expect(completions).toEqual(["/skill house-style"]);
    expect(await greet.textContent()).toContain("by explicit");
    expect(await greet.textContent()).toContain("args: Ada Lovelace");
  });

  it("previews a turn with its composition, composes it and reads the ledger, then clears a badge", async () => {
    // Act
    await page.getByLabel("User message").fill("hello there");
    await page.getByRole("button", { name: "Preview composition" }).click();
    await page.getByText("Preview (nothing changed)").waitFor();
    const previewSection = await page.getByTestId("skill-section").textContent();
    await page.getByRole("button", { name: "Compose turn" }).click();
    await page.getByRole("heading", { name: /^Turn / }).waitFor();
    const ledger = page.getByTestId("ledger");
    const greetRow = await ledger.locator('[data-ledger="greet"]').first().textContent();
    const tokens = await page.getByRole("table", { name: "Approximate tokens per skill" }).textContent();
    await shot("playground");
    await page.getByRole("button", { name: "Clear greet" }).click();
    await page.locator('[data-active="greet"]').waitFor({ state: "detached" });

    // Assess
    expect(previewSection).toContain("Greet Ada Lovelace warmly.");
    expect(greetRow).toContain("active");
    expect(greetRow).toContain("explicit");
    expect(tokens).toMatch(/greet\d+/);
    expect(await page.locator('[data-active="house-style"]').count()).toBe(1);
  });

  it("opens a project straight from a #token=…&project=… link and fits a narrow window", async () => {
    // Prepare
    const narrow = await browser.context.newPage();
    await narrow.setViewportSize({ width: 420, height: 900 });

    // Act
    await narrow.goto(`${stack.httpUrl}/console/#token=${stack.devToken}&project=${PROJECT}`);
    await narrow.locator('[data-skill="house-style"]').waitFor();
    const url = narrow.url();
    // A string: this file is type-checked without the DOM library.
    const overflow = await narrow.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    await narrow.screenshot({ path: new URL("narrow.png", SCREENSHOTS).pathname, fullPage: true });
    await narrow.close();

    // Assess
    expect(url).not.toContain("token=");
    expect(overflow).toBeLessThanOrEqual(0);
    expect(browser.foreignRequests).toEqual([]);
  });

  it("was served with a strict Content-Security-Policy and frame-ancestors 'none', and broke none of it on the way (issue 28)", async () => {
    // Act
    const response = await fetch(`${stack.httpUrl}/console/`);
    const policy = response.headers.get("content-security-policy") ?? "";

    // Assess
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain("unsafe-eval");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(violations).toEqual([]);
  });
});

/** Replaces the CodeMirror document as typing would (select all, insert), so its listeners run. */
async function replaceEditorText(text: string): Promise<void> {
  const content = page.locator(".cm-content");
  await content.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}
