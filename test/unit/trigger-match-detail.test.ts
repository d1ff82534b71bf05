import { describe, expect, it } from "vitest";
import { MAX_MATCH_KEYWORDS, MAX_MATCH_SPANS, TriggerMatchExplainer } from "../../shared/skills/triggers/trigger-match-detail.js";
import { TriggerTimeBudget } from "../../shared/skills/triggers/trigger-time-budget.js";

const keywords = (...words: string[]) => ({ type: "KEYWORDS" as const, keywords: words });
const pattern = (text: string) => ({ type: "PATTERN" as const, pattern: text });

describe("TriggerMatchExplainer", () => {
  it("counts a multi-word keyword only where its tokens are consecutive, as the matcher does", () => {
    // Prepare
    const explainer = new TriggerMatchExplainer("open a pull-request, then request a pull");
    const apart = new TriggerMatchExplainer("pull the branch, then request review");

    // Act
    const hit = explainer.explain({ name: "pr", triggers: [keywords("pull request", "merge")] });
    const missed = apart.explain({ name: "pr", triggers: [keywords("pull request", "merge", "rebase")] });

    // Assess
    expect(hit).toEqual({ type: "KEYWORDS", index: 0, keywords: ["pull request"] });
    expect(missed).toBeUndefined();
  });

  it("prefers a keyword trigger to an earlier pattern, as the index evaluates keywords first", () => {
    // Prepare
    const explainer = new TriggerMatchExplainer("deploy now");

    // Act
    const match = explainer.explain({ name: "d", triggers: [pattern("dep\\w+"), keywords("deploy")] });

    // Assess
    expect(match).toEqual({ type: "KEYWORDS", index: 1, keywords: ["deploy"] });
  });

  it("never names a pattern the per-level caps dropped, not even as the unrun fallback", () => {
    // Prepare
    const explainer = new TriggerMatchExplainer("deploy now");
    const spent = new TriggerMatchExplainer("deploy now", new TriggerTimeBudget(1, () => 1e12));
    const skill = { name: "d", triggers: [pattern("dep\\w+"), keywords("staging"), keywords("now")] };

    // Act
    const capped = explainer.explain({ name: "p", triggers: [pattern("dep\\w+")] }, false);
    const cappedSpent = spent.explain({ name: "p", triggers: [pattern("dep\\w+")] }, false);
    const byKeyword = explainer.explain(skill, false);

    // Assess
    expect(capped).toBeUndefined();
    expect(cappedSpent).toBeUndefined();
    expect(byKeyword).toEqual({ type: "KEYWORDS", index: 2, keywords: ["now"] });
  });

  it("names at most MAX_MATCH_KEYWORDS keywords", () => {
    // Prepare
    const words = Array.from({ length: MAX_MATCH_KEYWORDS + 5 }, (_, i) => `w${i}`);
    const explainer = new TriggerMatchExplainer(words.join(" "));

    // Act
    const match = explainer.explain({ name: "many", triggers: [keywords(...words)] });

    // Assess
    expect(match?.keywords).toEqual(words.slice(0, MAX_MATCH_KEYWORDS));
  });

  it("gives no match text past MAX_MATCH_SPANS regex spans or once the time budget is spent", () => {
    // Prepare
    const explainer = new TriggerMatchExplainer("deploy");
    const spent = new TriggerMatchExplainer(
      "deploy",
      new TriggerTimeBudget(
        0,
        (() => {
          let t = 0;
          return () => (t += 1);
        })(),
      ),
    );
    const skill = { name: "p", triggers: [keywords("other"), pattern("dep(l)oy")] };

    // Act
    const spans = Array.from({ length: MAX_MATCH_SPANS + 1 }, () => explainer.explain(skill));
    const late = spent.explain(skill);

    // Assess
    expect(spans[0]).toEqual({ type: "PATTERN", index: 1, match: "deploy" });
    expect(spans[MAX_MATCH_SPANS]).toEqual({ type: "PATTERN", index: 1 });
    expect(late).toEqual({ type: "PATTERN", index: 1 });
  });
});
