// `blob-cacher k8s-manifest`: the Job it prints, as a golden file, checked strictly against the
// Kubernetes field names it uses (test/helpers/k8s-job-schema.ts; and with kubernetes-validate
// --strict where that Python package is importable), and its bad input as one line and exit 2.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgainst, JOB_SCHEMA } from './helpers/k8s-job-schema.js';

const root = resolve(import.meta.dirname, '..');
const CLI = join(root, 'dist', 'cli.js');
const GOLDEN = join(root, 'test', 'golden', 'k8s-job.json');

function manifest(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'k8s-manifest', ...args], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { ...r, job: r.status === 0 ? JSON.parse(r.stdout) : undefined };
}

const GOLDEN_ARGS = [
  '--parallelism',
  '3',
  '--image',
  'registry.example/blob-cacher:1.0',
  '--',
  'download',
  '--source-method',
  'chunked',
  '--concurrency',
  '8',
];
const VARIANTS: Record<string, string[]> = {
  'a Secret (default)': GOLDEN_ARGS,
  'workload identity, two clients a node, a namespace': [
    '--parallelism',
    '8',
    '--service-account',
    'bench-sa',
    '--clients-per-node',
    '2',
    '--namespace',
    'bench',
    '--cpu',
    '1500m',
    '--memory',
    '512Mi',
    '--',
    'upload',
  ],
  "no command given (the image's CMD)": ['--parallelism', '1'],
};

describe('k8s-manifest: the Job', () => {
  it('matches the golden file (UPDATE_GOLDEN=1 rewrites it)', () => {
    const { stdout, status, stderr } = manifest(GOLDEN_ARGS);
    expect(status, stderr).toBe(0);
    if (process.env.UPDATE_GOLDEN) writeFileSync(GOLDEN, stdout);
    expect(stdout).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  for (const [name, args] of Object.entries(VARIANTS)) {
    it(`has only known batch/v1 Job fields, of the right types: ${name}`, () => {
      const { job, stderr } = manifest(args);
      expect(job, stderr).toBeDefined();
      expect(checkAgainst(job, JOB_SCHEMA)).toEqual([]);
    });
  }

  it('the checker refuses an unknown field, a wrong type and a missing required field', () => {
    const job = manifest(GOLDEN_ARGS).job;
    job.spec.template.spec.containers[0].envFromm = [];
    job.spec.completions = '3';
    delete job.spec.template.spec.containers[0].name;
    expect(checkAgainst(job, JOB_SCHEMA)).toEqual([
      '$.spec.completions: expected an integer',
      '$.spec.template.spec.containers[0].name: required',
      '$.spec.template.spec.containers[0].envFromm: unknown field',
    ]);
  });

  it("is an Indexed Job of K clients that fails as a whole on the barrier's exit codes", () => {
    const { job } = manifest(GOLDEN_ARGS);
    const { spec } = job;
    expect(spec).toMatchObject({
      completionMode: 'Indexed',
      completions: 3,
      parallelism: 3,
      backoffLimitPerIndex: 0,
      maxFailedIndexes: 0,
      activeDeadlineSeconds: 3600,
    });
    expect(spec.podFailurePolicy.rules).toEqual([
      { action: 'FailJob', onExitCodes: { containerName: 'blob-cacher', operator: 'In', values: [3, 4, 5] } },
    ]);
    const pod = spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.topologySpreadConstraints).toEqual([
      expect.objectContaining({
        maxSkew: 1,
        minDomains: 3,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
      }),
    ]);
    // The spread counts this Job's pods: its selector matches the pods' own labels.
    expect(spec.template.metadata.labels).toMatchObject(
      pod.topologySpreadConstraints[0].labelSelector.matchLabels,
    );
    const [c] = pod.containers;
    expect(c.args).toEqual(['download', '--source-method', 'chunked', '--concurrency', '8']);
    expect(c.resources.requests).toEqual(c.resources.limits);
    expect(c.envFrom).toEqual([{ secretRef: { name: 'blob-cacher-storage' } }]);
    expect(c.env).toContainEqual({
      name: 'BLOB_CACHER_RUN_ID',
      valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" } },
    });
    expect(c.env).toContainEqual({ name: 'BLOB_CACHER_PARALLELISM', value: '3' });
  });

  it("runs as the image's numeric non-root user on a read-only root, writing only to emptyDirs", () => {
    const pod = manifest(GOLDEN_ARGS).job.spec.template.spec;
    // The Dockerfile's USER, numeric, so that the kubelet can check runAsNonRoot against the image.
    const user = Number(/^USER (\d+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1]);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: user });
    const [c] = pod.containers;
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: user,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
    expect(c.securityContext.capabilities.drop).toEqual(['ALL']);
    // Where the tool writes: the results directory (the image's /app/results) and the temp directory.
    const volumes = new Map(pod.volumes.map((v: { name: string }) => [v.name, v]));
    for (const mount of c.volumeMounts) expect(volumes.get(mount.name)).toMatchObject({ emptyDir: {} });
    expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort()).toEqual([
      '/app/results',
      '/tmp',
    ]);
    const results = c.env.find((e: { name: string }) => e.name === 'BLOB_CACHER_RESULTS').value;
    expect(results.startsWith('/app/results/')).toBe(true);
  });

  it("with nothing after --, the clients run the image's CMD", () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1]!);
    expect(manifest(['--parallelism', '2']).job.spec.template.spec.containers[0].args).toEqual(cmd);
  });

  it('with workload identity: the service account and the pod label, no Secret', () => {
    const { job } = manifest(VARIANTS['workload identity, two clients a node, a namespace']!);
    const pod = job.spec.template;
    expect(pod.spec.serviceAccountName).toBe('bench-sa');
    expect(pod.metadata.labels['azure.workload.identity/use']).toBe('true');
    expect(pod.spec.containers[0].envFrom).toBeUndefined();
    expect(pod.spec.topologySpreadConstraints[0]).toMatchObject({ maxSkew: 2, minDomains: 4 });
    expect(job.metadata.namespace).toBe('bench');
  });

  const python = spawnSync('python3', ['-c', 'import kubernetes_validate'], { encoding: 'utf8' });
  const noValidator =
    python.status === 0 ? undefined : 'python3 with kubernetes-validate (PyPI) not importable';
  if (noValidator) process.stdout.write(`↓ kubernetes-validate --strict (skipped: ${noValidator})\n`);
  it.skipIf(noValidator !== undefined)('passes kubernetes-validate --strict (Kubernetes 1.33 schema)', () => {
    for (const args of Object.values(VARIANTS)) {
      const path = join(tmpdir(), `bc-job-${process.pid}.json`);
      writeFileSync(path, manifest(args).stdout);
      const r = spawnSync('python3', ['-m', 'kubernetes_validate', '--strict', '-k', '1.33.0', path], {
        encoding: 'utf8',
      });
      expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    }
  });
});

describe('k8s-manifest: a secret after -- is refused, never printed', () => {
  const key = 'c2VjcmV0a2V5c2VjcmV0a2V5c2VjcmV0a2V5c2VjcmV0a2V5Cg==';
  for (const [name, args] of [
    ['an AccountKey given to an option that is no secret', ['--container', `AccountKey=${key}`]],
    [
      "a connection string as an option's =value",
      [`--container=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${key}`],
    ],
    ['a SharedAccessSignature', ['--container', `SharedAccessSignature=sv=2024&sig=${key}`]],
  ] as const) {
    it(name, () => {
      const r = manifest(['--parallelism', '2', '--', 'download', ...args]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/an argument after -- (holds a secret|carries a SAS signature)/),
      ]);
      expect(r.stderr).toContain('--secret');
      expect(r.stderr).not.toContain(key);
    });
  }
});

describe('k8s-manifest: bad input is one line and exit 2', () => {
  for (const [name, args, mentions] of [
    ['no --parallelism', ['--', 'download'], '--parallelism'],
    [
      'both credentials',
      ['--parallelism', '2', '--secret', 's', '--service-account', 'a'],
      '--secret or --service-account',
    ],
    [
      'a client command that is not a measurement',
      ['--parallelism', '2', '--', 'report', 'x.json'],
      'download or upload',
    ],
    [
      'an option the Job sets itself',
      ['--parallelism', '2', '--', 'download', '--index', '1'],
      '--index is set by the Job',
    ],
    ['a bad name', ['--parallelism', '2', '--name', 'Bad_Name'], '--name'],
    ['a bad quantity', ['--parallelism', '2', '--memory', '4 GB'], '--memory'],
    [
      'a client option the command does not have',
      ['--parallelism', '2', '--', 'download', '--bogus-flag'],
      "download: unknown option '--bogus-flag'",
    ],
    [
      "a client option's bad value",
      ['--parallelism', '2', '--', 'upload', '--concurrency', 'many'],
      'upload: invalid --concurrency "many"',
    ],
    [
      'a stray client argument',
      ['--parallelism', '2', '--', 'download', 'large.bin'],
      'download: too many arguments',
    ],
    [
      'client --help, which would print in every pod',
      ['--parallelism', '2', '--', 'upload', '--help'],
      'blob-cacher upload --help',
    ],
  ] as const) {
    it(name, () => {
      const r = manifest([...args]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(mentions)]);
    });
  }
});
