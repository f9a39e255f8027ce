/** A model file ready to load. */
export interface FetchedModel {
  path: string;
  /** A download the caller should delete once the workers have loaded it. */
  temporary: boolean;
  /** Where it came from, without credentials, for logs and /readyz. */
  source: string;
}
