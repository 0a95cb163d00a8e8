// A JUnit XML check without a download: a strict parser of the XML subset a report writes (a
// declaration, elements, attributes in double quotes, character data with the five predefined
// entities and numeric references; no DTD, CDATA or comments), and the structure the two schemas
// CI systems read a <testsuites> document by require, as written out here from them: Jenkins'
// junit-10.xsd and Ant's JUnit.xsd. Where they differ the stricter is kept. This is the schemas'
// structure encoded by hand, not a validation against the XSD files themselves (no network here).
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;

function unescapeXml(s: string, where: string): string {
  return s.replace(/&([^;]*);/g, (_m, ref: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[ref] !== undefined) return named[ref]!;
    const num = /^#(x[0-9a-fA-F]+|\d+)$/.exec(ref);
    if (!num) throw new Error(`${where}: unknown entity &${ref};`);
    return String.fromCodePoint(num[1]!.startsWith('x') ? parseInt(num[1]!.slice(1), 16) : Number(num[1]));
  });
}

/** Parses `xml` into its root element; throws on anything not well-formed. */
export function parseXml(xml: string): XmlElement {
  let i = 0;
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n?/.exec(xml);
  if (!decl) throw new Error('no XML declaration with version 1.0 and encoding UTF-8');
  i = decl[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < xml.length) {
    if (xml[i] !== '<') {
      const end = xml.indexOf('<', i);
      const text = xml.slice(i, end < 0 ? xml.length : end);
      if (/[<>]/.test(text.replace(/&[^;]*;/g, ''))) throw new Error(`unescaped markup in text at ${i}`);
      if (!stack.length) {
        if (text.trim()) throw new Error(`text outside the root at ${i}`);
      } else stack.at(-1)!.text += unescapeXml(text, `text at ${i}`);
      i = end < 0 ? xml.length : end;
      continue;
    }
    if (xml.startsWith('</', i)) {
      const m = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(xml.slice(i));
      const open = stack.pop();
      if (!m || !open || open.name !== m[1])
        throw new Error(`end tag ${m?.[1]} does not close ${open?.name} at ${i}`);
      i += m[0].length;
      continue;
    }
    const name = NAME.exec(xml.slice(i + 1));
    if (!name) throw new Error(`bad tag at ${i}`);
    const el: XmlElement = { name: name[0], attrs: {}, children: [], text: '' };
    i += 1 + name[0].length;
    for (;;) {
      const ws = /^\s*/.exec(xml.slice(i))![0];
      i += ws.length;
      if (xml.startsWith('/>', i) || xml[i] === '>') break;
      if (!ws) throw new Error(`no space before an attribute at ${i}`);
      const a = /^([A-Za-z_][\w.-]*)="([^"<]*)"/.exec(xml.slice(i));
      if (!a) throw new Error(`bad attribute at ${i}`);
      if (a[1]! in el.attrs) throw new Error(`attribute ${a[1]} twice at ${i}`);
      el.attrs[a[1]!] = unescapeXml(a[2]!, `attribute ${a[1]}`);
      i += a[0].length;
    }
    if (stack.length) stack.at(-1)!.children.push(el);
    else if (root) throw new Error('a second root element');
    else root = el;
    if (xml.startsWith('/>', i)) i += 2;
    else {
      i += 1;
      stack.push(el);
    }
  }
  if (stack.length || !root) throw new Error(`unclosed ${stack.at(-1)?.name ?? 'root'}`);
  return root;
}

/** xs:decimal as both schemas' time takes it (junit-10's SUREFIRE_TIME: no exponent, no sign). */
const DECIMAL = /^\d+(\.\d+)?$/;
/** Ant's ISO8601_DATETIME_PATTERN, which junit-10 keeps: no zone, no fraction. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const INT = /^\d+$/;

function attrs(
  el: XmlElement,
  where: string,
  required: Record<string, RegExp>,
  optional: Record<string, RegExp>,
): string[] {
  const problems: string[] = [];
  for (const [k, re] of Object.entries(required)) {
    if (el.attrs[k] === undefined) problems.push(`${where}: required attribute ${k} missing`);
    else if (!re.test(el.attrs[k]!)) problems.push(`${where}: ${k}="${el.attrs[k]}" does not match ${re}`);
  }
  for (const [k, v] of Object.entries(el.attrs)) {
    if (required[k]) continue;
    if (!optional[k]) problems.push(`${where}: attribute ${k} is not in the schema`);
    else if (!optional[k].test(v)) problems.push(`${where}: ${k}="${v}" does not match ${optional[k]}`);
  }
  return problems;
}

/** Children in schema order: each name with its min and max count. */
function sequence(el: XmlElement, where: string, order: [string, number, number][]): string[] {
  const problems: string[] = [];
  let k = 0;
  for (const [name, min, max] of order) {
    let n = 0;
    while (k < el.children.length && el.children[k]!.name === name) {
      n++;
      k++;
    }
    const most = max === Infinity ? 'unbounded' : max;
    if (n < min || n > max)
      problems.push(`${where}: ${n} <${name}> where the schema takes ${min} to ${most}`);
  }
  if (k < el.children.length) problems.push(`${where}: <${el.children[k]!.name}> is not allowed there`);
  return problems;
}

const TOKEN = /^\S(.*\S)?$/s;
const ANY = /^[\s\S]*$/;

/**
 * Every way `xml` breaks the junit-10.xsd / Ant JUnit.xsd structure of a <testsuites> document; empty when it
 * fits.
 */
export function junitProblems(xml: string): string[] {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (err) {
    return [`not well-formed: ${(err as Error).message}`];
  }
  if (root.name !== 'testsuites') return [`root is <${root.name}>, not <testsuites>`];
  const problems = [
    ...attrs(
      root,
      'testsuites',
      {},
      { name: ANY, time: DECIMAL, tests: INT, failures: INT, disabled: INT, errors: INT },
    ),
    ...sequence(root, 'testsuites', [['testsuite', 0, Infinity]]),
  ];
  root.children.forEach((suite, s) => {
    const at = `testsuite ${s + 1}`;
    problems.push(
      // Ant: name without spaces, timestamp, hostname, tests, failures, errors, time, id and package
      // required.
      ...attrs(
        suite,
        at,
        {
          name: /^[^\s]+$/,
          tests: INT,
          failures: INT,
          errors: INT,
          time: DECIMAL,
          timestamp: TIMESTAMP,
          hostname: TOKEN,
          id: INT,
          package: TOKEN,
        },
        { skipped: INT, disabled: INT },
      ),
      // Ant requires properties, system-out and system-err; junit-10 requires a property inside properties.
      ...sequence(suite, at, [
        ['properties', 1, 1],
        ['testcase', 0, Infinity],
        ['system-out', 1, 1],
        ['system-err', 1, 1],
      ]),
    );
    const props = suite.children.find((c) => c.name === 'properties');
    if (props) {
      problems.push(...sequence(props, `${at} properties`, [['property', 1, Infinity]]));
      for (const p of props.children)
        problems.push(...attrs(p, `${at} property`, { name: TOKEN, value: ANY }, {}));
    }
    const cases = suite.children.filter((c) => c.name === 'testcase');
    if (String(cases.length) !== suite.attrs.tests) {
      problems.push(`${at}: tests="${suite.attrs.tests}" but ${cases.length} testcases`);
    }
    const failed = cases.filter((c) => c.children.some((x) => x.name === 'failure')).length;
    if (String(failed) !== suite.attrs.failures) {
      problems.push(`${at}: failures="${suite.attrs.failures}" but ${failed} failed testcases`);
    }
    cases.forEach((c, j) => {
      const where = `${at} testcase ${j + 1}`;
      problems.push(
        ...attrs(
          c,
          where,
          { name: TOKEN, classname: TOKEN, time: DECIMAL },
          { assertions: ANY, status: ANY },
        ),
        ...sequence(c, where, [
          ['skipped', 0, 1],
          ['error', 0, Infinity],
          ['failure', 0, Infinity],
          ['system-out', 0, Infinity],
          ['system-err', 0, Infinity],
        ]),
      );
      // Ant: a failure's type is required, its message optional; its text is the detail.
      for (const f of c.children.filter((x) => x.name === 'failure')) {
        problems.push(
          ...attrs(f, `${where} failure`, { type: TOKEN }, { message: ANY }),
          ...sequence(f, `${where} failure`, []),
        );
      }
    });
  });
  return problems;
}
