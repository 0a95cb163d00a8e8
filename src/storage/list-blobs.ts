// List Blobs as raw REST: the request URL of one page, and a minimal reading of its answer (the
// names, in order, and NextMarker) without an XML dependency. Entities are decoded; a name the
// service sends base64-encoded (<Name Encoded="true">, for characters XML cannot carry) is decoded too.
import { nodeCrypto } from '../startup/lazy.js';
import type { ListSpec } from '../plan/items.js';
import type { TargetInfo } from './target.js';

type BlobInfo = Extract<TargetInfo, { kind: 'blob' }>;

export function listPageUrl(
  info: BlobInfo,
  spec: Pick<ListSpec, 'prefix' | 'pageSize' | 'delimiter'>,
  marker?: string,
): URL {
  const url = new URL(
    `${info.endpoint}/${encodeURIComponent(info.container)}${info.sas ? `?${info.sas}` : ''}`,
  );
  url.searchParams.set('restype', 'container');
  url.searchParams.set('comp', 'list');
  url.searchParams.set('prefix', spec.prefix);
  url.searchParams.set('maxresults', String(spec.pageSize));
  if (spec.delimiter) url.searchParams.set('delimiter', spec.delimiter);
  if (marker) url.searchParams.set('marker', marker);
  return url;
}

export interface ListPage {
  /** Blob names, then the BlobPrefix names of a hierarchical listing, each in the order given. */
  names: string[];
  prefixes: string[];
  /** Absent or empty: the last page. */
  nextMarker?: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10),
      );
    return ENTITIES[e] ?? whole;
  });
}

/** The Name of each element `tag` (Blob or BlobPrefix), in document order. */
function namesOf(xml: string, tag: string): string[] {
  const out: string[] = [];
  const element = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  for (const m of xml.matchAll(element)) {
    const name = /<Name(\s[^>]*)?>([^<]*)<\/Name>/.exec(m[1]!);
    if (!name) continue;
    const text = unescapeXml(name[2]!);
    out.push(
      /Encoded\s*=\s*"true"/i.test(name[1] ?? '') ? Buffer.from(text, 'base64').toString('utf8') : text,
    );
  }
  return out;
}

/** Throws on an answer that is not an EnumerationResults document: a page must be read, not guessed. */
export function parseListPage(xml: string): ListPage {
  if (!/<EnumerationResults[\s>]/.test(xml))
    throw new Error(`not a List Blobs answer: ${JSON.stringify(xml.slice(0, 80))}`);
  const marker = /<NextMarker>([^<]*)<\/NextMarker>/.exec(xml)?.[1];
  // <BlobPrefix> holds only a Name; <Blob> elements are matched on their own (BlobPrefix does not nest).
  return {
    names: namesOf(xml, 'Blob'),
    prefixes: namesOf(xml, 'BlobPrefix'),
    ...(marker ? { nextMarker: unescapeXml(marker) } : {}),
  };
}

/** MD5 (base64) of names, one a line: what the last page record of a listing carries. */
export function namesMd5(names: Iterable<string>): string {
  const hash = nodeCrypto().createHash('md5');
  for (const n of names) hash.update(`${n}\n`);
  return hash.digest('base64');
}
