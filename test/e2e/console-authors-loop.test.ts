import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../infra/local/console-build.js";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { launchBrowser } from "./support/browser.js";
import type { Browser } from "./support/browser.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * The author's loop in the web console (issue 17) in headless Chromium against the local stack:
 * a skill activated a few ways through the API shows its counts per day and path in the usage
 * panel, an evals file written in the editor warns on save and runs on demand, and the history
 * panel lists a SKILL.md's versions, diffs an older one against the editor and restores it.
 * Screens go to docs/console/authors-loop-*.png.
 */

const TENANT = "demo";
const PROJECT = "demo";
const DEPLOY = "_vance/skills/deploy/SKILL.md";
const DEPLOY_V1 = skillMd(
  "title: Deploy\nversion: 1.0.0\ndescription: Deploys the service.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy]",
  "Deploy body.\n",
);
const SCREENSHOTS = new URL("../../docs/console/", import.meta.url);

let stack: LocalStack;
let browser: Browser;
let page: Page;
let api: ApiClient;

const shot = async (name: string): Promise<void> =>
  void (await page.screenshot({ path: new URL(`authors-loop-${name}.png`, SCREENSHOTS).pathname, fullPage: true }));

beforeAll(async () => {
  await ensureConsoleBuilt();
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, stack.devToken);
  const seeded = [
    await api.putDocument(TENANT, PROJECT, DEPLOY, DEPLOY_V1),
    await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/skills/release/SKILL.md",
      skillMd(
        "title: Release\nversion: 1.0.0\ndescription: Cuts a release.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy, release]",
        "Release body.\n",
      ),
    ),
    await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/skills/quiet/SKILL.md",
      skillMd("title: Quiet\nversion: 1.0.0\ndescription: Never used.", "Quiet body.\n"),
    ),
    await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/recipes/with-deploy.yaml",
      "engine: ford\ndefaultActiveSkills: [deploy]\n",
      "application/yaml",
    ),
    await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/recipes/without-deploy.yaml",
      "engine: ford\nallowedSkills: [quiet]\n",
      "application/yaml",
    ),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
  browser = await launchBrowser(stack.httpUrl);
  page = await browser.context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("the author's loop in the web console", () => {
  it("shows the empty states of a skill nobody used and without evals, and its one version with its writer", async () => {
    // Act
    await page.goto(`${stack.httpUrl}/console/#token=${stack.devToken}&project=${PROJECT}`);
    await openInEditor("quiet");
    await page.getByTestId("usage-empty").waitFor();
    await page.getByRole("button", { name: "Run evals" }).click();
    const missing = page.getByTestId("evals-missing");
    await missing.waitFor();
    const versions = page.getByTestId("history-versions").locator("tbody tr");
    await versions.first().waitFor();

    // Assess
    expect(await page.getByTestId("usage-empty").textContent()).toContain("No activation of quiet");
    expect(await missing.textContent()).toContain("no evals/triggers.yaml");
    expect(await versions.count()).toBe(1);
    expect(await versions.first().textContent()).toContain("newest");
    expect(await versions.first().textContent()).toContain("dev");
    expect(await page.getByRole("alert").count()).toBe(0);
  });

  it("counts recipe, trigger, explicit and refused activations of a skill per day and path, with totals and the refusals' codes", async () => {
    // Prepare
    const withDeploy = await api.spawn(TENANT, "loop-session", { recipe: "with-deploy", projectId: PROJECT });
    const plain = await api.spawn(TENANT, "loop-session", { recipe: "default", projectId: PROJECT });
    const without = await api.spawn(TENANT, "loop-session", { recipe: "without-deploy", projectId: PROJECT });
    for (const spawned of [withDeploy, plain, without]) expect(spawned.status, spawned.text).toBe(201);
    const triggered = await api.compose(TENANT, plain.json.processId, { message: "please deploy it" }, LANE_WAIT_SECONDS);
    const explicit = await api.steer(TENANT, plain.json.processId, { command: "ACTIVATE", skillName: "deploy" }, LANE_WAIT_SECONDS);
    const refused = await api.steer(TENANT, without.json.processId, { command: "ACTIVATE", skillName: "deploy" }, LANE_WAIT_SECONDS);
    const today = new Date().toISOString().slice(0, 10);

    // Act
    await openInEditor("deploy");
    await page.getByLabel("Days").selectOption("30");
    const row = page.locator(`[data-usage-day="${today}"]`);
    await row.waitFor();
    const total = (path: string) => page.locator(`[data-usage-total="${path}"]`).textContent();
    const totals = {
      explicit: await total("explicit"),
      trigger: await total("trigger"),
      model: await total("model"),
      recipe: await total("recipe"),
      spawn: await total("spawn"),
      refused: await total("refused"),
      all: await total("all"),
    };
    const staleEvals = await page.getByTestId("evals-missing").count();
    const refusedWith = await page.getByTestId("usage-refused-codes").textContent();
    await shot("usage");

    // Assess
    expect(triggered.status, triggered.text).toBe(200);
    expect(explicit.status, explicit.text).toBe(200);
    expect(errorOf(refused)?.code).toBe("SKILL_NOT_ALLOWED");
    expect(totals).toEqual({ explicit: "1", trigger: "1", model: "0", recipe: "1", spawn: "0", refused: "1", all: "4" });
    expect(refusedWith).toBe("Refused with: SKILL_NOT_ALLOWED 1");
    expect(await row.textContent()).toContain("PROJECT");
    expect(staleEvals).toBe(0);
  });

  it("writes an evals file from the empty state, lists its warnings on save, and runs it: precision, recall, misses and the confusion", async () => {
    // Prepare
    await page.getByRole("button", { name: "Run evals" }).click();
    await page.getByTestId("evals-missing").waitFor();
    await page.getByRole("button", { name: "Write one" }).click();
    await page.getByTestId("editor-status").filter({ hasText: "evals/triggers.yaml does not exist" }).waitFor();

    // Act
    await replaceEditorText("should:\n  - deploy now\n  - ship it\nshould-not:\n  - hello there\n");
    await page.getByRole("button", { name: "Save" }).click();
    const warnings = page.getByTestId("save-warnings");
    await warnings.waitFor();
    await page.getByRole("button", { name: "Run evals" }).click();
    await page.getByTestId("evals-report").waitFor();
    await shot("evals");

    // Assess
    expect(await warnings.textContent()).toContain("should fire but did not: 'ship it'");
    expect(await page.getByTestId("editor-status").textContent()).toContain("with 2 warning(s)");
    expect(await page.getByTestId("evals-precision").textContent()).toBe("100%");
    expect(await page.getByTestId("evals-recall").textContent()).toBe("50%");
    expect(await page.getByTestId("evals-misses").textContent()).toContain("ship it");
    expect(await page.getByTestId("evals-false-hits").textContent()).toContain("None");
    expect(await page.getByTestId("evals-confusion").textContent()).toContain("“deploy now” → release");
    expect(await page.getByTestId("evals-no-triggers").count()).toBe(0);
  });

  it("lists SKILL.md's versions newest first, diffs the older one against the editor, restores it after a confirmation, and the editor shows it", async () => {
    // Prepare
    const revised = DEPLOY_V1.replace("Deploy body.", "Deploy body, revised.");
    await page.getByRole("button", { name: "SKILL.md" }).click();
    await page
      .getByTestId("editor-status")
      .filter({ hasText: `Opened ${DEPLOY}` })
      .waitFor();
    await replaceEditorText(revised);
    await page.getByRole("button", { name: "Save" }).click();
    await page
      .getByTestId("editor-status")
      .filter({ hasText: `Saved ${DEPLOY}` })
      .waitFor();
    const versions = page.getByTestId("history-versions").locator("tbody tr");
    await versions.nth(1).waitFor();

    // Act
    await versions.nth(1).getByRole("button", { name: /^View/ }).click();
    const diff = page.getByTestId("version-diff");
    await diff.waitFor();
    const diffText = await diff.textContent();
    await page.getByRole("button", { name: /^Restore …/ }).click();
    const confirm = await page.getByRole("group", { name: "Confirm restore" }).textContent();
    await shot("history");
    await page.getByRole("button", { name: "Yes, restore" }).click();
    await page.getByTestId("editor-status").filter({ hasText: "Restored an older version" }).waitFor();
    await versions.nth(2).waitFor();
    const editorText = await page.locator(".cm-content").textContent();
    const stored = await api.getDocument(TENANT, PROJECT, DEPLOY);

    // Assess
    expect(diffText).toContain("− Deploy body.");
    expect(diffText).toContain("+ Deploy body, revised.");
    expect(confirm).toContain("becomes the newest version");
    expect(editorText).toContain("Deploy body.");
    expect(editorText).not.toContain("revised");
    expect(stored.text).toBe(DEPLOY_V1);
    expect(await versions.count()).toBe(3);
    expect(await page.getByTestId("history-unavailable").count()).toBe(0);
  });

  it("shows a refused restore's problems as a refused save's, and overwrites nothing", async () => {
    // Prepare: `lint` was valid when saved; once it is deleted and `Lint` exists on the level, restoring it would collide.
    const lower = "_vance/skills/lint/SKILL.md";
    expect((await api.putDocument(TENANT, PROJECT, lower, skillMd("description: Lints.", "Lower lint.\n"))).status).toBe(200);
    expect((await api.deleteDocument(TENANT, PROJECT, lower)).status).toBe(204);
    expect(
      (await api.putDocument(TENANT, PROJECT, "_vance/skills/Lint/SKILL.md", skillMd("description: Lints.", "Upper lint.\n"))).status,
    ).toBe(200);
    await page.getByLabel("Skill name").fill("lint");
    await page.getByRole("button", { name: "Open or create" }).click();
    await page.getByTestId("editor-status").filter({ hasText: "does not exist" }).waitFor();

    // Act
    await page.getByTestId("history-versions").locator("tbody tr").first().getByRole("button", { name: /^View/ }).click();
    await page.getByRole("button", { name: /^Restore …/ }).click();
    await page.getByRole("button", { name: "Yes, restore" }).click();
    const problems = page.getByTestId("server-problems");
    await problems.waitFor();
    const status = await page.getByTestId("editor-status").textContent();
    const stored = await api.getDocument(TENANT, PROJECT, lower);

    // Assess
    expect(await problems.textContent()).toContain("collides with the skill 'Lint'");
    expect(status).toContain("Not restored");
    expect(status).toContain("nothing was overwritten");
    expect(stored.status).toBe(404);
  });

  it("says why every should message of a skill without triggers is a miss: only /skill or the model activates it", async () => {
    // Prepare
    const manual = "_vance/skills/manual/SKILL.md";
    expect(
      (
        await api.putDocument(
          TENANT,
          PROJECT,
          manual,
          skillMd("title: Manual\nversion: 1.0.0\ndescription: Activated by hand.", "Manual body.\n"),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await api.putDocument(
          TENANT,
          PROJECT,
          "_vance/skills/manual/evals/triggers.yaml",
          "should:\n  - do it by hand\n",
          "application/yaml",
        )
      ).status,
    ).toBe(200);

    // Act
    await openInEditor("manual");
    await page.getByRole("button", { name: "Run evals" }).click();
    const note = page.getByTestId("evals-no-triggers");
    await note.waitFor();

    // Assess
    expect(await page.getByTestId("evals-recall").textContent()).toBe("0%");
    expect(await note.textContent()).toContain("manual has no triggers");
    expect(await note.textContent()).toContain("/skill manual");
  });

  it("fits the panels into a narrow window, and makes no request outside its origin", async () => {
    // Prepare
    const narrow = await browser.context.newPage();
    await narrow.setViewportSize({ width: 420, height: 900 });

    // Act
    await narrow.goto(`${stack.httpUrl}/console/#token=${stack.devToken}&project=${PROJECT}`);
    await narrow.getByRole("tab", { name: "Editor" }).click();
    await narrow.getByLabel("Skill name").fill("deploy");
    await narrow.getByRole("button", { name: "Open or create" }).click();
    await narrow.getByTestId("usage-table").waitFor();
    await narrow.getByTestId("history-versions").waitFor();
    // A string: this file is type-checked without the DOM library.
    const overflow = await narrow.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    await narrow.close();

    // Assess
    expect(overflow).toBeLessThanOrEqual(0);
    expect(browser.foreignRequests).toEqual([]);
  });
});

/** The editor tab, a skill opened by name at its default level (the project). */
async function openInEditor(name: string): Promise<void> {
  await page.getByRole("tab", { name: "Editor" }).click();
  await page.getByLabel("Skill name").fill(name);
  await page.getByRole("button", { name: "Open or create" }).click();
  await page
    .getByTestId("editor-status")
    .filter({ hasText: `Opened _vance/skills/${name}/SKILL.md` })
    .waitFor();
}

/** Replaces the CodeMirror document as typing would (select all, insert), so its listeners run. */
async function replaceEditorText(text: string): Promise<void> {
  const content = page.locator(".cm-content");
  await content.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}
