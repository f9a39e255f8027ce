import { useParams } from 'react-router-dom';
import { Content, Header, Page } from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import { rootRouteRef } from '../../routes';
import { PlatformsStateProvider } from '../../state';
import { PlatformDetailContent } from './PlatformDetailContent';

/** /inference-platforms/:namespace/:name */
export function PlatformDetailPage() {
  const { namespace = '', name = '' } = useParams();
  const listPath = useRouteRef(rootRouteRef)();
  const key = `${namespace}/${name}`;
  return (
    <Page themeId="tool">
      <Header
        title={name}
        subtitle={`Inference platform in namespace ${namespace}`}
        type="Inference platforms"
        typeLink={listPath}
      />
      <Content>
        {/* Keyed so that navigating to another platform starts a fresh store. */}
        <PlatformsStateProvider key={key} only={key}>
          <PlatformDetailContent
            namespace={namespace}
            name={name}
            listPath={listPath}
          />
        </PlatformsStateProvider>
      </Content>
    </Page>
  );
}
