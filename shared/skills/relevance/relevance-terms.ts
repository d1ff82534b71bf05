/**
 * Text → search terms, the same for skills and for messages (issue 26), so that a product
 * spelled `SeatGeek`, `seat-geek`, `seatgeek` or `Seat Geek` meets itself:
 *
 * - Unicode letters and digits only; accents folded (NFKD, marks dropped); lower case.
 * - A capital letter written alone is a term (`post on X`); other one-character words are not.
 * - Each word also yields its camel-case and letter/digit parts (`AbuseIPDB` → abuseipdb, abuse,
 *   ipdb; `s3Bucket` → s3bucket, s, 3, bucket — parts under 2 characters are dropped).
 * - With `compounds`, two adjacent words also yield their concatenation (`seat-geek` →
 *   seatgeek): names, tags and queries use it, running text does not (it would double its terms).
 * - A light suffix stemmer (plural -s/-es/-ies, -ing, -ed, a final -e), so `tickets`, `ticket`,
 *   `creating`, `created` and `create` meet; stop words (English function words, greetings and
 *   chat filler) are dropped, so small talk carries no signal.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const CAMEL_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\p{L}+|\d+/gu;
const MARKS = /\p{M}+/gu;
/** A word this long is no word (a hash, a blob): it is not a term. */
const MAX_WORD_CHARS = 40;

export interface TermOptions {
  /** Also the concatenation of each two adjacent words (neither a stop word), pushed here (may be the output array itself). */
  compounds?: string[] | undefined;
  /** Compounds only of words written together (`to-do`, `seat_geek`), not of words a space separates. */
  joinedOnly?: boolean;
  /** Stop at this many terms (queries: bounded work whatever the message). */
  maxTerms?: number;
}

/** Terms of `text` in order of appearance, repeats kept (term frequency counts them). */
export function termsOf(text: string, options: TermOptions = {}): string[] {
  const max = options.maxTerms ?? Number.POSITIVE_INFINITY;
  const out: string[] = [];
  const ascii = !NON_ASCII.test(text);
  const folded = ascii ? text : text.normalize("NFKD").replace(MARKS, "");
  const compounds = options.compounds;
  let previous: string | undefined;
  let previousEnd = -1;
  let previousStop = false;
  const word = (start: number, end: number): void => {
    const raw = folded.slice(start, end);
    if (raw.length > MAX_WORD_CHARS) {
      previous = undefined;
      return;
    }
    const lower = raw.toLowerCase();
    const stop = STOP_WORDS.has(lower);
    // A capital letter alone is a name (`X`, `R`); a lower-case one is noise.
    if (raw.length === 1 && raw !== lower && !stop) out.push(lower);
    else push(out, lower, stop);
    if (raw !== lower || DIGIT.test(raw)) {
      const parts = raw.match(CAMEL_PARTS);
      if (parts !== null && parts.length > 1)
        for (const part of parts) if (part.length >= 2) push(out, part.toLowerCase(), STOP_WORDS.has(part.toLowerCase()));
    }
    // Adjacent means separated by one separator character at most (`seat-geek`, `seat geek`); a
    // stop word joins only without a space (`to-do` → todo, but not `the slack` → theslack).
    if (compounds !== undefined && previous !== undefined && start - previousEnd <= 1) {
      const joined = start === previousEnd || folded.charCodeAt(previousEnd) !== 32;
      if (joined || (options.joinedOnly !== true && !stop && !previousStop)) push(compounds, previous + lower, false);
    }
    previous = lower;
    previousEnd = end;
    previousStop = stop;
  };
  if (ascii) {
    // The common case, without a regular expression: runs of ASCII letters and digits.
    let start = -1;
    for (let i = 0; i <= folded.length && out.length < max; i++) {
      const c = i < folded.length ? folded.charCodeAt(i) : 32;
      const alnum = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
      if (alnum) {
        if (start === -1) start = i;
      } else if (start !== -1) {
        word(start, i);
        start = -1;
      }
    }
  } else {
    for (const match of folded.matchAll(WORD)) {
      if (out.length >= max) break;
      word(match.index, match.index + match[0].length);
    }
  }
  return out.length > max ? out.slice(0, max) : out;
}

/** Any character outside 7-bit ASCII (the fast tokenizer reads only ASCII). */
const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;
const DIGIT = /\d/;

function push(out: string[], lower: string, stop: boolean): void {
  if (stop) return;
  const term = stem(lower);
  if (term.length >= 2 || DIGIT.test(term)) out.push(term);
}

/** A suffix stemmer small enough to read: enough for plurals and verb forms of skill texts. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || DIGIT.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

/**
 * Function words, greetings and chat filler: words that say nothing about which skill fits.
 * Kept short on purpose: a word that names a task (`file`, `send`, `open`) is never one.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been being but by can could did do does doing done for from had has have having he her here hers him his how i if in into is it its " +
    "itself just me mine my myself no nor not of off on once only or our ours out over own same she should so some such than that the their theirs them then " +
    "there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours " +
    "yourself yourselves am also any all about after again against before below between both during each few further more most other s t don doesn didn " +
    "isn wasn aren won let lets let's via per etc e g ie eg " +
    "hi hello hey hiya howdy yo thanks thank thx ty please pls plz ok okay okey yes yeah yep nope sure cool great nice good fine bye goodbye cheers " +
    "morning afternoon evening night today tomorrow day lol haha hmm um uh oh wow well really actually maybe just like want wanna need needs gonna " +
    "could would might must shall may something anything everything someone anyone thing things stuff way lot lots much many bit little quick quickly " +
    "help helps helping me us our am doing going get got getting make makes made use using used now again still already"
  ).split(/\s+/),
);
