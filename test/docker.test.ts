// The Docker image without a Docker engine: lint the Dockerfile with a maintained linter, check the
// contract (multi-stage, Node 24 slim, non-root, production, no .env), and run the image's CMD with
// only the documented environment variables, as `docker run -e …` would. test/docker-image.test.ts
// builds the image and runs it where a Docker engine answers.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file, so none is left in /tmp.
const scratchDir = freshDirsSync('bc-image-');

const root = resolve(import.meta.dirname, '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const instructions = dockerfile.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
const runtimeStart = instructions.findIndex((l) => /^FROM .* AS runtime$/i.test(l));
const runtime = instructions.slice(runtimeStart);

describe('Dockerfile', () => {
  it('passes dockerfile-utils validation with no diagnostics', () => {
    const diagnostics = validate(dockerfile);
    expect(diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('is multi-stage, runtime on the official Node 24 slim image, non-root, production', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBe(2);
    expect(runtimeStart).toBeGreaterThan(0);
    expect(runtime[0]).toMatch(/^FROM node:24-slim AS runtime$/);
    expect(runtime).toContain('ENV NODE_ENV=production');
    // Only the production packages reach the runtime stage.
    expect(instructions.slice(0, runtimeStart).some((l) => /npm prune --omit=dev/.test(l))).toBe(true);
    const user = runtime.filter((l) => l.startsWith('USER ')).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/USER (root|0)\b/);
    // Numeric, so that Kubernetes can check runAsNonRoot against the image.
    expect(user).toMatch(/^USER \d+$/);
  });

  it(
    "makes /app/results for the image's user and group 0 (any uid, as OpenShift runs it), and runs " +
      'nothing as root in the runtime stage',
    () => {
      const text = runtime.join('\n');
      expect(text).toMatch(/^WORKDIR \/app$/m);
      const uid = /^USER (\d+)$/m.exec(text)![1];
      const build = instructions.slice(0, runtimeStart).join('\n');
      expect(build).toMatch(new RegExp(`mkdir results && chown ${uid}:0 results && chmod 2775 results`));
      expect(text).toMatch(/^COPY --from=build \/app \/app$/m);
      // npm (any RUN of it) turns on Node's compile cache as root, in /tmp, where the image's user could not
      // use it.
      expect(runtime.filter((l) => l.startsWith('RUN '))).toEqual([]);
    },
  );

  it('never copies a .env into the image, and keeps it out of the build context', () => {
    expect(instructions.filter((l) => /^(COPY|ADD) /.test(l)).some((l) => /\.env\b|\s\.\s/.test(l))).toBe(
      false,
    );
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of [
      'node_modules',
      '.env',
      'dist',
      '.git',
      '.ci-python',
      'coverage',
      'results',
      'test',
      'bench',
    ])
      expect(ignore).toContain(entry);
  });
});

/** The image's exec-form ENTRYPOINT or CMD. */
const execForm = (instruction: string) =>
  JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(runtime.join('\n'))![1]!) as string[];
// As docker runs it: the entry point, then the arguments given to `docker run IMAGE …` or the CMD.
const imageCommand = (args?: string[]) => [...execForm('ENTRYPOINT'), ...(args ?? execForm('CMD'))];

describe('image contract: the entry point is blob-cacher', () => {
  it('is node dist/cli.js, so that docker run IMAGE download|upload|collect|k8s-manifest … work', () => {
    expect(execForm('ENTRYPOINT')).toEqual(['node', 'dist/cli.js']);
    for (const args of [
      ['download', '--help'],
      ['upload', '--help'],
      ['collect', '--help'],
      ['k8s-manifest', '--parallelism', '2'],
    ]) {
      const [node, ...rest] = imageCommand(args);
      expect(node).toBe('node');
      const run = spawnSync(
        process.execPath,
        rest.map((a) => (a.startsWith('dist/') ? join(root, a) : a)),
        { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 30_000 },
      );
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(
        args[1] === '--help' ? new RegExp(`Usage: blob-cacher ${args[0]}`) : /"kind": "Job"/,
      );
    }
  });
});

describe('image contract: the CMD with only environment variables', () => {
  it('runs the small-file upload benchmark on embedded Azurite and prints the seed lines', () => {
    const cmd = imageCommand();
    expect(cmd[0]).toBe('node');
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PROCESSES: '2',
      MAX_SOCKETS: '4',
      FILE_SIZE: '10',
      FILE_COUNT: '50',
      // The per-contender lines are details: the answer comes first.
      BLOB_CACHER_DETAILS: 'true',
    };
    // WORKDIR of the image holds no .env; an empty directory stands in for it.
    const cwd = scratchDir();
    const args = cmd.slice(1).map((a) => (a.startsWith('dist/') ? join(root, a) : a));
    const run = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/2 process\(es\) x 4 socket\(s\); small files 50 x 9\.77 KiB/);
    expect(run.stdout).toMatch(
      /small-files: duration [\d.]+ ms, count 50, wait [\d.]+%.*firstByte [\d.]+%, download [\d.]+%/,
    );
    // The image's defaults are the user's: at least 5 measured runs and 3 s, after a warm-up.
    // Rank, contender, time, ops/s, one request per file.
    expect(run.stdout).toMatch(/^1\s+small-files\s+[\d.]+(±[\d.]+)?\s+[\d.]+\s+1\s/m);
    expect(run.stdout).toMatch(/; (\d+) measured runs each$/m);
    expect(Number(/; (\d+) measured runs each$/m.exec(run.stdout)![1])).toBeGreaterThanOrEqual(5);
    expect(run.stdout).toMatch(/total\s+n=\s*\d+0\s/);
    expect(run.stdout).toContain('ok');
  });
});
