import {
  Content,
  ContentHeader,
  EmptyState,
  Header,
  Page,
  SupportButton,
} from '@backstage/core-components';

/** Lists the InferencePlatforms of the connected clusters. */
export const InferencePlatformsPage = () => (
  <Page themeId="tool">
    <Header
      title="Inference platforms"
      subtitle="Qdrant + inference fleets declared as InferencePlatform resources"
    />
    <Content>
      <ContentHeader title="Platforms">
        <SupportButton>
          Each row is an InferencePlatform custom resource, reconciled by the
          operator embedded in this portal.
        </SupportButton>
      </ContentHeader>
      <EmptyState
        missing="data"
        title="No inference platforms yet"
        description="Create one from the software templates, or apply an InferencePlatform with kubectl."
      />
    </Content>
  </Page>
);
