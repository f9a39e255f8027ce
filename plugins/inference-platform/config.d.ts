export interface Config {
  inferencePlatform?: {
    /**
     * Links shown on each platform's page, e.g. a Grafana dashboard or a
     * Prometheus query. `{namespace}` and `{name}` in `url` are replaced by
     * the platform's.
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
