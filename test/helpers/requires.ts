// The system packages some tests drive (Debian's chromium, nginx, iproute2, openssl). A test that
// needs one runs where it is installed; elsewhere it is skipped with the package in its name, and
// one line says so: vitest's default reporter names no skipped test when it runs several files.
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { describe, it, type TestFunction } from 'vitest';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const NGINX_PATH = '/usr/sbin/nginx';

/** The programs of each package that tests run: absolute paths, or names looked up on PATH. */
const PROGRAMS = {
  chromium: [CHROMIUM_PATH],
  nginx: [NGINX_PATH],
  iproute2: ['ip', 'tc'],
  openssl: ['openssl'],
} as const satisfies Record<string, readonly string[]>;
export type SystemPackage = keyof typeof PROGRAMS;

function installed(program: string): boolean {
  if (isAbsolute(program)) return existsSync(program);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, program)));
}

export interface Requirement {
  /** "nginx not installed" and the like, or undefined when every package is here. */
  readonly missing: string | undefined;
  /** `describe`, skipped where a package is missing, with "(skipped: … not installed)" after its name. */
  describe(name: string, fn: () => void): void;
  /** `it`, likewise. */
  it(name: string, fn: TestFunction): void;
}

export function requires(...packages: SystemPackage[]): Requirement {
  const absent = packages.filter((p) => !PROGRAMS[p].every(installed));
  const missing = absent.length ? `${absent.join(', ')} not installed` : undefined;
  const title = (name: string) => {
    if (!missing) return name;
    const skipped = `${name} (skipped: ${missing})`;
    process.stdout.write(`↓ ${skipped}\n`);
    return skipped;
  };
  return {
    missing,
    describe: (name, fn) => describe.skipIf(missing !== undefined)(title(name), fn),
    it: (name, fn) => it.skipIf(missing !== undefined)(title(name), fn),
  };
}
