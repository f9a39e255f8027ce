import { InferencePlatform } from '@cv-platform/inference-platform-api';
import { names } from '../reconcile/labels';

const PLACEHOLDERS = ['namespace', 'name', 'statefulSet', 'pod'] as const;

/**
 * Where a platform's Qdrant REST API is reached when it is not at its
 * Service's cluster DNS name: a gateway, a port-forward, or the simulated
 * Qdrant of the local cluster's simulated nodes. `{namespace}`, `{name}`
 * (the platform), `{statefulSet}` and, for one peer, `{pod}` are filled in.
 * Unknown placeholders are refused when the operator starts, not on first use.
 *
 * @public
 */
export function qdrantUrlTemplate(
  template: string,
  what: string,
  allowPod: boolean,
): (p: InferencePlatform, pod?: string) => string {
  for (const m of template.matchAll(/\{([^}]*)\}/g)) {
    const known = (PLACEHOLDERS as readonly string[]).includes(m[1]) && (allowPod || m[1] !== 'pod');
    if (!known) {
      const allowed = PLACEHOLDERS.filter(x => allowPod || x !== 'pod').map(x => `{${x}}`);
      throw new Error(`${what} ${template}: unknown placeholder {${m[1]}} (known: ${allowed.join(', ')})`);
    }
  }
  try {
    // eslint-disable-next-line no-new
    new URL(template.replace(/\{[^}]*\}/g, 'x'));
  } catch {
    throw new Error(`${what} ${template} is not a URL`);
  }
  return (p, pod) =>
    template
      .replace(/\{namespace\}/g, encodeURIComponent(p.metadata.namespace ?? 'default'))
      .replace(/\{name\}/g, encodeURIComponent(p.metadata.name ?? ''))
      .replace(/\{statefulSet\}/g, encodeURIComponent(names.qdrant(p)))
      .replace(/\{pod\}/g, encodeURIComponent(pod ?? ''))
      .replace(/\/$/, '');
}
