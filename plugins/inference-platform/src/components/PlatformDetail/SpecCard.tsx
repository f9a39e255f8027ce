import { InfoCard, StructuredMetadataTable } from '@backstage/core-components';
import {
  CATALOG_ENTITY_ANNOTATION,
  InferencePlatformV1beta1,
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
export function SpecCard(props: { platform: InferencePlatformV1beta1 }) {
  const { qdrant, inference } = props.platform.spec;
  const annotations = props.platform.metadata.annotations ?? {};
  const metadata: Record<string, string> = {
    'Qdrant version': qdrant.version,
    'Qdrant replicas': String(qdrant.replicas ?? 1),
    'Qdrant storage': `${qdrant.storage?.size ?? '10Gi'} per peer, class ${
      qdrant.storage?.className || 'cluster default'
    }`,
    'Qdrant image': `${qdrant.image ?? 'qdrant/qdrant'}:${qdrant.version}`,
    'Qdrant resources': resources(qdrant.resources),
    'Inference image': inference.image,
    'Model URL': inference.model.url,
    'Model source': `${inference.model.source?.mode ?? 'emptyDir'}, up to ${
      inference.model.source?.sizeLimit ?? '1Gi'
    }`,
    'Model update': inference.model.update ?? 'HotReload',
    'Inference replicas': String(inference.replicas ?? 1),
    GPU: inference.gpu?.count
      ? `${inference.gpu.count} × ${inference.gpu.type ?? 'any type'}`
      : 'none',
    'Inference resources': resources(inference.resources),
    Collection: inference.collection ?? 'images',
    Batching: `up to ${inference.batching?.maxSize ?? 16} items or ${
      inference.batching?.maxLatencyMs ?? 5
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
