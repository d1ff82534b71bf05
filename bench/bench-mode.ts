/** `npm run bench -- --quick`: fewer repetitions and sizes, for development (well under a minute per section). */
export const QUICK = process.argv.includes("--quick");

/** Repetitions of a timing row: its figure is their median, `spread` their min and max. */
export const REPETITIONS = QUICK ? 3 : 7;

/** Skills per level for the flat-cost rows. */
export const FLAT_SIZES: readonly number[] = QUICK ? [100, 1000] : [100, 1000, 10_000];
