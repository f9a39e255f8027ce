/* eslint-disable no-console */
/** Builds the versitygw S3 server used by the s3:// tests into the cache. */
import { ensureVersitygw } from '../src/__testUtils__/S3TestServer';

console.log(ensureVersitygw());
