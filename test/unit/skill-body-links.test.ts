import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { linkedSiblingPaths } from "../../shared/skills/skill-body-links.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";

describe("sibling files a body links", () => {
  it("takes relative Markdown links and images, without anchors and queries; never URLs, absolute or escaping paths", () => {
    // Act
    const links = linkedSiblingPaths(
      [
        'Read [forms](forms.md) and [the API](./references/api.md#auth), ![logo](assets/logo%2Dbig.png "Logo").',
        "Not these: [site](https://example.com/x.md), [mail](mailto:a@b.c), [top](#top), [root](/etc/passwd), [up](../other/SKILL.md).",
        "Twice: [forms](forms.md).",
      ].join("\n"),
    );

    // Assess
    expect(links).toEqual(["forms.md", "references/api.md", "assets/logo-big.png"]);
  });

  it("warns on PUT about a linked file that is not in the project yet, matching case-insensitively like skill_read_file", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put("acme", "_tenant", "_vance/skills/pdf/forms.md", "# Forms\n");

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      "acme",
      "_tenant",
      "_vance/skills/pdf/SKILL.md",
      new TextEncoder().encode("---\nname: pdf\ndescription: d\n---\nSee [forms](FORMS.md) and [ref](reference.md).\n"),
    );

    // Assess
    expect(saved.warnings.filter((w) => w.message.includes("the body links"))).toEqual([
      {
        path: "_vance/skills/pdf/SKILL.md",
        message: "the body links 'reference.md', which is not present yet in this project (expected at _vance/skills/pdf/reference.md)",
      },
    ]);
  });
});
