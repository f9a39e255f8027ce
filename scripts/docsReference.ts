/* eslint-disable no-console */
/**
 * Generates docs/reference/inference-platform-api.md, the API reference of
 * the InferencePlatform and InferencePlatformRestore resources, from the CRDs
 * in @cv-platform/inference-platform-api (the same objects deploy/crds/ is
 * rendered from), so the page cannot drift from the schema.
 *
 *   npx tsx scripts/docsReference.ts           # write the page (npm run build:docs-reference)
 *   npx tsx scripts/docsReference.ts --check   # exit 1 when the page differs (npm run check:docs-reference)
 *
 * The check also fails when docs/troubleshooting.md does not name a condition
 * type or reason the operator sets (operator/src/status/conditions.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ConditionType,
  inferencePlatformCrd,
  inferencePlatformRestoreCrd,
} from '../packages/inference-platform-api/src';
import { Reason } from '../operator/src/status/conditions';

/** The subset of a CRD this page reads. */
interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    fieldPath?: string;
  }>;
}

interface Crd {
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      plural: string;
      singular?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      deprecated?: boolean;
      schema: { openAPIV3Schema: Schema };
      subresources?: {
        status?: object;
        scale?: {
          specReplicasPath: string;
          statusReplicasPath: string;
          labelSelectorPath?: string;
        };
      };
      additionalPrinterColumns?: Array<{
        name: string;
        type: string;
        jsonPath: string;
        description?: string;
        priority?: number;
      }>;
    }>;
  };
}

const repoRoot = path.resolve(__dirname, '..');
const PAGE = path.join(repoRoot, 'docs/reference/inference-platform-api.md');
const TROUBLESHOOTING = path.join(repoRoot, 'docs/troubleshooting.md');

/** Condition types and reasons the operator sets that docs/troubleshooting.md does not name. */
function undocumentedReasons(): string[] {
  const page = fs.readFileSync(TROUBLESHOOTING, 'utf8');
  return [...Object.values(ConditionType), ...Object.values(Reason)].filter(
    name => !new RegExp(`\\b${name}\\b`).test(page),
  );
}

/** Text safe inside one Markdown table cell. */
const cell = (s: string) =>
  s
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .trim();

const code = (s: string) => {
  const t = s.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
  return t.includes('`')
    ? `<code>${t.replace(/</g, '&lt;')}</code>`
    : `\`${t}\``;
};

function typeOf(s: Schema): string {
  if (s['x-kubernetes-int-or-string']) return 'integer or string';
  if (s.type === 'array')
    return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (
    s.type === 'object' &&
    !s.properties &&
    s.additionalProperties &&
    typeof s.additionalProperties === 'object'
  )
    return `map of ${typeOf(s.additionalProperties)}`;
  if (s.type === 'string' && s.format) return `string (${s.format})`;
  return (
    s.type ?? (s['x-kubernetes-preserve-unknown-fields'] ? 'any' : 'object')
  );
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.enum) out.push(`one of ${s.enum.map(v => code(String(v))).join(', ')}`);
  if (s.minimum !== undefined && s.maximum !== undefined)
    out.push(`${s.minimum}..${s.maximum}`);
  else if (s.minimum !== undefined) out.push(`>= ${s.minimum}`);
  else if (s.maximum !== undefined) out.push(`<= ${s.maximum}`);
  if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.pattern) out.push(`pattern ${code(s.pattern)}`);
  if (s.nullable) out.push('nullable');
  return out;
}

interface Row {
  field: string;
  type: string;
  required: boolean;
  def?: unknown;
  description: string;
  constraints: string[];
}

/** A rule's message; a computed one as its expression, else the rule itself. */
function ruleMessage(v: {
  rule: string;
  message?: string;
  messageExpression?: string;
}): string {
  if (v.message) return cell(v.message);
  if (v.messageExpression)
    return `${code(v.messageExpression)} (for rule ${code(v.rule)})`;
  return `rule ${code(v.rule)}`;
}

interface Rule {
  at: string;
  message: string;
}

/** Walks a schema depth-first, in the schema's own field order. */
function walk(
  s: Schema,
  at: string,
  rows: Row[],
  rules: Rule[],
  required: boolean,
) {
  if (at) {
    rows.push({
      field: at,
      type: typeOf(s),
      required,
      def: s.default,
      description: s.description ?? '',
      constraints: constraints(s),
    });
  }
  for (const v of s['x-kubernetes-validations'] ?? []) {
    const where = v.fieldPath ? `${at}${v.fieldPath}` : at || '(object)';
    rules.push({
      at: where,
      message: ruleMessage(v),
    });
  }
  const children =
    s.properties ??
    (s.type === 'array' && s.items?.properties
      ? s.items.properties
      : undefined);
  const childRequired = (s.properties ? s.required : s.items?.required) ?? [];
  const prefix = s.type === 'array' ? `${at}[]` : at;
  for (const v of (s.type === 'array' &&
    s.items?.['x-kubernetes-validations']) ||
    []) {
    rules.push({
      at: v.fieldPath ? `${prefix}${v.fieldPath}` : prefix,
      message: ruleMessage(v),
    });
  }
  if (children) {
    for (const [name, child] of Object.entries(children)) {
      walk(
        child,
        prefix ? `${prefix}.${name}` : name,
        rows,
        rules,
        childRequired.includes(name),
      );
    }
  }
}

function fieldTable(rows: Row[]): string[] {
  const lines = [
    '| Field | Type | Default | Description |',
    '| --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const desc = [
      r.required ? '**Required.**' : '',
      cell(r.description),
      r.constraints.length ? `_Constraints:_ ${r.constraints.join('; ')}.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(
      `| ${code(r.field)} | ${cell(r.type)} | ${
        r.def === undefined ? '' : code(JSON.stringify(r.def))
      } | ${desc} |`,
    );
  }
  return lines;
}

function renderCrd(crd: Crd): string[] {
  const { group, names, scope } = crd.spec;
  const versions = [...crd.spec.versions].sort(
    (a, b) => Number(b.storage) - Number(a.storage),
  );
  const out: string[] = [
    `## ${names.kind}`,
    '',
    `| | |`,
    `| --- | --- |`,
    `| Group | \`${group}\` |`,
    `| Scope | ${scope} |`,
    `| Plural / singular | \`${names.plural}\` / \`${names.singular ?? ''}\` |`,
    `| Short names | ${
      (names.shortNames ?? []).map(n => `\`${n}\``).join(', ') || 'none'
    } |`,
    `| Categories | ${
      (names.categories ?? []).map(n => `\`${n}\``).join(', ') || 'none'
    } |`,
    `| Versions | ${versions
      .map(
        v =>
          `\`${v.name}\`${v.storage ? ' (storage)' : ''}${
            v.served ? '' : ' (not served)'
          }${v.deprecated ? ' (deprecated)' : ''}`,
      )
      .join(', ')} |`,
    '',
  ];
  for (const v of versions) {
    const root = v.schema.openAPIV3Schema;
    out.push(`### ${names.kind} ${v.name}`, '');
    if (root.description) out.push(cell(root.description), '');
    const sub = v.subresources ?? {};
    const subs = [
      sub.status ? '`status`' : '',
      sub.scale
        ? `\`scale\` (replicas at \`${
            sub.scale.specReplicasPath
          }\`, read from \`${sub.scale.statusReplicasPath}\`${
            sub.scale.labelSelectorPath
              ? `, selector at \`${sub.scale.labelSelectorPath}\``
              : ''
          })`
        : '',
    ].filter(Boolean);
    if (subs.length) out.push(`Subresources: ${subs.join(', ')}.`, '');
    const columns = v.additionalPrinterColumns ?? [];
    if (columns.length) {
      out.push(
        `#### Columns of \`kubectl get ${
          names.shortNames?.[0] ?? names.plural
        }\``,
        '',
        '| Column | Type | From | Description |',
        '| --- | --- | --- | --- |',
        ...columns.map(
          c =>
            `| ${c.name}${c.priority ? ' (`-o wide`)' : ''} | ${c.type} | \`${
              c.jsonPath
            }\` | ${cell(c.description ?? '')} |`,
        ),
        '',
      );
    }
    for (const part of ['metadata', 'spec', 'status'] as const) {
      const s = root.properties?.[part];
      if (!s) continue;
      const rows: Row[] = [];
      const rules: Rule[] = [];
      walk(s, part, rows, rules, (root.required ?? []).includes(part));
      out.push(`#### ${part}`, '', ...fieldTable(rows), '');
      if (rules.length) {
        out.push(
          `Admission rules on ${part} (CEL, checked by the API server for \`kubectl\` and the portal alike):`,
          '',
          '| At | Refused with |',
          '| --- | --- |',
          ...rules.map(r => `| ${code(r.at)} | ${r.message} |`),
          '',
        );
      }
    }
    const topRules = root['x-kubernetes-validations'] ?? [];
    if (topRules.length) {
      out.push(
        'Admission rules on the whole object:',
        '',
        ...topRules.map(r => `- ${ruleMessage(r)}`),
        '',
      );
    }
  }
  return out;
}

export function renderReference(): string {
  return [
    '# InferencePlatform API reference',
    '',
    '<!-- Generated by `npm run build:docs-reference` (scripts/docsReference.ts) from the CRDs in packages/inference-platform-api. Do not edit: `npm run check:docs-reference` fails when this page differs from a fresh generation. -->',
    '',
    'Every field of the two custom resources the operator serves, generated from',
    'the CRD schema in `packages/inference-platform-api` (the same objects',
    '`deploy/crds/` is rendered from). `kubectl explain ipf.spec` shows the same',
    'descriptions in a cluster. How the versions relate is on',
    '[API versions](../api-versions.md).',
    '',
    ...renderCrd(inferencePlatformCrd as unknown as Crd),
    ...renderCrd(inferencePlatformRestoreCrd as unknown as Crd),
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}

function main() {
  const text = renderReference();
  const rel = path.relative(repoRoot, PAGE);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(PAGE) ? fs.readFileSync(PAGE, 'utf8') : '';
    if (current !== text) {
      console.error(
        `${rel} differs from what the CRD schema generates: run \`npm run build:docs-reference\` and commit it.`,
      );
      process.exit(1);
    }
    console.log(`${rel} matches the CRD schema`);
    const missing = undocumentedReasons();
    if (missing.length) {
      console.error(
        `docs/troubleshooting.md does not explain these condition types/reasons the operator sets: ${missing.join(
          ', ',
        )}`,
      );
      process.exit(1);
    }
    console.log(
      'docs/troubleshooting.md names every condition type and reason the operator sets',
    );
    return;
  }
  fs.mkdirSync(path.dirname(PAGE), { recursive: true });
  fs.writeFileSync(PAGE, text);
  console.log(`wrote ${rel}`);
}

main();
