// JUnit XML, so that a CI system shows each threshold (and each contender's runs, and each of
// check's figures) as a test. Written to satisfy both common schemas of a <testsuites> document,
// Jenkins' junit-10.xsd and Ant's JUnit.xsd: each testsuite has name (no spaces), tests, failures,
// errors, skipped, time, timestamp (no zone, no fraction), hostname, id and package, then
// properties holding at least one property (junit-10 needs one, Ant needs the element), testcases,
// system-out and system-err, in that order; each testcase a name, classname and time; a failure a
// message and a type.
import type { Report } from '../analysis/report-model.js';
import { forTerminal } from './safe-text.js';

export interface JunitCase {
  name: string;
  classname: string;
  /** Seconds. */
  timeS: number;
  /** Present when it failed: the one-line message and the detail. */
  failure?: { message: string; type: string; detail: string };
}

export interface JunitSuite {
  /** No spaces: Ant's schema takes a class-like name. */
  name: string;
  properties: { name: string; value: string }[];
  cases: JunitCase[];
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Text as XML character data or an attribute: controls shown as escapes (as in every other format),
 * markup escaped, and what XML 1.0 still cannot hold (a lone surrogate) dropped.
 */
export function escapeXml(text: string): string {
  return forTerminal(text)
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** Decimal seconds as the schemas' time type takes them: digits and a point, never an exponent. */
const timeAttribute = (s: number) => (Number.isFinite(s) && s > 0 ? s.toFixed(3) : '0.000');

/** ISO 8601 without zone or fraction, as junit-10.xsd's timestamp pattern asks (UTC). */
const timestamp = (iso: string) => {
  const d = new Date(iso);
  return (Number.isNaN(d.getTime()) ? new Date(0) : d).toISOString().slice(0, 19);
};

const attributes = (pairs: Record<string, string | number>) =>
  Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeXml(String(v))}"`)
    .join(' ');

function testcase(c: JunitCase): string {
  const { name, classname } = c;
  const open = `    <testcase ${attributes({ name, classname, time: timeAttribute(c.timeS) })}`;
  if (!c.failure) return `${open}/>`;
  const { message, type, detail } = c.failure;
  const failure = `<failure ${attributes({ message, type })}>${escapeXml(detail)}</failure>`;
  return `${open}>\n      ${failure}\n    </testcase>`;
}

export function renderJunit(suites: readonly JunitSuite[], createdAt: string): string {
  const all = suites.flatMap((s) => s.cases);
  const failed = (cases: readonly JunitCase[]) => cases.filter((c) => c.failure).length;
  const time = (cases: readonly JunitCase[]) => timeAttribute(cases.reduce((t, c) => t + c.timeS, 0));
  const suiteXml = suites.map((s, id) => {
    const head = attributes({
      name: s.name,
      tests: s.cases.length,
      failures: failed(s.cases),
      errors: 0,
      skipped: 0,
      time: time(s.cases),
      timestamp: timestamp(createdAt),
      hostname: 'localhost',
      id,
      package: 'blob-cacher',
    });
    const properties = s.properties.length ? s.properties : [{ name: 'tool', value: 'blob-cacher' }];
    return [
      `  <testsuite ${head}>`,
      '    <properties>',
      ...properties.map((p) => `      <property ${attributes(p)}/>`),
      '    </properties>',
      ...s.cases.map(testcase),
      '    <system-out/>',
      '    <system-err/>',
      '  </testsuite>',
    ].join('\n');
  });
  const head = attributes({
    name: 'blob-cacher',
    tests: all.length,
    failures: failed(all),
    errors: 0,
    time: time(all),
  });
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>';
  return [declaration, `<testsuites ${head}>`, ...suiteXml, '</testsuites>'].join('\n');
}

/** A report as JUnit: each threshold row a test, and each contender's runs a test that fails with a run. */
export function reportJunit(r: Report): string {
  const suites: JunitSuite[] = [];
  const properties = [
    { name: 'target', value: r.header.target },
    { name: 'unit', value: r.unit },
  ];
  const rows = r.thresholds?.rows ?? [];
  if (rows.length) {
    suites.push({
      name: 'thresholds',
      properties,
      cases: rows.map((x) => ({
        name: `${x.threshold} [${x.contender}]`,
        classname: 'blob-cacher.thresholds',
        timeS: 0,
        ...(x.passed
          ? {}
          : {
              failure: {
                message: `${x.threshold} failed for ${x.contender}`,
                type: 'threshold',
                detail: x.note,
              },
            }),
      })),
    });
  }
  suites.push({
    name: 'runs',
    properties,
    cases: r.contenders.map((c) => ({
      name: c.label,
      classname: `blob-cacher.${r.header.command}`,
      timeS: c.measuredMs / 1000,
      ...(c.verified
        ? {}
        : {
            failure: {
              message: `${c.label} failed`,
              type: 'run',
              detail: c.problems.join('\n') || 'no verified run',
            },
          }),
    })),
  });
  return renderJunit(suites, r.header.createdAt);
}
