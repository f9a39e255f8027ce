/* eslint-disable no-console */
/** Builds the versitygw S3 server used by the s3:// tests into the cache. */
import { ensureVersitygw } from '@cv-platform/local-cluster';

console.log(ensureVersitygw());
