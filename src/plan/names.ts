// Names and contents of the files a plan makes: uploaded small files and the many-blob fixture
// set share them, so that a set read back is checked against the content its name implies.

/**
 * The distinct contents many small files cycle through: together at most this many bytes. More than
 * the sockets in flight at 100 KiB (81 contents), and 8 MiB per worker however many files: a larger
 * pool is the largest single part of an upload's memory (each process's peak RSS: bench case 10).
 */
export const PAYLOAD_POOL_BYTES = 8 * 1024 * 1024;

/**
 * Where in the seed's stream file `index`'s content starts. Files cycle through at most 1,024
 * distinct contents (and PAYLOAD_POOL_BYTES of them), so a worker's payloads are a bounded pool however many
 * files there are, and every file can still be checked against the content its offset names.
 */
export function smallFileOffset(index: number, fileSizeBytes: number): number {
  const distinct = Math.max(1, Math.min(1024, Math.floor(PAYLOAD_POOL_BYTES / Math.max(1, fileSizeBytes))));
  return (index % distinct) * fileSizeBytes;
}

/** Seven digits, zero-padded: names sort as their indexes do (FILE_COUNT is at most 10,000,000). */
export const INDEX_DIGITS = 7;
export const smallFileName = (prefix: string, i: number) =>
  `${prefix}/file-${String(i).padStart(INDEX_DIGITS, '0')}`;

/** Block ids must all have the same length before base64: a fixed-width counter. */
export const blockId = (i: number) => Buffer.from(`block-${String(i).padStart(8, '0')}`).toString('base64');

export const largeBlobName = (prefix: string) => `${prefix}/large.blob`;
