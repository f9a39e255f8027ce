import { GROUP, KIND, PLURAL, SHORT_NAME, SINGULAR, VERSION } from './types';
import { inferencePlatformSchema, JSONSchemaProps } from './crd';
import { inferencePlatformSchemaV1beta1 } from './v1beta1/schema';
import { VERSION_V1BETA1 } from './v1beta1/types';

/**
 * Where the API server reaches the conversion webhook unless the operator says otherwise (it writes its own Service and namespace, and the caBundle).
 *
 * @public
 */
export const CONVERSION_WEBHOOK_SERVICE = {
  namespace: 'cv-platform-system',
  name: 'inference-platform-operator-webhook',
  path: '/convert',
  port: 443,
};

const printerColumns = (modelPath: string) => [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  {
    name: 'Qdrant',
    type: 'string',
    jsonPath: '.status.qdrantReadiness',
    description: 'Qdrant ready/desired replicas',
  },
  {
    name: 'Inference',
    type: 'string',
    jsonPath: '.status.inferenceReadiness',
    description: 'Inference ready/desired replicas',
  },
  { name: 'Model', type: 'string', jsonPath: modelPath, priority: 1 },
  {
    name: 'Canary',
    type: 'integer',
    jsonPath: '.status.canary.effectiveWeight',
    description: 'Percent of the ready inference servers running the canary model',
    priority: 1,
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const version = (name: string, storage: boolean, schema: JSONSchemaProps, modelPath: string) => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: schema },
  subresources: {
    status: {},
    scale: {
      specReplicasPath: '.spec.inference.replicas',
      statusReplicasPath: '.status.inferenceReplicas',
      labelSelectorPath: '.status.inferenceSelector',
    },
  },
  additionalPrinterColumns: printerColumns(modelPath),
});

const crd = (versions: unknown[], conversion?: unknown) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `${PLURAL}.${GROUP}`,
    labels: { 'app.kubernetes.io/part-of': 'cv-inference-platform' },
  },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: {
      kind: KIND,
      listKind: `${KIND}List`,
      plural: PLURAL,
      singular: SINGULAR,
      shortNames: [SHORT_NAME],
      categories: ['all', 'cv'],
    },
    versions,
    ...(conversion ? { conversion } : {}),
  },
});

/**
 * v1beta1 is stored; v1alpha1 is still served, converted by the operator's
 * webhook (losslessly: see conversion/convertPlatform.ts), which also writes
 * the clientConfig (its Service, or a URL) and the caBundle.
 *
 * @public
 */
export const inferencePlatformCrd = crd(
  [
    version(VERSION, false, inferencePlatformSchema, '.spec.inference.modelUrl'),
    version(VERSION_V1BETA1, true, inferencePlatformSchemaV1beta1, '.spec.inference.model.url'),
  ],
  {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: { service: CONVERSION_WEBHOOK_SERVICE },
    },
  },
);
