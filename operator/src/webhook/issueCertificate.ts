// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs this polyfill.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** PEM text of a CA and of the serving certificate it signed, with the serving key. */
export interface WebhookCertificate {
  caCert: string;
  cert: string;
  key: string;
  notAfter: Date;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

/**
 * A fresh CA and a serving certificate signed by it, for the names the API
 * server dials (the webhook Service's DNS names, or 127.0.0.1 for an
 * operator on the control plane's host). Each issue has its own CA, so
 * rotating replaces both; the caBundle carries the old CA beside the new one
 * until replicas serving the old certificate have moved on.
 */
export async function issueCertificate(opts: {
  dnsNames: string[];
  ipAddresses: string[];
  validityMs: number;
  now?: Date;
}): Promise<WebhookCertificate> {
  const crypto = webcrypto as unknown as Crypto;
  x509.cryptoProvider.set(crypto);
  const notBefore = new Date((opts.now ?? new Date()).getTime() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 60_000 + opts.validityMs);
  const caKeys = (await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=inference-platform-operator webhook CA ${notBefore.toISOString()}`,
    keys: caKeys,
    notBefore,
    // The CA outlives its serving certificate, so a late rotation still finds it valid.
    notAfter: new Date(notAfter.getTime() + opts.validityMs),
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = (await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${opts.dnsNames[0] ?? opts.ipAddresses[0]}`,
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...opts.dnsNames.map(value => ({ type: 'dns' as const, value })),
        ...opts.ipAddresses.map(value => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  return {
    caCert: `${ca.toString('pem')}\n`,
    cert: `${cert.toString('pem')}\n`,
    key: pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', keys.privateKey)),
    notAfter,
  };
}

/** When a PEM certificate expires. */
export function certificateNotAfter(certPem: string): Date {
  return new x509.X509Certificate(certPem).notAfter;
}
