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

/**
 * A text split into words and what separates them, alternately (words at even positions; the
 * first and last may be empty): runs of Unicode letters and digits, or of ASCII ones for an
 * ASCII text. Splitting natively is what makes a cold build of thousands of skills cheap: the
 * per-character work runs in the regular expression engine, not in not-yet-optimized JavaScript.
 */
const WORDS_AND_SEPARATORS = /([^\p{L}\p{N}]+)/u;
const ASCII_WORDS_AND_SEPARATORS = /([^A-Za-z0-9]+)/;
const CAMEL_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\p{L}+|\d+/gu;
const MARKS = /\p{M}+/gu;
/** A word this long is no word (a hash, a blob): it is not a term. */
const MAX_WORD_CHARS = 40;

export interface TermOptions {
  /** Also the concatenation of each two adjacent words (neither a stop word), pushed here. */
  compounds?: string[] | undefined;
  /** Compounds only of words written together (`to-do`, `seat_geek`), not of words a space separates. */
  joinedOnly?: boolean;
  /** Stop at this many terms (queries: bounded work whatever the message). */
  maxTerms?: number;
  /** Keep new words in the process-wide memo (skill texts, which every build reads again; not messages). */
  remember?: boolean;
}

/** Terms of `text` in order of appearance, repeats kept (term frequency counts them). */
export function termsOf(text: string, options: TermOptions = {}): string[] {
  const max = options.maxTerms ?? Number.POSITIVE_INFINITY;
  const out: string[] = [];
  const pieces = NON_ASCII.test(text)
    ? text.normalize("NFKD").replace(MARKS, "").split(WORDS_AND_SEPARATORS)
    : text.split(ASCII_WORDS_AND_SEPARATORS);
  const compounds = options.compounds;
  const joinedOnly = options.joinedOnly === true;
  const remember = options.remember === true;
  // This text's words the process-wide memo does not hold, each analyzed once all the same.
  let unknown: Map<string, WordTerms> | undefined;
  // The word before, while nothing but a separator lies between it and the next.
  let previous: WordTerms | undefined;
  for (let i = 0; i < pieces.length && out.length < max; i += 2) {
    const raw = pieces[i]!;
    if (raw.length === 0) continue; // before a leading or after a trailing separator
    if (raw.length > MAX_WORD_CHARS) {
      previous = undefined;
      continue;
    }
    let word = knownWords.get(raw) ?? unknown?.get(raw);
    if (word === undefined) {
      word = newWord(raw, remember);
      if (!word.memoized) (unknown ??= new Map()).set(raw, word);
    }
    const own = word.terms;
    for (let k = 0; k < own.length; k++) out.push(own[k]!);
    // Adjacent means separated by one separator character at most (`seat-geek`, `seat geek`); a
    // stop word joins only without a space (`to-do` → todo, but not `the slack` → theslack).
    if (compounds !== undefined && previous !== undefined) {
      const separator = pieces[i - 1]!;
      if (separator.length === 1 && (separator !== " " || (!joinedOnly && !word.stop && !previous.stop))) {
        const compound = compoundOf(previous, word);
        if (compound !== undefined) compounds.push(compound);
      }
    }
    previous = word;
  }
  return out.length > max ? out.slice(0, max) : out;
}

/** Any character outside 7-bit ASCII: an ASCII text needs neither folding nor Unicode classes. */
const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;

/** What one word (as written, at most MAX_WORD_CHARS) gives, the same wherever it occurs. */
interface WordTerms {
  readonly lower: string;
  readonly stop: boolean;
  /** Its terms in order: the word's own, then its camel-case and letter/digit parts. */
  readonly terms: readonly string[];
  /** Whether the process-wide memo holds it (then so may its compounds: their texts are its own). */
  readonly memoized: boolean;
  /** Its compound with each word (lower case) seen after it; null where the compound is no term. */
  joins: Map<string, string | null> | undefined;
}

/**
 * Words of skill texts already analyzed, and their compounds, process-wide: skill texts repeat a
 * small vocabulary (Zipf), so a cold index build of thousands of skills lowers, stems and splits
 * each distinct word once. Bounded: past MAX_KNOWN a new word or compound is analyzed each time,
 * with the same answer.
 */
const knownWords = new Map<string, WordTerms>();
let knownJoins = 0;
const MAX_KNOWN = 65_536;

/** A word the memo does not hold, analyzed, and kept in the memo when `remember` and there is room. */
function newWord(raw: string, remember: boolean): WordTerms {
  if (!remember || knownWords.size >= MAX_KNOWN) return analyzeWord(raw, false);
  // Its own copy: a word split out of a long text can be a view into that text, which the
  // process-wide memo must not keep alive (V8 shares the characters from 13 on).
  const word = raw.length < 13 ? raw : ` ${raw}`.slice(1);
  const known = analyzeWord(word, true);
  knownWords.set(word, known);
  return known;
}

function analyzeWord(raw: string, memoized: boolean): WordTerms {
  const terms: string[] = [];
  const lower = raw.toLowerCase();
  const stop = STOP_WORDS.has(lower);
  // A capital letter alone is a name (`X`, `R`); a lower-case one is noise.
  if (raw.length === 1 && raw !== lower && !stop) terms.push(lower);
  else push(terms, lower, stop);
  // A number (a skill's `-1042`) has no parts: one regular expression match less per distinct number.
  const digits = digitCount(raw);
  if ((raw !== lower || digits > 0) && digits < raw.length) {
    const parts = raw.match(CAMEL_PARTS);
    if (parts !== null && parts.length > 1)
      for (const part of parts) if (part.length >= 2) push(terms, part.toLowerCase(), STOP_WORDS.has(part.toLowerCase()));
  }
  return { lower, stop, terms, memoized, joins: undefined };
}

/** The term the two words make written together (`seat-geek` → seatgeek), stemmed; undefined when it is no term. */
function compoundOf(first: WordTerms, second: WordTerms): string | undefined {
  const known = first.joins?.get(second.lower);
  if (known !== undefined) return known ?? undefined;
  const terms: string[] = [];
  push(terms, first.lower + second.lower, false);
  const compound = terms.length === 0 ? null : terms[0]!;
  if (first.memoized && second.memoized && knownJoins < MAX_KNOWN) {
    (first.joins ??= new Map()).set(second.lower, compound);
    knownJoins += 1;
  }
  return compound ?? undefined;
}

/** Whether `text` holds an ASCII digit (what `/\d/` tests, without a regular expression). */
function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

function digitCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) count += 1;
  }
  return count;
}

function push(out: string[], lower: string, stop: boolean): void {
  if (stop) return;
  const term = stem(lower);
  if (term.length >= 2 || hasDigit(term)) out.push(term);
}

/** A suffix stemmer small enough to read: enough for plurals and verb forms of skill texts. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || hasDigit(w)) return w;
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
