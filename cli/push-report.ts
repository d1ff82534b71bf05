import type { PushSummary } from "./push.js";

/** The closing lines of `skills push`: counts, then each refused or failed skill with its reasons. */
export function formatPushSummary(summary: PushSummary, target: string, dryRun: boolean): string[] {
  const files = summary.uploaded.reduce((n, s) => n + s.files, 0);
  const lines = dryRun
    ? [
        `dry run: ${summary.skills} skill(s) checked; ${summary.uploaded.length} would be uploaded (${files} file(s)), ${summary.refused.length} refused`,
      ]
    : [
        `pushed to ${target}: ${summary.skills} skill(s): ${summary.uploaded.length} uploaded (${files} file(s)), ${summary.unchanged.length} unchanged, ${summary.refused.length} refused, ${summary.failed.length} failed`,
      ];
  if (summary.refused.length > 0) {
    lines.push("refused (nothing of these was uploaded):");
    for (const skill of summary.refused) {
      lines.push(`  ${skill.name} (${skill.directory})`);
      for (const reason of skill.reasons) lines.push(`    ${reason}`);
    }
  }
  if (summary.failed.length > 0) {
    lines.push("failed:");
    for (const skill of summary.failed) {
      lines.push(`  ${skill.name}`);
      for (const reason of skill.reasons) lines.push(`    ${reason}`);
    }
  }
  return lines;
}

export const pushExitCode = (summary: PushSummary): number =>
  summary.skills === 0 || summary.refused.length > 0 || summary.failed.length > 0 ? 1 : 0;
