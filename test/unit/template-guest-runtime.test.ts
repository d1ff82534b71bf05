import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  NUNJUCKS_GUEST_RUNTIME_FILE,
  buildNunjucksGuestRuntime,
  renderVendorFile,
} from "../../shared/templates/guest/build-nunjucks-guest.js";

describe("nunjucks guest runtime", () => {
  it("is vendored from the current nunjucks-guest-entry.js and nunjucks (rebuild with build-nunjucks-guest.ts)", async () => {
    // Act
    const rebuilt = renderVendorFile(await buildNunjucksGuestRuntime());
    const vendored = await readFile(NUNJUCKS_GUEST_RUNTIME_FILE, "utf8");

    // Assess
    expect(vendored).toBe(rebuilt);
  });
});
