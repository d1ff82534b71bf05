/**
 * Per-message state of each candidate while an index matches (one byte per candidate, indexed by
 * candidate position). Parts of the index skip work for candidates that are no longer open.
 */
export type CandidateMarks = Uint8Array;

/** Not decided yet: its triggers still need evaluating. */
export const CANDIDATE_OPEN = 0;
/** Not to be considered for this message (filtered out by the caller): 1, so a 0/1 mask of exclusions can be copied in. */
export const CANDIDATE_EXCLUDED = 1;
/** Some trigger fired. */
export const CANDIDATE_FIRED = 2;
