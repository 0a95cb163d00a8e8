// The one place secrets are masked. Every writer goes through it: log lines, the results file,
// every report format on stdout (console, md, csv, json, html), and error messages. Values the
// run knows (keys, SAS tokens, connection strings, URL passwords) are registered; shapes that are
// secret wherever they appear (a SAS signature, an AccountKey, a URL password, an Authorization
// header) are masked by pattern, so that even a value nobody registered does not get out.
const secrets = new Set<string>();

/** Registers a secret value so that it is masked wherever it appears, raw or URI-encoded. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  secrets.add(value);
  try {
    const decoded = decodeURIComponent(value);
    if (decoded !== value) secrets.add(decoded);
    secrets.add(encodeURIComponent(value));
  } catch {
    // not URI-encoded; the raw value is registered
  }
}

/**
 * Registers a credential and each secret part of it: a SAS's or a URL's `sig` (as sent, decoded,
 * and with `+` read as a space, as a form decoder would), a connection string's AccountKey and
 * SharedAccessSignature, a URL's password. An error that quotes only the signature, decoded (the
 * SDK's do), is masked too.
 */
export function registerCredential(value: string | undefined): void {
  if (!value) return;
  // A URL is not a secret as a whole (it names the target in every report): only its parts below are.
  if (!URL.canParse(value)) registerSecret(value);
  for (const m of value.matchAll(/(?:AccountKey|SharedAccessSignature)=([^;]+)/gi)) registerCredential(m[1]);
  for (const m of value.matchAll(/(?:^|[?&;])(?:s|%73)(?:i|%69)(?:g|%67)=([^&;\s]+)/gi)) {
    const sig = m[1]!;
    registerSecret(sig);
    registerSecret(sig.replace(/\+/g, ' '));
    try {
      registerSecret(decodeURIComponent(sig.replace(/\+/g, ' ')));
    } catch {
      // a malformed escape: the raw forms are registered
    }
  }
  if (URL.canParse(value)) {
    const url = new URL(value);
    registerSecret(url.password);
    if (url.search) registerCredential(url.search);
  }
}

const MASK = '[redacted]';
const PATTERNS: [RegExp, string][] = [
  // After ? or &, also as HTML writes it (&amp;sig=) and URI-encoded (%26sig%3D).
  [/([?&;]sig=)[^&\s"'<]+/gi, `$1${MASK}`],
  // The name percent-encoded (?s%69g=): a server decodes it as sig.
  [/([?&;](?:s|%73)(?:i|%69)(?:g|%67)=)[^&\s"'<]+/gi, `$1${MASK}`],
  [/(%26sig%3D)(?:(?!%26)[^\s"'<&])+/gi, `$1${MASK}`],
  [/(AccountKey=)[^;\s"'<]+/gi, `$1${MASK}`],
  [/(SharedAccessSignature=)[^;\s"'<]+/gi, `$1${MASK}`],
  // scheme://user:password@host: the password, however it is spelled.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"'<]*:)[^\s/@"'<]+@/gi, `$1${MASK}@`],
  [
    /((?:Authorization|authorization)["']?\s*[:=]\s*["']?)(SharedKey|Bearer|Basic)\s+[^\s"',}<]+/g,
    `$1$2 ${MASK}`,
  ],
  [/\b(Bearer\s+)[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*/g, `$1${MASK}`],
];

/**
 * What every pattern above needs somewhere in the text: `=` (a signature, a key), `%` (an encoded
 * signature), `@` (a URL's password), an Authorization header or a bearer token. A text with none is
 * left by all of them as it is: one test instead of eight replaces, for each string of a results file.
 */
const ANY_PATTERN = /[=%@]|uthorization|Bearer/;

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(MASK);
  if (!ANY_PATTERN.test(out)) return out;
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}

/** Field names whose values are secrets whatever they look like. */
const SECRET_KEYS = /^(key|sas|accountKey|connectionString|password|token|secret|clientSecret)$/i;

/** A copy of `value` with every string redacted and secret-named fields masked: for JSON written out. */
export function redactDeep<T>(value: T): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key && SECRET_KEYS.test(key) ? MASK : redact(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x, k)]));
    return v;
  };
  // A generic walk over plain JSON data returns the same shape it was given.
  return walk(value) as T;
}
