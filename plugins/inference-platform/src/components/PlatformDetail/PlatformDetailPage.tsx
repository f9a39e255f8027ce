import { useParams, useSearchParams } from 'react-router-dom';
import { Typography } from '@material-ui/core';
import { PageFrame, useFramed } from '../PageFrame';
import { useRouteRef } from '@backstage/core-plugin-api';
import { rootRouteRef } from '../../routes';
import { PlatformsStateProvider, refKey } from '../../state';
import { PlatformDetailContent } from './PlatformDetailContent';

/**
 * /inference-platforms/:namespace/:name[?cluster=<name>]; without `cluster`
 * the backend's default cluster.
 */
export function PlatformDetailPage() {
  const { namespace = '', name = '' } = useParams();
  const [search] = useSearchParams();
  const cluster = search.get('cluster')?.trim() || undefined;
  const listPath = useRouteRef(rootRouteRef)();
  const ref = { ...(cluster ? { cluster } : {}), namespace, name };
  const key = refKey(ref);
  const framed = useFramed();
  const where = `Inference platform in namespace ${namespace}${
    cluster ? ` on cluster ${cluster}` : ''
  }`;
  return (
    <PageFrame
      title={name}
      subtitle={where}
      type="Inference platforms"
      typeLink={listPath}
    >
      {/* In the app's frame the page title is the plugin's: say which platform. */}
      {!framed && (
        <Typography variant="h5" gutterBottom>
          {name}{' '}
          <Typography component="span" color="textSecondary">
            {where}
          </Typography>
        </Typography>
      )}
      {/* Keyed so that navigating to another platform starts a fresh store. */}
      <PlatformsStateProvider key={key} only={ref}>
        <PlatformDetailContent
          namespace={namespace}
          name={name}
          cluster={cluster}
          listPath={listPath}
        />
      </PlatformsStateProvider>
    </PageFrame>
  );
}
