// A focused, strict checker for the batch/v1 Job that `blob-cacher k8s-manifest` prints: the field
// names and types of the Kubernetes OpenAPI definitions it uses (io.k8s.api.batch.v1.JobSpec,
// PodFailurePolicyRule, core/v1 PodSpec, Container, EnvVar, TopologySpreadConstraint, …), the
// required ones marked, and every other field refused, as `kubectl apply --validate=strict` would.
// Only these definitions' fields are listed (not every PodSpec field): an unknown one is an error.

export type FieldType =
  | 'string'
  | 'integer'
  | 'boolean'
  | { enum: readonly string[] }
  | { array: FieldType }
  | { map: 'string' }
  | { object: Readonly<Record<string, FieldType>>; required?: readonly string[] }
  /** A resource.Quantity: a string (or number) such as 500m, 4Gi. */
  | 'quantity';

const obj = (object: Record<string, FieldType>, required: string[] = []): FieldType => ({ object, required });

const labelSelector = obj({
  matchLabels: { map: 'string' },
  matchExpressions: {
    array: obj({ key: 'string', operator: 'string', values: { array: 'string' } }, ['key', 'operator']),
  },
});
const objectMeta = obj({
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  labels: { map: 'string' },
  annotations: { map: 'string' },
});
const envVar = obj(
  {
    name: 'string',
    value: 'string',
    valueFrom: obj({
      fieldRef: obj({ apiVersion: 'string', fieldPath: 'string' }, ['fieldPath']),
      secretKeyRef: obj({ name: 'string', key: 'string', optional: 'boolean' }, ['key']),
      configMapKeyRef: obj({ name: 'string', key: 'string', optional: 'boolean' }, ['key']),
    }),
  },
  ['name'],
);
const envFromSource = obj({
  prefix: 'string',
  secretRef: obj({ name: 'string', optional: 'boolean' }),
  configMapRef: obj({ name: 'string', optional: 'boolean' }),
});
const quantities: FieldType = {
  object: { cpu: 'quantity', memory: 'quantity', 'ephemeral-storage': 'quantity' },
};
const resources = obj({ requests: quantities, limits: quantities });
const seccompProfile = obj(
  { type: { enum: ['RuntimeDefault', 'Unconfined', 'Localhost'] }, localhostProfile: 'string' },
  ['type'],
);
const containerSecurity = obj({
  runAsNonRoot: 'boolean',
  runAsUser: 'integer',
  runAsGroup: 'integer',
  allowPrivilegeEscalation: 'boolean',
  readOnlyRootFilesystem: 'boolean',
  privileged: 'boolean',
  capabilities: obj({ add: { array: 'string' }, drop: { array: 'string' } }),
  seccompProfile,
});
const podSecurity = obj({
  runAsNonRoot: 'boolean',
  runAsUser: 'integer',
  runAsGroup: 'integer',
  fsGroup: 'integer',
  supplementalGroups: { array: 'integer' },
  seccompProfile,
});
const volumeMount = obj({ name: 'string', mountPath: 'string', readOnly: 'boolean', subPath: 'string' }, [
  'name',
  'mountPath',
]);
const volume = obj({ name: 'string', emptyDir: obj({ medium: 'string', sizeLimit: 'quantity' }) }, ['name']);
const container = obj(
  {
    name: 'string',
    image: 'string',
    imagePullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
    command: { array: 'string' },
    args: { array: 'string' },
    workingDir: 'string',
    env: { array: envVar },
    envFrom: { array: envFromSource },
    resources,
    securityContext: containerSecurity,
    volumeMounts: { array: volumeMount },
  },
  ['name'],
);
const topologySpread = obj(
  {
    maxSkew: 'integer',
    minDomains: 'integer',
    topologyKey: 'string',
    whenUnsatisfiable: { enum: ['DoNotSchedule', 'ScheduleAnyway'] },
    labelSelector,
    matchLabelKeys: { array: 'string' },
    nodeAffinityPolicy: { enum: ['Honor', 'Ignore'] },
    nodeTaintsPolicy: { enum: ['Honor', 'Ignore'] },
  },
  ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
);
const podSpec = obj(
  {
    restartPolicy: { enum: ['Always', 'OnFailure', 'Never'] },
    serviceAccountName: 'string',
    nodeSelector: { map: 'string' },
    topologySpreadConstraints: { array: topologySpread },
    containers: { array: container },
    terminationGracePeriodSeconds: 'integer',
    securityContext: podSecurity,
    volumes: { array: volume },
  },
  ['containers'],
);
const podFailurePolicyRule = obj(
  {
    action: { enum: ['FailJob', 'FailIndex', 'Ignore', 'Count'] },
    onExitCodes: obj(
      { containerName: 'string', operator: { enum: ['In', 'NotIn'] }, values: { array: 'integer' } },
      ['operator', 'values'],
    ),
    onPodConditions: { array: obj({ type: 'string', status: 'string' }, ['type']) },
  },
  ['action'],
);

export const JOB_SCHEMA: FieldType = obj(
  {
    apiVersion: { enum: ['batch/v1'] },
    kind: { enum: ['Job'] },
    metadata: objectMeta,
    spec: obj(
      {
        parallelism: 'integer',
        completions: 'integer',
        activeDeadlineSeconds: 'integer',
        backoffLimit: 'integer',
        backoffLimitPerIndex: 'integer',
        maxFailedIndexes: 'integer',
        completionMode: { enum: ['NonIndexed', 'Indexed'] },
        suspend: 'boolean',
        ttlSecondsAfterFinished: 'integer',
        podFailurePolicy: obj({ rules: { array: podFailurePolicyRule } }, ['rules']),
        podReplacementPolicy: { enum: ['TerminatingOrFailed', 'Failed'] },
        selector: labelSelector,
        manualSelector: 'boolean',
        template: obj({ metadata: objectMeta, spec: podSpec }),
      },
      ['template'],
    ),
  },
  ['apiVersion', 'kind', 'metadata', 'spec'],
);

/** Every problem with `value` against `type`, each as "path: what is wrong". */
export function checkAgainst(value: unknown, type: FieldType, path = '$'): string[] {
  if (type === 'string') return typeof value === 'string' ? [] : [`${path}: expected a string`];
  if (type === 'integer') return Number.isInteger(value) ? [] : [`${path}: expected an integer`];
  if (type === 'boolean') return typeof value === 'boolean' ? [] : [`${path}: expected a boolean`];
  if (type === 'quantity')
    return typeof value === 'string' || typeof value === 'number' ? [] : [`${path}: expected a quantity`];
  if ('enum' in type)
    return type.enum.includes(value as string)
      ? []
      : [`${path}: expected one of ${type.enum.join(', ')}, got ${JSON.stringify(value)}`];
  if ('array' in type) {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.flatMap((v, i) => checkAgainst(v, type.array, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [`${path}: expected an object`];
  const fields = value as Record<string, unknown>;
  if ('map' in type)
    return Object.entries(fields).flatMap(([k, v]) => checkAgainst(v, 'string', `${path}.${k}`));
  const problems = (type.required ?? []).filter((f) => !(f in fields)).map((f) => `${path}.${f}: required`);
  for (const [k, v] of Object.entries(fields)) {
    const t = type.object[k];
    if (!t) problems.push(`${path}.${k}: unknown field`);
    else problems.push(...checkAgainst(v, t, `${path}.${k}`));
  }
  return problems;
}
