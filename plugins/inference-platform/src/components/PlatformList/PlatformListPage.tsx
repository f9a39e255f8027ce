import {
  Content,
  ContentHeader,
  Header,
  Page,
  SupportButton,
} from '@backstage/core-components';
import { PlatformsStateProvider } from '../../state';
import { ConnectionIndicator } from '../ConnectionIndicator';
import { PlatformList } from './PlatformList';

/** Lists the InferencePlatforms of the cluster, live. */
export function PlatformListPage() {
  return (
    <Page themeId="tool">
      <Header
        title="Inference platforms"
        subtitle="Qdrant + inference fleets declared as InferencePlatform resources"
      />
      <Content>
        <PlatformsStateProvider>
          <ContentHeader title="Platforms">
            <ConnectionIndicator />
            <SupportButton>
              Each row is an InferencePlatform custom resource, reconciled by
              the operator embedded in this portal. Rows update live; the
              indicator shows whether the event feed is connected.
            </SupportButton>
          </ContentHeader>
          <PlatformList />
        </PlatformsStateProvider>
      </Content>
    </Page>
  );
}
