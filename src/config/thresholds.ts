// --threshold's grammar: a figure of the report, a comparison and a limit (`p99<200ms`, `MiB/s>500`,
// `errors==0`, `cost per 1k<0.01`), optionally for one contender (`chunked: p99<200ms`), or a claim
// the rank test decides (`chunked faster than single`). Parsed here once into data; analysis
// (analysis/thresholds.ts) evaluates it against a report. Pure: no I/O.
import { PHASES } from '../transport/phases.js';

export const COMPARATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;
export type Comparator = (typeof COMPARATORS)[number];

/** What a figure's limit is written in: a duration, a rate in its own unit, money, a share, a count. */
export type FigureUnit = 'ms' | 'MiB/s' | 'ops/s' | 'blobs/s' | '$' | '%' | 'count';

/** A figure a threshold can name: where the report holds it is analysis's business, by `name`. */
export interface FigureSpec {
  /** The canonical name, as the pass/fail table prints it. */
  name: string;
  unit: FigureUnit;
}

/**
 * The latency percentiles every report carries for each contender (analysis/analyze.ts
 * LATENCY_PERCENTILES, which a test holds equal to this): a threshold may only name a figure shown.
 */
export const THRESHOLD_PERCENTILES = [0, 10, 25, 50, 75, 90, 95, 99, 99.9, 100] as const;
/** Each phase's (and the object's) summary carries these. */
const METRIC_QUANTILES = ['p50', 'p90', 'p99', 'max'] as const;
const METRICS = [...PHASES, 'total', 'object'] as const;
const TIERS = ['hot', 'cool', 'cold'] as const;

/** Every figure name a threshold takes, lower-cased, to its spec. */
function figureTable(): Map<string, FigureSpec> {
  const t = new Map<string, FigureSpec>();
  const add = (spec: FigureSpec, ...aliases: string[]) => {
    for (const a of [spec.name, ...aliases]) t.set(a.toLowerCase(), spec);
  };
  add({ name: 'time', unit: 'ms' }, 'median time', 'time ms', 'wall');
  add({ name: 'MiB/s', unit: 'MiB/s' }, 'throughput');
  add({ name: 'ops/s', unit: 'ops/s' });
  add({ name: 'blobs/s', unit: 'blobs/s' });
  for (const p of THRESHOLD_PERCENTILES) {
    add({ name: p === 100 ? 'max' : p === 0 ? 'min' : `p${p}`, unit: 'ms' }, `p${p}`, `total p${p}`);
  }
  for (const m of METRICS) for (const q of METRIC_QUANTILES) add({ name: `${m} ${q}`, unit: 'ms' });
  add({ name: 'errors', unit: 'count' }, 'failed requests');
  add({ name: 'error rate', unit: '%' });
  add({ name: 'retries', unit: 'count' });
  add({ name: 'throttled', unit: 'count' });
  add({ name: 'requests per object', unit: 'count' }, 'req/obj');
  add({ name: 'runs', unit: 'count' });
  add({ name: 'cost per 1k', unit: '$' }, 'cost per 1000', '$/1k obj');
  add({ name: 'cost per GiB', unit: '$' });
  for (const tier of TIERS) {
    add({ name: `cost per 1k ${tier}`, unit: '$' }, `cost per 1000 ${tier}`, `$/1k obj ${tier}`);
    add({ name: `cost per GiB ${tier}`, unit: '$' });
  }
  return t;
}

const FIGURES = figureTable();

/** The figure names as a user writes them, for --help and error lines. */
export const FIGURE_NAMES: readonly string[] = [...new Set([...FIGURES.values()].map((f) => f.name))];

export interface FigureThreshold {
  kind: 'figure';
  /** As the user wrote it. */
  text: string;
  /** One contender's label or strategy; absent: every contender. */
  contender?: string;
  figure: FigureSpec;
  op: Comparator;
  /** In the figure's unit: ms for times, a fraction for a share (1% = 0.01), dollars, a count. */
  limit: number;
}

/** `a faster than b`: the rank test finds a significantly faster; `a not slower than b`: nor b faster. */
export interface ClaimThreshold {
  kind: 'claim';
  text: string;
  claim: 'faster' | 'not-slower';
  a: string;
  b: string;
}

export type Threshold = FigureThreshold | ClaimThreshold;

/** What separates thresholds in BLOB_CACHER_THRESHOLD (and repeated --threshold flags, joined). */
export const THRESHOLD_SEPARATOR = ';';

const TIME_UNITS_MS: Record<string, number> = { us: 0.001, µs: 0.001, ms: 1, s: 1_000, m: 60_000 };

const EXAMPLES =
  "e.g. 'p99<200ms', 'MiB/s>500', 'errors==0', 'chunked: p99<200ms' " + "or 'chunked faster than single'";

type Problem = { problem: string };
const problem = (text: string): Problem => ({ problem: text });

/** `A faster than B`, `A not slower than B`: both contenders known and not the same. */
function parseClaim(text: string, m: RegExpExecArray, known: readonly string[]): ClaimThreshold | Problem {
  const [a, how, b] = [m[1]!.trim(), m[2]!.toLowerCase(), m[3]!.trim()];
  for (const name of [a, b]) {
    const bad = unknownContender(name, known);
    if (bad) return problem(bad);
  }
  if (a === b) return problem(`'${text}' compares ${a} with itself; name two contenders`);
  return { kind: 'claim', text, claim: how === 'faster than' ? 'faster' : 'not-slower', a, b };
}

/** A threshold's text, or why it is not one (the problem and the fix, one line). */
export function parseThreshold(raw: string, contenders: readonly string[]): Threshold | Problem {
  const text = raw.trim();
  // A bare size is upload's single Put Blob size given to the wrong option: the answer names the right one.
  if (/^\d+(\.\d+)?\s*[kmgt]?i?b?$/i.test(text)) {
    return problem(
      `'${text}' is a size, not a rule; the size up to which a blob goes as one Put Blob is ` +
        '--single-shot-size',
    );
  }
  const claim = /^(.+?)\s+(faster than|not slower than)\s+(.+)$/i.exec(text);
  if (claim && !/(<|>|==|!=)/.test(text)) return parseClaim(text, claim, contenders);
  const m = /^(.*?)(<=|>=|==|!=|<|>)(.*)$/.exec(text);
  if (!m) {
    return problem(
      `'${text}' has no comparison (<, <=, >, >=, ==, !=) and is no 'A faster than B'; ` +
        `write one, ${EXAMPLES}`,
    );
  }
  const [left, op, right] = [m[1]!, m[2] as Comparator, m[3]!.trim()];
  // A scope ends at the last colon: a sweep cell's label may hold one (`--endpoint http://h:1`).
  const colon = left.lastIndexOf(':');
  const contender = colon >= 0 ? left.slice(0, colon).trim() : undefined;
  const figureName = (colon >= 0 ? left.slice(colon + 1) : left).trim().replace(/\s+/g, ' ');
  if (contender === '') {
    const fixed = `chunked: ${figureName}${op}${right}`;
    return problem(`'${text}' has a ':' with no contender before it; write e.g. '${fixed}'`);
  }
  const bad = contender === undefined ? undefined : unknownContender(contender, contenders);
  if (bad) return problem(bad);
  const figure = FIGURES.get(figureName.toLowerCase());
  if (!figure) {
    const some = FIGURE_NAMES.slice(0, 8).join(', ');
    return problem(
      `'${figureName}' in '${text}' is not a reported figure; use one of ${some}, … ` +
        '(docs/thresholds.md lists them)',
    );
  }
  const limit = parseLimit(right, figure);
  if (typeof limit !== 'number') {
    return problem(`'${right}' in '${text}' is not a limit for ${figure.name}; ${limit.fix}`);
  }
  return { kind: 'figure', text, ...(contender !== undefined ? { contender } : {}), figure, op, limit };
}

/** The limit in the figure's unit, or how to write one. */
function parseLimit(raw: string, figure: FigureSpec): number | { fix: string } {
  const m = /^(\$)?\s*(\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*([a-zµ/%]*)$/i.exec(raw);
  const n = m ? Number(m[2]) : NaN;
  const unit = (m?.[3] ?? '').toLowerCase();
  // Only money takes a leading $.
  const plain = m !== null && Number.isFinite(n) && (m[1] === undefined || figure.unit === '$');
  switch (figure.unit) {
    case 'ms': {
      const scale = TIME_UNITS_MS[unit || 'ms'];
      if (plain && scale !== undefined) return n * scale;
      return { fix: 'write a duration such as 200ms, 1.5s or 800us (a bare number is ms)' };
    }
    case '%':
      if (plain && (unit === '%' || unit === '')) return unit === '%' ? n / 100 : n;
      return { fix: 'write a share such as 1% or 0.01' };
    case '$':
      if (plain && (unit === '' || unit === 'usd')) return n;
      return { fix: "write an amount in the price table's currency, such as 0.01 or $0.01" };
    case 'count':
      return plain && unit === '' ? n : { fix: 'write a plain number such as 0 or 3' };
    default:
      if (plain && (unit === '' || unit === figure.unit.toLowerCase())) return n;
      return { fix: `write a number of ${figure.unit} such as 500` };
  }
}

/** A contender is named by its strategy, alone or with its sweep cell (`chunked [--concurrency 8]`). */
function unknownContender(name: string, known: readonly string[]): string | undefined {
  const strategy = name.split(' [')[0]!.trim();
  if (known.includes(strategy)) return undefined;
  return (
    `'${name}' is not a contender; name one of ${known.join(', ')} ` +
    "(a sweep cell as 'chunked [--concurrency 8]')"
  );
}

/** Every threshold in `raw` (separated by THRESHOLD_SEPARATOR), or the first problem. */
export function parseThresholds(raw: string, contenders: readonly string[]): Threshold[] | Problem {
  const out: Threshold[] = [];
  for (const part of raw.split(THRESHOLD_SEPARATOR)) {
    if (part.trim() === '') continue;
    const t = parseThreshold(part, contenders);
    if ('problem' in t) return t;
    out.push(t);
  }
  return out.length ? out : problem(`no threshold given; write one, ${EXAMPLES}`);
}
