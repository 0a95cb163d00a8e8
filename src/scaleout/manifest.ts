// A Kubernetes batch/v1 Job of K clients: an Indexed Job (JOB_COMPLETION_INDEX is each client's
// --index), the Job's controller-uid as the run id (downward API), one client per node by
// default, and a podFailurePolicy that fails the whole Job on the barrier's exit codes (3 timeout,
// 4 duplicate index, 5 late), since a run short of a client measures something else. Each pod runs
// as the image's non-root uid on a read-only root file system (the restricted Pod Security
// Standard), with emptyDirs where the tool writes: the results directory and the temp directory
// (Node's compile cache).
import { EXIT_BARRIER_TIMEOUT, EXIT_DUPLICATE_INDEX, EXIT_LATE } from './barrier.js';
import type { ManifestOptions } from '../config/scaleout.js';

export const CONTAINER_NAME = 'blob-cacher';
const CONTROLLER_UID = "metadata.labels['batch.kubernetes.io/controller-uid']";
/** The image's USER (Dockerfile): numeric, so that the kubelet can check runAsNonRoot. */
const IMAGE_UID = 1000;

export function jobManifest(o: ManifestOptions): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': 'blob-cacher', 'app.kubernetes.io/instance': o.name };
  const podLabels = o.serviceAccount ? { ...labels, 'azure.workload.identity/use': 'true' } : labels;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}), labels },
    spec: {
      completionMode: 'Indexed',
      completions: o.parallelism,
      parallelism: o.parallelism,
      backoffLimitPerIndex: 0,
      maxFailedIndexes: 0,
      activeDeadlineSeconds: o.activeDeadlineSeconds,
      podFailurePolicy: {
        rules: [
          {
            action: 'FailJob',
            onExitCodes: {
              containerName: CONTAINER_NAME,
              operator: 'In',
              values: [EXIT_BARRIER_TIMEOUT, EXIT_DUPLICATE_INDEX, EXIT_LATE],
            },
          },
        ],
      },
      template: {
        metadata: { labels: podLabels },
        spec: {
          // A podFailurePolicy needs it; a client that fails is not run again.
          restartPolicy: 'Never',
          securityContext: {
            runAsNonRoot: true,
            runAsUser: IMAGE_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          ...(o.serviceAccount ? { serviceAccountName: o.serviceAccount } : {}),
          topologySpreadConstraints: [
            {
              maxSkew: o.clientsPerNode,
              // Fewer nodes than this and the spread cannot be met: clients wait unscheduled rather than
              // share a node.
              minDomains: Math.ceil(o.parallelism / o.clientsPerNode),
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: labels },
              matchLabelKeys: ['batch.kubernetes.io/controller-uid'],
            },
          ],
          containers: [clientContainer(o)],
          volumes: [
            { name: 'results', emptyDir: {} },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}

/** The one container of a client's pod: the image, its run's settings, its limits and where it writes. */
function clientContainer(o: ManifestOptions): Record<string, unknown> {
  const resources = { cpu: o.cpu, memory: o.memory };
  return {
    name: CONTAINER_NAME,
    image: o.image,
    args: o.args,
    env: [
      { name: 'BLOB_CACHER_PARALLELISM', value: String(o.parallelism) },
      { name: 'BLOB_CACHER_RUN_ID', valueFrom: { fieldRef: { fieldPath: CONTROLLER_UID } } },
      { name: 'BLOB_CACHER_RESULTS', value: `${o.resultsDir}/blob-cacher-results.json` },
      // One gated run per client: every client's requests fall in the window that is merged.
      { name: 'BLOB_CACHER_RUNS', value: '1' },
      { name: 'BLOB_CACHER_WARMUP', value: '0' },
    ],
    ...(o.secret ? { envFrom: [{ secretRef: { name: o.secret } }] } : {}),
    resources: { requests: resources, limits: resources },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: IMAGE_UID,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [
      { name: 'results', mountPath: o.resultsDir },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
}
