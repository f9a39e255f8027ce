/** A model could not be fetched; the message names the source without credentials. */
export class ModelFetchError extends Error {}
