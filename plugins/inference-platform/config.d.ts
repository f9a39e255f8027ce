export interface Config {
  inferencePlatform?: {
    /**
     * Links shown on each platform's page, e.g. a Grafana dashboard or a
     * Prometheus query. `{namespace}`, `{name}` and `{cluster}` in `url` are
     * replaced by the platform's (`{cluster}`: its cluster's name in the
     * backend's `inferencePlatform.clusters`, `default` with one cluster).
     * @visibility frontend
     */
    links?: Array<{
      /** @visibility frontend */
      title: string;
      /** @visibility frontend */
      url: string;
    }>;
  };
}
