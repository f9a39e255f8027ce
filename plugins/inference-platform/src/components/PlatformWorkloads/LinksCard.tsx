import { List, ListItem, ListItemText } from '@material-ui/core';
import { InfoCard, Link } from '@backstage/core-components';
import { configApiRef, useApi } from '@backstage/core-plugin-api';

/** `{namespace}`, `{name}` and `{cluster}` in a link template, URL-encoded. */
export function renderLink(
  template: string,
  namespace: string,
  name: string,
  cluster = '',
) {
  return template
    .replace(/\{namespace\}/g, encodeURIComponent(namespace))
    .replace(/\{name\}/g, encodeURIComponent(name))
    .replace(/\{cluster\}/g, encodeURIComponent(cluster));
}

/** Links from `inferencePlatform.links` (dashboards, Prometheus queries), filled in for this platform. */
export function LinksCard(props: {
  namespace: string;
  name: string;
  /** The platform's cluster, as the backend names it. */
  cluster?: string;
}) {
  const config = useApi(configApiRef);
  const links = (
    config.getOptionalConfigArray('inferencePlatform.links') ?? []
  ).map(l => ({
    title: l.getString('title'),
    url: renderLink(
      l.getString('url'),
      props.namespace,
      props.name,
      props.cluster,
    ),
  }));
  if (links.length === 0) return null;
  return (
    <InfoCard title="Links">
      <List dense>
        {links.map(l => (
          <ListItem key={l.title}>
            <ListItemText
              primary={<Link to={l.url}>{l.title}</Link>}
              secondary={l.url}
            />
          </ListItem>
        ))}
      </List>
    </InfoCard>
  );
}
