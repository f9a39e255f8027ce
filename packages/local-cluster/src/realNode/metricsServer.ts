import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { freePort } from '../freePort';
import { ManagedProcess } from '../ManagedProcess';
import type { Pki } from '../pki';
import { NODE_NETWORK } from './hostNetwork';

const PORT_NAME = 'https';

function livez(url: string): Promise<boolean> {
  return new Promise(resolve => {
    const req = https.get(url, { rejectUnauthorized: false, timeout: 2000 }, res => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * metrics-server for the real node: the resource metrics API
 * (metrics.k8s.io, behind `kubectl top` and CPU HorizontalPodAutoscalers),
 * scraping the node agent's /metrics/resource. It runs on the host at the
 * bridge address, registered through the aggregation layer as a Service
 * without selector whose EndpointSlice names that address (the API server
 * routes to endpoints, --enable-aggregator-routing).
 */
export async function startMetricsServer(o: {
  bin: string;
  workDir: string;
  kubeconfig: string;
  pki: Pki;
  apply: (obj: any) => Promise<unknown>;
  spawn: (bin: string, name: string, args: string[]) => ManagedProcess;
  waitFor: (p: ManagedProcess, ready: () => Promise<boolean>) => Promise<void>;
}): Promise<void> {
  const port = await freePort();
  const certDir = path.join(o.workDir, 'metrics-server');
  fs.mkdirSync(certDir, { recursive: true });
  const host = NODE_NETWORK.gateway;
  const p = o.spawn(o.bin, 'metrics-server', [
    `--kubeconfig=${o.kubeconfig}`,
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    `--bind-address=${host}`,
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    // The node agent serves a self-signed certificate and asks for a client
    // certificate from the cluster's CA, as the API server presents.
    '--kubelet-insecure-tls',
    `--kubelet-client-certificate=${o.pki.kubeletClientCert}`,
    `--kubelet-client-key=${o.pki.kubeletClientKey}`,
    '--kubelet-preferred-address-types=InternalIP',
    '--kubelet-use-node-status-port',
    '--metric-resolution=10s',
    '--kubelet-request-timeout=5s',
  ]);
  // Alive, not ready: it is ready once it has scraped the node twice.
  await o.waitFor(p, () => livez(`https://${host}:${port}/livez`));
  const meta = { name: 'metrics-server', namespace: 'kube-system', labels: { 'app.kubernetes.io/name': 'metrics-server' } };
  await o.apply({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta,
    spec: { ports: [{ name: PORT_NAME, port: 443, targetPort: port, protocol: 'TCP' }] },
  });
  await o.apply({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...meta,
      name: 'metrics-server-host',
      labels: { ...meta.labels, 'kubernetes.io/service-name': 'metrics-server', 'endpointslice.kubernetes.io/managed-by': 'cv-local-cluster' },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [host], conditions: { ready: true } }],
    ports: [{ name: PORT_NAME, port, protocol: 'TCP' }],
  });
  await o.apply({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1beta1.metrics.k8s.io', labels: meta.labels },
    spec: {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      service: { name: 'metrics-server', namespace: 'kube-system', port: 443 },
      // Its certificate is self-signed, as in most installs of it.
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  });
}
