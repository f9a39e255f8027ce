import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Pki {
  caCert: string;
  servingCert: string;
  servingKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  tokenFile: string;
  adminToken: string;
  /** The API server's client certificate towards kubelets (logs, port-forward). */
  kubeletClientCert: string;
  kubeletClientKey: string;
  /** The aggregation layer: the CA of the front proxy and its client certificate (the API server towards extension API servers such as metrics-server). */
  frontProxyCaCert: string;
  frontProxyClientCert: string;
  frontProxyClientKey: string;
}

function openssl(args: string[], cwd: string) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Creates a throw-away CA, a serving certificate for 127.0.0.1/localhost and the
 * in-cluster names, a service-account signing key and a static admin token.
 * Keys are P-256: generation is instant and every component accepts them.
 */
export function createPki(dir: string): Pki {
  fs.mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30', '-subj', '/CN=cv-local-cluster-ca'],
    dir,
  );
  openssl(
    ['req', ...ec, '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver'],
    dir,
  );
  fs.writeFileSync(
    path.join(dir, 'san.ext'),
    // 10.244.0.1: the real node's bridge, where pods reach the API server (the pod relay behind the kubernetes Service).
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1,IP:10.244.0.1\n' +
      'extendedKeyUsage=serverAuth\n',
  );
  openssl(
    ['x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'apiserver.crt', '-days', '30', '-extfile', 'san.ext'],
    dir,
  );
  fs.writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(
    ['req', ...ec, '-keyout', 'kubelet-client.key', '-out', 'kubelet-client.csr',
      '-subj', '/O=system:masters/CN=kube-apiserver-kubelet-client'],
    dir,
  );
  openssl(
    ['x509', '-req', '-in', 'kubelet-client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', 'kubelet-client.crt', '-days', '30', '-extfile', 'client.ext'],
    dir,
  );
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'front-proxy-ca.key', '-out', 'front-proxy-ca.crt', '-days', '30', '-subj', '/CN=cv-local-front-proxy-ca'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'front-proxy-client.key', '-out', 'front-proxy-client.csr', '-subj', '/CN=front-proxy-client'], dir);
  openssl(
    ['x509', '-req', '-in', 'front-proxy-client.csr', '-CA', 'front-proxy-ca.crt', '-CAkey', 'front-proxy-ca.key', '-CAcreateserial',
      '-out', 'front-proxy-client.crt', '-days', '30', '-extfile', 'client.ext'],
    dir,
  );
  const sa = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'sec1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  fs.writeFileSync(path.join(dir, 'sa.key'), sa.privateKey, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sa.pub'), sa.publicKey);
  const adminToken = randomBytes(24).toString('hex');
  fs.writeFileSync(
    path.join(dir, 'tokens.csv'),
    `${adminToken},admin,admin-uid,"system:masters"\n`,
    { mode: 0o600 },
  );
  return {
    caCert: path.join(dir, 'ca.crt'),
    servingCert: path.join(dir, 'apiserver.crt'),
    servingKey: path.join(dir, 'apiserver.key'),
    serviceAccountKey: path.join(dir, 'sa.key'),
    serviceAccountPub: path.join(dir, 'sa.pub'),
    tokenFile: path.join(dir, 'tokens.csv'),
    adminToken,
    kubeletClientCert: path.join(dir, 'kubelet-client.crt'),
    kubeletClientKey: path.join(dir, 'kubelet-client.key'),
    frontProxyCaCert: path.join(dir, 'front-proxy-ca.crt'),
    frontProxyClientCert: path.join(dir, 'front-proxy-client.crt'),
    frontProxyClientKey: path.join(dir, 'front-proxy-client.key'),
  };
}
