import { List, ListItem, ListItemText } from '@material-ui/core';
import { InfoCard, Link } from '@backstage/core-components';
import { configApiRef, useApi } from '@backstage/core-plugin-api';

/** `{namespace}` and `{name}` in a link template, URL-encoded. */
export function renderLink(template: string, namespace: string, name: string) {
  return template
    .replace(/\{namespace\}/g, encodeURIComponent(namespace))
    .replace(/\{name\}/g, encodeURIComponent(name));
}

/** Links from `inferencePlatform.links` (dashboards, Prometheus queries), filled in for this platform. */
export function LinksCard(props: { namespace: string; name: string }) {
  const config = useApi(configApiRef);
  const links = (
    config.getOptionalConfigArray('inferencePlatform.links') ?? []
  ).map(l => ({
    title: l.getString('title'),
    url: renderLink(l.getString('url'), props.namespace, props.name),
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
