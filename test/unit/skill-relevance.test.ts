import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { buildCatalog, catalogFor, CATALOG_HEADER, MAX_FULL_DESCRIPTIONS } from "../../shared/skills/skill-catalog.js";
import type { CatalogOptions } from "../../shared/skills/skill-catalog.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { searchSkills, parseSearchLimit, parseSearchQuery } from "../../shared/skills/relevance/skill-search.js";
import { searchTextOf } from "../../shared/skills/skill-search-text.js";
import { termsOf } from "../../shared/skills/relevance/relevance-terms.js";
import { boundedEditDistance } from "../../shared/skills/relevance/fuzzy-terms.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { InvalidRequest } from "../../shared/errors.js";

/**
 * Issue 26: relevance over a few dozen skills shaped like public collections — many
 * "<product>-automation" skills that name only the product in their description and say what
 * they do in the body (headings, tool slugs), a few rich document skills.
 */
const PRODUCTS = [
  ["slack", "Slack", "SLACK_SEND_MESSAGE", "Send a message to a channel"],
  ["linear", "Linear", "LINEAR_CREATE_ISSUE", "Create an issue"],
  ["jira", "Jira", "JIRA_CREATE_ISSUE", "Create a ticket"],
  ["github", "GitHub", "GITHUB_CREATE_PULL_REQUEST", "Open a pull request"],
  ["gmail", "Gmail", "GMAIL_SEND_EMAIL", "Send an email"],
  ["abuselpdb", "AbuseIPDB", "ABUSEIPDB_CHECK_IP", "Check an IP address"],
  ["seat-geek", "SeatGeek", "SEATGEEK_SEARCH_EVENTS", "Find concert tickets"],
  ["hubspot", "HubSpot", "HUBSPOT_CREATE_DEAL", "Create a deal"],
  ["notion", "Notion", "NOTION_CREATE_PAGE", "Create a page"],
  ["trello", "Trello", "TRELLO_MOVE_CARD", "Move a card"],
  ["asana", "Asana", "ASANA_CREATE_TASK", "Add a task"],
  ["zendesk", "Zendesk", "ZENDESK_REPLY_TICKET", "Reply to a support ticket"],
  ["stripe", "Stripe", "STRIPE_CREATE_REFUND", "Refund a payment"],
  ["shopify", "Shopify", "SHOPIFY_LIST_ORDERS", "List store orders"],
  ["airtable", "Airtable", "AIRTABLE_CREATE_RECORD", "Add a record to a base"],
  ["discord", "Discord", "DISCORD_SEND_MESSAGE", "Post to a server channel"],
  ["dropbox", "Dropbox", "DROPBOX_UPLOAD_FILE", "Upload a file"],
  ["figma", "Figma", "FIGMA_GET_FILE", "Export a design frame"],
  ["twilio", "Twilio", "TWILIO_SEND_SMS", "Send a text message"],
  ["calendly", "Calendly", "CALENDLY_CREATE_EVENT", "Book a meeting slot"],
  ["todoist", "Todoist", "TODOIST_CREATE_TASK", "Add a to-do"],
  ["datadog", "Datadog", "DATADOG_QUERY_METRICS", "Query metrics"],
  ["sentry", "Sentry", "SENTRY_LIST_ISSUES", "List error events"],
  ["pagerduty", "PagerDuty", "PAGERDUTY_TRIGGER_INCIDENT", "Page the on-call engineer"],
] as const;

const automation = ([slug, product, tool, task]: (typeof PRODUCTS)[number]): ResolvedSkill => {
  const body = `# ${product} Automation via Rube MCP\n\n## Core Workflows\n\n### 1. ${task}\n\nCall \`${tool}\` with the ids.\n\n## Pitfalls\n\n- Always search tools first.\n`;
  return resolvedSkill({
    name: `${slug}-automation`,
    description: `Automate ${product} tasks via Rube MCP (Composio). Always search tools first for current schemas.`,
    body,
    searchText: searchTextOf(body, []),
  });
};

const DOCUMENT_SKILLS: ResolvedSkill[] = [
  resolvedSkill({
    name: "pdf",
    description:
      "Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents, and handling forms.",
    searchText: searchTextOf("# PDF Processing Guide\n## Merge PDFs\n## Fill forms\n"),
  }),
  resolvedSkill({
    name: "docx",
    description: "Document creation and editing with tracked changes and comments.",
    searchText: searchTextOf("# Word documents\n## Tracked changes\n"),
  }),
  resolvedSkill({
    name: "xlsx",
    description: "Spreadsheet creation, formulas and charts.",
    searchText: searchTextOf("# Excel spreadsheets\n## Pivot tables\n"),
  }),
];

const LISTING: readonly ResolvedSkill[] = Object.freeze([...PRODUCTS.map(automation), ...DOCUMENT_SKILLS]);

/** A budget that lists about ten of the 27: the rest must be reached by relevance. */
const options = (query: string | undefined, overrides: Partial<CatalogOptions> = {}): CatalogOptions => ({
  budgetChars: 1_500,
  activeNames: [],
  allowedSkills: null,
  ...(query !== undefined ? { query } : {}),
  ...overrides,
});

const listedNames = (query: string | undefined, overrides: Partial<CatalogOptions> = {}): string[] =>
  buildCatalog(LISTING, options(query, overrides)).catalog.entries.map((e) => e.name);
const topSearch = (query: string): string | undefined => searchSkills(LISTING, query, { limit: 5 }).results[0]?.name;

describe("relevance: requests as users write them reach the right skill", () => {
  it.each([
    ["post a message to Slack #general saying the deploy is done", "slack-automation"],
    ["file a Linear ticket for the login bug", "linear-automation"],
    ["check this IP on AbuseIPDB: 10.0.0.1", "abuselpdb-automation"],
    ["is 10.0.0.1 listed on abuselpdb?", "abuselpdb-automation"],
    ["find me tickets for the concert on SeatGeek", "seat-geek-automation"],
    ["seatgeek events this weekend", "seat-geek-automation"],
    ["Seat Geek events this weekend", "seat-geek-automation"],
    ["slak the team that the build is green", "slack-automation"],
    ["send it from my gmial", "gmail-automation"],
    ["discrod announcement for the server", "discord-automation"],
    ["add a to-do: call the dentist", "todoist-automation"],
    ["merge these two PDFs into one", "pdf"],
    ["page the on-call engineer, the API is down", "pagerduty-automation"],
  ])("%s → %s, listed first and found first", (message, expected) => {
    // Act
    const listed = listedNames(message);

    // Assess
    expect(listed[0]).toBe(expected);
    expect(topSearch(message)).toBe(expected);
  });

  it("ranks a skill whose description names only the product by what its body says (headings, tool slugs)", () => {
    // Act
    const results = searchSkills(LISTING, "refund the payment for order 1042", { limit: 3 }).results;

    // Assess
    expect(results[0]!.name).toBe("stripe-automation");
  });
});

describe("relevance: the ranked catalog", () => {
  it("carries score on every entry of a ranked catalog, best first, and names the omitted count in its last line", () => {
    // Act
    const { catalog, text } = buildCatalog(LISTING, options("post a message to Slack"));

    // Assess
    expect(catalog.entries.every((e) => typeof e.score === "number")).toBe(true);
    const scores = catalog.entries.map((e) => e.score!);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(catalog.omittedCount).toBeGreaterThan(0);
    expect(text.split("\n").at(-1)).toBe(`+${catalog.omittedCount} more skills not listed: find them with skill_search {"query":"…"}`);
    expect(catalog.usedChars).toBeLessThanOrEqual(1_500);
  });

  it("keeps the stable name order without scores when the message carries no signal (greetings, small talk, empty)", () => {
    // Prepare
    const nameOrder = listedNames(undefined);

    // Act / Assess
    for (const message of ["hi there, how are you?", "thanks!", "ok", "   "]) {
      const built = buildCatalog(LISTING, options(message));
      expect(built.catalog.entries.map((e) => e.name)).toEqual(nameOrder);
      expect(built.catalog.entries.some((e) => e.score !== undefined)).toBe(false);
    }
    expect(nameOrder).toEqual([...nameOrder].sort());
  });

  it("lists recipe-pinned skills first whatever they score", () => {
    // Act
    const listed = listedNames("post a message to Slack", { pinned: ["xlsx", "pdf"] });

    // Assess
    expect(listed.slice(0, 3)).toEqual(["xlsx", "pdf", "slack-automation"]);
  });

  it("keeps the full description of the most relevant entries and shortens the rest first", () => {
    // Prepare: long descriptions everywhere, so shortening must happen
    const long = Object.freeze(LISTING.map((s) => ({ ...s, description: `${s.description} ${"Detail. ".repeat(40)}` })));

    // Act
    const { catalog } = buildCatalog(long, options("post a message to Slack", { budgetChars: 4_000 }));

    // Assess
    const slack = long.find((s) => s.name === "slack-automation")!;
    expect(catalog.entries[0]!.name).toBe("slack-automation");
    expect(catalog.entries[0]!.description).toBe(slack.description.replace(/\s+/g, " ").trim());
    expect(catalog.entries.at(-1)!.description.endsWith("…")).toBe(true);
    expect(MAX_FULL_DESCRIPTIONS).toBeGreaterThanOrEqual(1);
  });

  it("breaks ties of relevance by recent usage, then by name", () => {
    // Prepare: identical texts under three names
    const twins = Object.freeze(
      ["b-notes", "a-notes", "c-notes"].map((name) => resolvedSkill({ name, description: "Keep meeting notes" })),
    );

    // Act
    const byName = buildCatalog(twins, options("meeting notes")).catalog.entries.map((e) => e.name);
    const byUsage = buildCatalog(
      twins,
      options("meeting notes", {
        usage: new Map([
          ["c-notes", 3],
          ["b-notes", 1],
        ]),
      }),
    ).catalog.entries.map((e) => e.name);

    // Assess
    expect(byName).toEqual(["a-notes", "b-notes", "c-notes"]);
    expect(byUsage).toEqual(["c-notes", "b-notes", "a-notes"]);
  });

  it("gives the same bytes for the same listing, options, message and usage, through the memo or not", () => {
    // Act
    const first = catalogFor(LISTING, options("file a Linear ticket", { usage: new Map([["jira-automation", 2]]) }));
    const second = catalogFor(LISTING, options("file a Linear ticket", { usage: new Map([["jira-automation", 2]]) }));
    const unmemoized = buildCatalog(LISTING, options("file a Linear ticket", { usage: new Map([["jira-automation", 2]]) }));

    // Assess
    expect(JSON.stringify(second.catalog)).toBe(JSON.stringify(first.catalog));
    expect(second.text).toBe(first.text);
    expect(unmemoized.text).toBe(first.text);
    expect(first.text.startsWith(CATALOG_HEADER)).toBe(true);
  });

  it("leaves active, disabled, not allowed and model-disabled skills out of the ranked catalog and of search alike", () => {
    // Prepare
    const listing = Object.freeze([
      resolvedSkill({ name: "slack-a", description: "Post to Slack" }),
      resolvedSkill({ name: "slack-b", description: "Post to Slack", disableModelInvocation: true }),
      resolvedSkill({ name: "slack-c", description: "Post to Slack", enabled: false }),
      resolvedSkill({ name: "slack-d", description: "Post to Slack" }),
      resolvedSkill({ name: "slack-e", description: "Post to Slack" }),
    ]);

    // Act
    const { catalog } = buildCatalog(
      listing,
      options("post to slack", { activeNames: ["slack-d"], allowedSkills: ["slack-a", "slack-b", "slack-c", "slack-d"] }),
    );

    // Assess
    expect(catalog.entries.map((e) => e.name)).toEqual(["slack-a"]);
  });
});

describe("skill search: answers and bad input", () => {
  it("answers {name, description, source, score} best first with the total of matches, limit applied", () => {
    // Act
    const answer = searchSkills(LISTING, "create an issue", { limit: 2 });

    // Assess
    expect(answer.results).toHaveLength(2);
    expect(answer.total).toBeGreaterThanOrEqual(2);
    expect(Object.keys(answer.results[0]!).sort()).toEqual(["description", "name", "score", "source"]);
    expect(answer.results[0]!.score).toBeGreaterThanOrEqual(answer.results[1]!.score);
  });

  it("answers a 100 KB query, regex-like and Unicode-heavy text without failing", () => {
    // Act
    // The ask after 100 KB of pasted context: the query is read as its first and last 4 KB.
    const huge = searchSkills(LISTING, `${"x".repeat(20_000)} ${"lorem ipsum ".repeat(8_000)} now post this to slack`, { limit: 20 });
    const regex = searchSkills(LISTING, "(a+)+$ .*[^] \\d{99999} slack", { limit: 5 });
    const unicode = searchSkills(LISTING, "Ślàck 💬 メッセージ を 送る ".repeat(500), { limit: 5 });

    // Assess
    expect(huge.results[0]?.name).toBe("slack-automation");
    expect(regex.results[0]?.name).toBe("slack-automation");
    expect(unicode.results[0]?.name).toBe("slack-automation");
  });

  it("finds nothing, without failing, for a message of stop words only; a skill named only with stop words is still found by its description", () => {
    // Prepare
    const listing = Object.freeze([...LISTING, resolvedSkill({ name: "the-and-of", description: "Translate invoices into German" })]);

    // Act / Assess
    expect(searchSkills(listing, "the and of to", { limit: 5 })).toEqual({ results: [], total: 0 });
    expect(searchSkills(listing, "translate this invoice", { limit: 5 }).results[0]?.name).toBe("the-and-of");
  });

  it.each(["0", "21", "x", "-1", "1.5", ""])("refuses limit '%s' with INVALID_REQUEST", (limit) => {
    expect(() => parseSearchLimit(limit)).toThrow(InvalidRequest);
  });

  it("takes limits 1 to 20, 5 when absent, and refuses a blank query", () => {
    expect(parseSearchLimit(undefined)).toBe(5);
    expect(parseSearchLimit("1")).toBe(1);
    expect(parseSearchLimit("20")).toBe(20);
    expect(() => parseSearchQuery("  ")).toThrow(InvalidRequest);
    expect(() => parseSearchQuery(undefined)).toThrow(InvalidRequest);
  });
});

describe("relevance terms and search text", () => {
  it("splits names, camel case and product spellings so that they meet", () => {
    // Act
    const compounds: string[] = [];
    const terms = termsOf("seat-geek AbuseIPDB linear-automation", { compounds });

    // Assess
    expect(terms).toEqual(expect.arrayContaining(["seat", "geek", "abuseipdb", "abus", "ipdb", "linear", "automation"]));
    expect(compounds).toEqual(expect.arrayContaining(["seatgeek"]));
    expect(termsOf("hi thanks, how are you?")).toEqual([]);
  });

  it("counts a swap of neighbours as one edit", () => {
    expect(boundedEditDistance("discrod", "discord", 1)).toBe(1);
    expect(boundedEditDistance("slak", "slack", 1)).toBe(1);
    expect(boundedEditDistance("slack", "linear", 2)).toBe(3);
  });

  it("derives a bounded searchText at parse time from headings, tool names and the first words, code blocks left out", () => {
    // Prepare
    const body = `# Slack Automation\n\nPost messages.\n\n\`\`\`js\nsecretCodeOnly()\n\`\`\`\n\n## Send a message\n\nUse \`SLACK_SEND_MESSAGE\`.\n${"More words. ".repeat(2_000)}`;
    const text = `---\nname: slack-automation\ndescription: Automate Slack\nallowed-tools: Bash(git:*)\n---\n${body}`;

    // Act
    const parsed = parseSkillDocument("slack-automation", text, "slack-automation/SKILL.md").definition!;

    // Assess
    const [headings, tools, prose] = parsed.searchText!.split("\n");
    expect(headings).toBe("Slack Automation · Send a message");
    expect(tools!.split(" ")).toEqual(expect.arrayContaining(["Bash", "SLACK_SEND_MESSAGE"]));
    expect(prose!.startsWith("Post messages.")).toBe(true);
    expect(parsed.searchText).not.toContain("secretCodeOnly");
    expect(parsed.searchText!.length).toBeLessThanOrEqual(1_024);
    expect(
      parseSkillDocument("empty", "---\nname: empty\ndescription: Nothing\n---\n", "empty/SKILL.md").definition!.searchText,
    ).toBeUndefined();
  });
});
