import { InfoCard, StructuredMetadataTable } from '@backstage/core-components';
import {
  CATALOG_ENTITY_ANNOTATION,
  InferencePlatform,
  OWNER_ANNOTATION,
  ResourceRequirements,
} from '@cv-platform/plugin-inference-platform-common';

function resources(r?: ResourceRequirements): string {
  if (!r) return 'none set';
  const list = (m?: Record<string, unknown>) =>
    m
      ? Object.entries(m)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')
      : '';
  return (
    [
      r.requests && `requests ${list(r.requests)}`,
      r.limits && `limits ${list(r.limits)}`,
    ]
      .filter(Boolean)
      .join('; ') || 'none set'
  );
}

/** What the user declared, with the CRD's defaults spelled out. */
export function SpecCard(props: { platform: InferencePlatform }) {
  const { qdrant, inference } = props.platform.spec;
  const annotations = props.platform.metadata.annotations ?? {};
  const metadata: Record<string, string> = {
    'Qdrant version': qdrant.version,
    'Qdrant replicas': String(qdrant.replicas ?? 1),
    'Qdrant storage': `${qdrant.storageSize ?? '10Gi'} per peer, class ${
      qdrant.storageClassName || 'cluster default'
    }`,
    'Qdrant image': `${qdrant.image ?? 'qdrant/qdrant'}:${qdrant.version}`,
    'Qdrant resources': resources(qdrant.resources),
    'Inference image': inference.image,
    'Model URL': inference.modelUrl,
    'Model source': `${inference.modelSource?.mode ?? 'emptyDir'}, up to ${
      inference.modelSource?.sizeLimit ?? '1Gi'
    }`,
    'Inference replicas': String(inference.replicas ?? 1),
    GPU: inference.gpu?.count
      ? `${inference.gpu.count} × ${inference.gpu.type ?? 'any type'}`
      : 'none',
    'Inference resources': resources(inference.resources),
    Collection: inference.collection ?? 'images',
    Batching: `up to ${inference.batchMaxSize ?? 16} items or ${
      inference.batchMaxLatencyMs ?? 5
    } ms`,
  };
  if (annotations[OWNER_ANNOTATION])
    metadata.Owner = annotations[OWNER_ANNOTATION];
  if (annotations[CATALOG_ENTITY_ANNOTATION]) {
    metadata['Catalog entity'] = annotations[CATALOG_ENTITY_ANNOTATION];
  }
  return (
    <InfoCard title="Spec">
      <StructuredMetadataTable metadata={metadata} dense />
    </InfoCard>
  );
}
