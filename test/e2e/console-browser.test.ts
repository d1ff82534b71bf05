import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../infra/local/console-build.js";
import { localClients } from "../../infra/local/local-resources.js";
import { ApiClient, skillMd } from "./support/api-client.js";
import { launchBrowser } from "./support/browser.js";
import type { Browser } from "./support/browser.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * The web console (issue 18) in headless Chromium against the local stack, as an author uses it:
 * sign in with the pre-filled dev token, find a skill and the one it shadows, edit a SKILL.md
 * (refused at its line, then fixed), spawn a process, activate with the argument form, preview
 * and compose a turn and read its ledger, clear a badge. Issue 30: the page links its icon (no
 * 404), the frontmatter is highlighted as YAML with an unclosed bracket marked at its own line, a
 * tenant-admin types any project and the hash is followed live, the problems list is grouped by
 * rule and starts collapsed without errors, a skill's detail opens beside the list (in view), and
 * a refused #token= is said. Each screen is saved to docs/console/. The steps share one page, in
 * order, as a user would take them.
 */

const TENANT = "demo";
const PROJECT = "demo";
const SHADOWED = "_vance/skills/house-style/SKILL.md";
/** A project the dev token does not list (a tenant-admin may open it) with many Agent Skills documents: two warnings each. */
const CROWDED = "crowded";
const CROWDED_SKILLS = 30;
const SCREENSHOTS = new URL("../../docs/console/", import.meta.url);

let stack: LocalStack;
let browser: Browser;
let page: Page;
/** What Chromium reports about the Content-Security-Policy while the author works (issue 28: it must report nothing). */
const violations: string[] = [];

const shot = async (name: string): Promise<void> =>
  void (await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true }));

beforeAll(async () => {
  await ensureConsoleBuilt();
  stack = await startLocalStack();
  const admin = new ApiClient(stack.httpUrl, stack.devToken);
  const seeded = [
    await admin.putDocument(
      TENANT,
      "_tenant",
      SHADOWED,
      skillMd("title: House style\nversion: 1.0.0\ndescription: The tenant's house style.", "Tenant body.\n"),
    ),
    await admin.putDocument(
      TENANT,
      PROJECT,
      SHADOWED,
      skillMd("title: House style\nversion: 1.0.0\ndescription: The project's house style.", "Project body.\n"),
    ),
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
  for (let index = 1; index <= CROWDED_SKILLS; index += 1) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    seeded.push(
      await admin.putDocument(
        TENANT,
        CROWDED,
        `_vance/skills/${name}/SKILL.md`,
        skillMd(`name: ${name}\ndescription: Agent Skills document number ${index}.`, "Body.\n"),
      ),
    );
  }
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
    // Prepare
    const failed: string[] = [];
    page.on("response", (response) => void (response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`)));

    // Act
    await page.goto(`${stack.httpUrl}/console/`);
    const token = page.getByLabel("Bearer token (JWT)");
    await token.waitFor();
    const prefilled = await token.inputValue();
    // A string: this file is type-checked without the DOM library.
    const iconUrl = await page.evaluate<string | null>("document.querySelector('link[rel~=icon]')?.href ?? null");
    const icon = iconUrl === null ? undefined : await fetch(iconUrl);
    await shot("sign-in");
    await page.getByRole("button", { name: "Sign in" }).click();

    // Assess
    expect(prefilled).toBe(stack.devToken);
    expect(icon?.status).toBe(200);
    expect(icon?.headers.get("content-type")).toBe("image/svg+xml");
    expect(failed).toEqual([]);
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
    // Nothing is an error: the problems list starts collapsed, one summary line.
    const collapsedLists = await page.getByRole("list", { name: "Problems" }).count();
    const summary = await page.getByTestId("problems-summary").textContent();
    await page.getByTestId("problems-summary").click();
    await shot("skills");

    // Assess
    expect(await row.locator(".badge").textContent()).toBe("PROJECT");
    expect(await page.locator('[data-skill="greet"]').count()).toBe(0);
    expect(await shadowed.textContent()).toContain("VANCE");
    expect(await shadowed.textContent()).toContain("hidden by PROJECT");
    expect(collapsedLists).toBe(0);
    expect(summary).toMatch(/^1 info in 1 rule$/);
    expect(await page.getByRole("list", { name: "Problems" }).textContent()).toContain("shadowed by the PROJECT level");
  });

  it("opens the skill in the editor, refuses an invalid SKILL.md with the problem at its line, then saves the fix", async () => {
    // Prepare
    await page.getByRole("button", { name: "Edit SKILL.md" }).click();
    await page
      .getByTestId("editor-status")
      .filter({ hasText: `Opened ${SHADOWED}` })
      .waitFor();
    const invalid =
      "---\ntitle: House style\nversion: 1.0.0\ndescription: The project's house style.\nlifecycle: forever\n---\nProject body.\n";
    const fixed =
      "---\ntitle: House style\nversion: 1.0.1\ndescription: The project's house style, revised.\n---\nProject body, revised.\n";

    const unclosed =
      "---\ntitle: House style\nversion: 1.0.0\ntags: [style, tone\ndescription: The project's house style.\n---\nProject body.\n";

    // Act: the frontmatter is YAML (its keys highlighted, its last line no Markdown heading); an unclosed [ is marked at its line
    await replaceEditorText(unclosed);
    await page.getByTestId("live-problems").filter({ hasText: "Flow sequence" }).waitFor();
    await page.locator(".cm-lint-marker-error").first().waitFor();
    const unclosedLive = await page.getByTestId("live-problems").textContent();
    const markerTop = (await page.locator(".cm-lint-marker-error").first().boundingBox())?.y ?? -1;
    const lineBoxes = await Promise.all(
      [3, 4].map(async (index) => (await page.locator(".cm-line").nth(index).boundingBox()) ?? { y: -1, height: 0 }),
    );
    const frontmatterLines = page.locator(".cm-line").filter({ hasText: /^(title|version|tags|description):/ });
    const keySpans = await frontmatterLines.first().locator("span").allTextContents();
    const headingStyled = await page.evaluate<boolean>(
      "[...document.querySelectorAll('.cm-line')].slice(0, 6).some((line) => [...line.querySelectorAll('span')].some((span) => { const style = getComputedStyle(span); return style.textDecorationLine.includes('underline') || Number(style.fontWeight) >= 600; }))",
    );

    // Act: a schema problem, refused by the service at its line
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
    expect(unclosedLive).toMatch(/line 4: Flow sequence/);
    const [line4, line5] = lineBoxes as [{ y: number; height: number }, { y: number; height: number }];
    expect(markerTop).toBeGreaterThanOrEqual(line4.y - 2);
    expect(markerTop).toBeLessThan(line5.y);
    expect(keySpans).toContain("title");
    expect(headingStyled).toBe(false);
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
    const completions = await Promise.all(
      (await page.locator("#skill-completions option").all()).map((option) => option.getAttribute("value")),
    );
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

  it("lets a tenant-admin type any project, follows the hash live, groups problems by rule and opens a skill's detail beside the list", async () => {
    // Act: a project the token does not list, typed; then the hash changed by hand
    await page.getByRole("tab", { name: "Skills" }).click();
    const picker = page.getByRole("combobox", { name: "Project" });
    await picker.fill(CROWDED);
    await picker.press("Enter");
    await page.getByRole("heading", { name: `Effective skills in ${CROWDED}` }).waitFor();
    // The console writes the hash back in an effect after the screen renders: wait for it (bounded).
    const hashAfterTyping = await page
      .waitForFunction(
        (project) => (globalThis as unknown as { location: { hash: string } }).location.hash === `#project=${project}`,
        CROWDED,
        { timeout: 5_000 },
      )
      .then(
        () => new URL(page.url()).hash,
        () => new URL(page.url()).hash,
      );
    await page.evaluate(`location.hash = "#project=${PROJECT}"`);
    await page.getByRole("heading", { name: `Effective skills in ${PROJECT}` }).waitFor();
    const pickerFollowed = await picker.inputValue();
    await page.evaluate(`location.hash = "#project=${CROWDED}"`);
    await page.getByRole("heading", { name: `Effective skills in ${CROWDED}` }).waitFor();
    await page.locator(`[data-skill="skill-${CROWDED_SKILLS}"]`).waitFor();
    const warningsOnly = await page.getByTestId("problems-summary").textContent();
    const collapsed = await page.getByRole("list", { name: "Problems" }).count();

    // Act: an error appears; the list opens with its group, the warnings' groups stay one line each
    // PUT refuses a defective SKILL.md: written straight into the bucket, as a bulk import would leave it.
    const clients = localClients(stack.endpoints, stack.region, stack.credentials);
    try {
      await clients.s3.send(
        new PutObjectCommand({
          Bucket: stack.resources.bucketName,
          Key: `tenants/${TENANT}/projects/${CROWDED}/_vance/skills/broken/SKILL.md`,
          Body: "no frontmatter at all\n",
        }),
      );
    } finally {
      clients.destroy();
    }
    // A PUT through the API moves the level's version on, so the next listing reads the bucket again.
    const bumped = await new ApiClient(stack.httpUrl, stack.devToken).putDocument(
      TENANT,
      CROWDED,
      "_vance/skills/skill-01/SKILL.md",
      skillMd("name: skill-01\ndescription: Agent Skills document number 1, again.", "Body.\n"),
    );
    await page.getByRole("button", { name: "Reload" }).click();
    await page.getByRole("list", { name: "Problems" }).waitFor();
    const groups = await page.locator(".problem-group").count();
    const openGroups = await page.locator(".problem-group > details[open]").count();
    const titleGroup = page.locator('.problem-group[data-rule="title: is absent"]');
    await titleGroup.locator("summary").click();
    // The entries are built once the group reports itself open: wait for the first.
    await titleGroup.locator("li").first().waitFor();
    const titleEntries = await titleGroup.locator("li").count();

    // Act: a skill at the top of a long list, then the last one, with a long problems group open
    const viewport = page.viewportSize() ?? { width: 0, height: 0 };
    const placements: { row: { x: number; width: number } | null; heading: { x: number; y: number; height: number } | null }[] = [];
    for (const name of ["skill-01", `skill-${CROWDED_SKILLS}`]) {
      const row = page.locator(`[data-skill="${name}"]`);
      await row.click();
      const heading = page.getByRole("heading", { name: new RegExp(`^${name}`) });
      await heading.waitFor();
      placements.push({ row: await row.boundingBox(), heading: await heading.boundingBox() });
    }
    await shot("skills-problems");

    // Assess
    expect(hashAfterTyping).toBe(`#project=${CROWDED}`);
    expect(pickerFollowed).toBe(PROJECT);
    expect(warningsOnly).toMatch(new RegExp(`^${CROWDED_SKILLS * 2} (warning|info)s in 2 rules$`));
    expect(collapsed).toBe(0);
    expect(bumped.status, bumped.text).toBe(200);
    expect(groups).toBeGreaterThanOrEqual(2);
    expect(openGroups).toBe(groups - 2);
    expect(titleEntries).toBe(CROWDED_SKILLS);
    for (const { row, heading } of placements) {
      expect(row).not.toBeNull();
      expect(heading).not.toBeNull();
      expect(heading!.y).toBeGreaterThanOrEqual(0);
      expect(heading!.y + heading!.height).toBeLessThanOrEqual(viewport.height);
      expect(heading!.x).toBeGreaterThan(row!.x + row!.width / 2);
    }
  });

  it("says a #token= link was refused instead of silently pre-filling the dev token", async () => {
    // Prepare
    const refused = await browser.context.newPage();

    // Act
    await refused.goto(`${stack.httpUrl}/console/#token=not-a-token&project=${PROJECT}`);
    const alert = refused.getByTestId("token-refused");
    await alert.waitFor();
    const said = await alert.textContent();
    const prefilled = await refused.getByLabel("Bearer token (JWT)").inputValue();
    const url = refused.url();
    await refused.close();

    // Assess
    expect(said).toContain("The token in the link (#token=…) was refused: That is not a JWT");
    expect(prefilled).toBe(stack.devToken);
    expect(url).not.toContain("not-a-token");
  });

  it("opens a project straight from a #token=…&project=… link and fits a narrow window", async () => {
    // Prepare
    const narrow = await browser.context.newPage();
    await narrow.setViewportSize({ width: 420, height: 900 });

    // Act
    await narrow.goto(`${stack.httpUrl}/console/#token=${stack.devToken}&project=${PROJECT}`);
    await narrow.locator('[data-skill="house-style"]').waitFor();
    const url = narrow.url();
    // One column: the detail follows the list and is brought into view.
    await narrow.locator('[data-skill="house-style"]').click();
    await narrow.getByText("Project body, revised.").waitFor();
    const detailBox = await narrow.getByRole("heading", { name: /^house-style/ }).boundingBox();
    // A string: this file is type-checked without the DOM library.
    const overflow = await narrow.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    await narrow.screenshot({ path: new URL("narrow.png", SCREENSHOTS).pathname, fullPage: true });
    await narrow.close();

    // Assess
    expect(url).not.toContain("token=");
    expect(url).toContain(`#project=${PROJECT}`);
    expect(detailBox!.y).toBeGreaterThanOrEqual(0);
    expect(detailBox!.y + detailBox!.height).toBeLessThanOrEqual(900);
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
