import { ContentHeader, SupportButton } from '@backstage/core-components';
import { PageFrame } from '../PageFrame';
import { PlatformsStateProvider } from '../../state';
import { ConnectionIndicator } from '../ConnectionIndicator';
import { PlatformList } from './PlatformList';

/** Lists the InferencePlatforms of the cluster, live. */
export function PlatformListPage() {
  return (
    <PageFrame
      title="Inference platforms"
      subtitle="Inference platforms across your clusters"
    >
      <PlatformsStateProvider>
        <ContentHeader title="Platforms">
          <ConnectionIndicator />
          <SupportButton>
            Each row is an InferencePlatform, a Kubernetes custom resource
            reconciled by the operator. Rows update live; the indicator shows
            whether the event feed is connected.
          </SupportButton>
        </ContentHeader>
        <PlatformList />
      </PlatformsStateProvider>
    </PageFrame>
  );
}
