import { useParams } from 'react-router-dom';
import { Typography } from '@material-ui/core';
import { PageFrame, useFramed } from '../PageFrame';
import { useRouteRef } from '@backstage/core-plugin-api';
import { rootRouteRef } from '../../routes';
import { PlatformsStateProvider } from '../../state';
import { PlatformDetailContent } from './PlatformDetailContent';

/** /inference-platforms/:namespace/:name */
export function PlatformDetailPage() {
  const { namespace = '', name = '' } = useParams();
  const listPath = useRouteRef(rootRouteRef)();
  const key = `${namespace}/${name}`;
  const framed = useFramed();
  return (
    <PageFrame
      title={name}
      subtitle={`Inference platform in namespace ${namespace}`}
      type="Inference platforms"
      typeLink={listPath}
    >
      {/* In the app's frame the page title is the plugin's: say which platform. */}
      {!framed && (
        <Typography variant="h5" gutterBottom>
          {name}{' '}
          <Typography component="span" color="textSecondary">
            Inference platform in namespace {namespace}
          </Typography>
        </Typography>
      )}
      {/* Keyed so that navigating to another platform starts a fresh store. */}
      <PlatformsStateProvider key={key} only={key}>
        <PlatformDetailContent
          namespace={namespace}
          name={name}
          listPath={listPath}
        />
      </PlatformsStateProvider>
    </PageFrame>
  );
}
