// --mix over the many-blob set: which contenders run it (those that declare a mix kind), and its
// plan, one item per operation. The consistency rule (docs/mix.md): GETs and HEADs read files of
// the set, which no operation of a mix changes, so each is checked against the content its name
// implies; a PUT writes a fresh name below the session's prefix (put-<index>), removed after its
// run; a DELETE removes a name below that prefix (del-<index>) which its kind made before the
// barrier; a listing pages over a part of the set small enough for one page.
import { INDEX_DIGITS, smallFileName, smallFileOffset } from '../plan/names.js';
import type { FileSet, WorkItem } from '../plan/items.js';
import { opAt, targetAt, type MixDraw } from '../plan/mix.js';
import { DOWNLOAD_STRATEGIES, UPLOAD_STRATEGIES, type Direction } from './index.js';
import type { DownloadStrategy, UploadStrategy } from './strategy.js';

/** The contenders that take part in a mix, of a direction. */
export const mixCapable = (direction: Direction): readonly (DownloadStrategy | UploadStrategy)[] =>
  (direction === 'download' ? DOWNLOAD_STRATEGIES : UPLOAD_STRATEGIES).filter((s) => s.mixKind);

/** --source-method or --upload-method under --mix: `all` is every contender that takes part. */
export function selectMixStrategies(direction: Direction, method: string, plainUrl: boolean) {
  const names = method.split(',');
  return mixCapable(direction).filter(
    (s) => (method === 'all' || names.includes(s.name)) && (!plainUrl || s.urlCapable),
  );
}

export interface MixPlanInput {
  /** The many-blob set every GET, HEAD and listing reads. */
  set: FileSet;
  mix: MixDraw;
  /** Where PUTs and DELETEs go: the session's own prefix. */
  prefix: string;
  pageSize: number;
}

/** Operation names below the prefix sort as their indexes do. */
const opName = (prefix: string, op: string, index: number) =>
  `${prefix}/${op}-${String(index).padStart(INDEX_DIGITS, '0')}`;

/** One item per operation, --file-count of them; a GET's bytes go end to end in the delivered whole. */
export function mixItems({ set, mix, prefix, pageSize }: MixPlanInput): WorkItem[] {
  const count = set.length;
  const items: WorkItem[] = [];
  let delivered = 0;
  for (let index = 0; index < count; index++) {
    const op = opAt(mix, index);
    const file = set.at(targetAt(mix, index, count))!;
    if (op === 'get' || op === 'head') {
      const at = op === 'get' ? delivered : 0;
      if (op === 'get') delivered += file.lengthBytes;
      items.push({ ...file, index, destOffsetBytes: at });
    } else if (op === 'list') {
      items.push(listItem(set, file.index, index, pageSize));
    } else {
      // Content as an uploaded file's: the seed's stream at its offset, a prefix of a pooled buffer.
      const content = smallFileOffset(index, set.spec.sizeBytes);
      items.push({
        index,
        blob: opName(prefix, op, index),
        destOffsetBytes: content,
        lengthBytes: file.lengthBytes,
      });
    }
  }
  return items;
}

/**
 * A listing of the files that share `file`'s leading index digits: as many digits as keep the group
 * within one page, so that a listing is one request.
 */
function listItem(set: FileSet, file: number, index: number, pageSize: number): WorkItem {
  const spanDigits = Math.min(INDEX_DIGITS, Math.floor(Math.log10(Math.max(1, pageSize))));
  const span = 10 ** spanDigits;
  const group = Math.floor(file / span);
  const digits = INDEX_DIGITS - spanDigits;
  const setPrefix = set.spec.prefix;
  const prefix = digits
    ? `${setPrefix}/file-${String(group).padStart(digits, '0')}`
    : `${smallFileName(setPrefix, 0).slice(0, -INDEX_DIGITS)}`;
  const first = group * span;
  const count = Math.min(span, set.length - first);
  return {
    index,
    blob: prefix,
    destOffsetBytes: first,
    lengthBytes: 0,
    list: { prefix, pageSize, first, count },
  };
}
