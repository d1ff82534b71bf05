/** The cascade level a skill came from, as a badge whose text says it (colour is only a hint). */
export function SourceBadge({ source }: { source: string }) {
  return <span class={`badge source-${source.toLowerCase()}`}>{source}</span>;
}
