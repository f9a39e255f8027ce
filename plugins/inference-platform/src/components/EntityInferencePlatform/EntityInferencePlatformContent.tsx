import {
  MissingAnnotationEmptyState,
  useEntity,
} from '@backstage/plugin-catalog-react';
import { ENTITY_PLATFORM_ANNOTATION } from '@cv-platform/plugin-inference-platform-common';
import { PlatformsStateProvider, refKey } from '../../state';
import { PlatformDetailContent } from '../PlatformDetail';
import { platformOfEntity } from './platformAnnotation';

/**
 * The platform's full page as an entity tab.
 *
 * @public
 */
export function EntityInferencePlatformContent() {
  const { entity } = useEntity();
  const ref = platformOfEntity(entity);
  if (!ref)
    return (
      <MissingAnnotationEmptyState annotation={ENTITY_PLATFORM_ANNOTATION} />
    );
  const key = refKey(ref);
  return (
    <PlatformsStateProvider key={key} only={ref}>
      <PlatformDetailContent {...ref} />
    </PlatformsStateProvider>
  );
}
