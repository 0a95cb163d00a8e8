// FILE_SIZE has one meaning: a bare number is the seed's KB for downloads and uploads alike
// (FILE_SIZE=102 in the upload image is 102 KB); units are always taken as given.
import { describe, expect, it } from 'vitest';
import { loadDownloadConfig, loadUploadConfig } from '../src/config/load.js';

const sizes = (value: string) => [
  loadDownloadConfig({}, { env: { FILE_SIZE: value } }).fileSizeBytes,
  loadUploadConfig({}, { env: { FILE_SIZE: value } }).fileSizeBytes,
];

describe('FILE_SIZE', () => {
  it('a bare number is KB for downloads and uploads alike', () => {
    expect(sizes('102')).toEqual([102_000, 102_000]);
  });

  it('units are taken as given', () => {
    expect(sizes('4096B')).toEqual([4096, 4096]);
    expect(sizes('1MiB')).toEqual([1024 * 1024, 1024 * 1024]);
    expect(sizes('100KB')).toEqual([100_000, 100_000]);
  });

  it('a bad value names the bare unit in its example', () => {
    expect(() => loadDownloadConfig({}, { env: { FILE_SIZE: 'abc' } })).toThrow(
      /FILE_SIZE.*102 \(a bare number is KB\)/,
    );
  });
});
