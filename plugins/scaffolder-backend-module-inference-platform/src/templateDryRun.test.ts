import fs from 'node:fs';
import path from 'node:path';
import { createBackendModule } from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import {
  createTemplateAction,
  scaffolderActionsExtensionPoint,
} from '@backstage/plugin-scaffolder-node';
import {
  createTestNamespace,
  deleteTestNamespace,
  testApi,
  testKubeconfigPath,
} from '@cv-platform/local-cluster';
import yaml from 'js-yaml';
import scaffolderPlugin from '@backstage/plugin-scaffolder-backend';
import request from 'supertest';
import { scaffolderModuleInferencePlatform } from './module';

jest.setTimeout(120_000);

const APP = 'http://portal.test';
const TEMPLATE_DIR = path.resolve(__dirname, '../templates/inference-platform');

/**
 * The GitOps steps use publish:github:pull-request from the GitHub scaffolder
 * module, which this repository does not install. The runner resolves every
 * step's action before it skips it in a dry run, so the dry run needs an
 * action with that id; it is never executed.
 */
const githubPullRequestPlaceholder = createBackendModule({
  pluginId: 'scaffolder',
  moduleId: 'test-github-pull-request-placeholder',
  register(reg) {
    reg.registerInit({
      deps: { scaffolder: scaffolderActionsExtensionPoint },
      async init({ scaffolder }) {
        scaffolder.addActions(
          createTemplateAction({
            id: 'publish:github:pull-request',
            schema: {
              output: { remoteUrl: z => z.string() },
            },
            async handler() {
              throw new Error(
                'a dry run must not run publish:github:pull-request',
              );
            },
          }),
        );
      },
    });
  },
});

function directoryContents(
  dir: string,
  prefix = '',
): { path: string; base64Content: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const abs = path.join(dir, entry.name);
    return entry.isDirectory()
      ? directoryContents(abs, rel)
      : [{ path: rel, base64Content: fs.readFileSync(abs).toString('base64') }];
  });
}

const template = yaml.load(
  fs.readFileSync(path.join(TEMPLATE_DIR, 'template.yaml'), 'utf8'),
) as any;

describe('the inference-platform template, dry-run through the scaffolder backend', () => {
  const api = testApi();
  let ns: string;
  let server: any;

  beforeAll(async () => {
    ns = await createTestNamespace(api, 'template');
    const backend = await startTestBackend({
      features: [
        scaffolderPlugin,
        scaffolderModuleInferencePlatform,
        githubPullRequestPlaceholder,
        catalogServiceMock.factory(),
        mockServices.permissions.factory({ result: AuthorizeResult.ALLOW }),
        mockServices.rootConfig.factory({
          data: {
            app: { baseUrl: APP },
            inferencePlatform: {
              kubernetes: { kubeconfigPath: testKubeconfigPath() },
            },
          },
        }),
      ],
    });
    server = backend.server;
  });

  afterAll(async () => {
    await deleteTestNamespace(api, ns);
  });

  const values = (extra: Record<string, unknown> = {}) => ({
    name: 'vision',
    namespace: ns,
    owner: 'group:default/ml-platform',
    qdrant: { version: 'v1.14.1', replicas: 3, storage: { size: '20Gi' } },
    inference: {
      model: {
        url: 's3://models/resnet50-v2-7.onnx',
        source: { mode: 'emptyDir', sizeLimit: '1Gi' },
      },
      image: 'my-repo/cv-inference:latest',
      replicas: 2,
      resources: {
        requests: { cpu: '1', memory: '2Gi' },
        limits: { cpu: '2', memory: '4Gi' },
      },
      gpu: { count: 1, type: 'NVIDIA-A100-SXM4-40GB' },
    },
    delivery: 'cluster',
    waitForReady: true,
    ...extra,
  });

  const expectedCr = () => ({
    apiVersion: 'cv.platform.tech/v1beta1',
    kind: 'InferencePlatform',
    metadata: {
      name: 'vision',
      namespace: ns,
      annotations: { 'cv.platform.tech/owner': 'group:default/ml-platform' },
    },
    spec: {
      qdrant: { version: 'v1.14.1', replicas: 3, storage: { size: '20Gi' } },
      inference: {
        model: {
          url: 's3://models/resnet50-v2-7.onnx',
          source: { mode: 'emptyDir', sizeLimit: '1Gi' },
        },
        image: 'my-repo/cv-inference:latest',
        replicas: 2,
        resources: {
          requests: { cpu: '1', memory: '2Gi' },
          limits: { cpu: '2', memory: '4Gi' },
        },
        gpu: { count: 1, type: 'NVIDIA-A100-SXM4-40GB' },
      },
    },
  });

  const dryRun = (vals: Record<string, unknown>) =>
    request(server)
      .post('/api/scaffolder/v2/dry-run')
      .set('Authorization', mockCredentials.user.header())
      .send({
        template,
        values: vals,
        secrets: {},
        directoryContents: directoryContents(TEMPLATE_DIR),
      });

  const manifestOf = (body: any) => {
    const content: string = body.output.text.find(
      (t: any) => t.title === 'Custom resource',
    ).content;
    expect(content).toMatch(/^```yaml\napiVersion: [^]*\S\n```\n$/);
    return yaml.load(content.replace(/^```yaml\n/, '').replace(/```\s*$/, ''));
  };

  const logText = (body: any) =>
    body.log.map((l: any) => l.body.message).join('\n');

  async function platformsInNamespace() {
    const res = await api.request(
      'GET',
      `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`,
    );
    return res.body.items;
  }

  it('registers both actions with their schemas and examples', async () => {
    const res = await request(server)
      .get('/api/scaffolder/v2/actions')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.map((a: any) => [a.id, a]));
    const create = byId['inference-platform:create'];
    expect(create.schema.input.required).toEqual(
      expect.arrayContaining(['name', 'namespace', 'qdrant', 'inference']),
    );
    expect(create.schema.input.properties.qdrant.description).toMatch(
      /spec\.qdrant/,
    );
    // The v1beta1 layout: the model and the Qdrant volumes are objects.
    expect(
      create.schema.input.properties.inference.properties.model.required,
    ).toEqual(['url']);
    expect(create.schema.input.properties.inference.required).toEqual(
      expect.arrayContaining(['image', 'model']),
    );
    expect(
      Object.keys(
        create.schema.input.properties.qdrant.properties.storage.properties,
      ),
    ).toEqual(['size', 'className']);
    expect(Object.keys(create.schema.output.properties)).toEqual(
      expect.arrayContaining([
        'name',
        'namespace',
        'portalUrl',
        'entityRef',
        'manifest',
      ]),
    );
    expect(create.examples.length).toBeGreaterThanOrEqual(3);
    expect(byId['inference-platform:catalog:refresh']).toBeDefined();
  });

  it('produces the expected CR, validated by the API server, creating nothing', async () => {
    const res = await dryRun(values());
    expect(res.status).toBe(200);
    expect(manifestOf(res.body)).toEqual(expectedCr());
    const log = logText(res.body);
    expect(log).toMatch(
      new RegExp(
        `The API server accepted InferencePlatform ${ns}/vision in a server-side dry run`,
      ),
    );
    expect(log).toMatch(
      /Would wait for resource:default\/.*\.vision and refresh it/,
    );
    expect(res.body.output.links).toEqual([
      {
        title: 'Open the platform',
        icon: 'dashboard',
        url: `${APP}/inference-platforms/${ns}/vision`,
      },
      {
        title: 'Open in catalog',
        icon: 'catalog',
        entityRef: `resource:default/${ns}.vision`,
      },
    ]);
    // Only the GitOps delivery writes files.
    expect(
      res.body.directoryContents.map((f: any) => f.path),
    ).not.toContainEqual(expect.stringMatching(/^gitops\//));
    expect(await platformsInNamespace()).toEqual([]);
  });

  it('writes the same CR into the workspace for the GitOps delivery', async () => {
    const res = await dryRun(
      values({
        delivery: 'gitops',
        repoUrl: 'github.com?owner=acme&repo=platforms',
        manifestPath: 'deploy/inference-platforms',
      }),
    );
    expect(res.status).toBe(200);
    const file = res.body.directoryContents.find(
      (f: any) => f.path === `gitops/${ns}/vision.yaml`,
    );
    expect(file).toBeDefined();
    const text = Buffer.from(file.base64Content, 'base64').toString('utf8');
    expect(yaml.load(text)).toEqual(expectedCr());
    expect(text.endsWith('\n')).toBe(true);
    expect(logText(res.body)).toMatch(
      /Skipping because publish:github:pull-request does not support dry-run/,
    );
    expect(res.body.output.links.map((l: any) => l.title)).toEqual([
      'Pull request',
    ]);
    expect(await platformsInNamespace()).toEqual([]);
  });

  it('rejects values that break a form rule mirrored from the CRD', async () => {
    const res = await dryRun(
      values({
        qdrant: { version: 'latest', replicas: 3, storage: { size: '20Gi' } },
      }),
    );
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toMatch(/does not match pattern/);
  });

  it('reports the API server message for a rule only the server checks', async () => {
    const vals = values();
    (vals.inference as any).resources.limits.memory = '1Gi';
    const res = await dryRun(vals);
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('InputError');
    expect(res.body.error.message).toMatch(
      /The API server rejected InferencePlatform .*\/vision: .*inference resources: every limit must be >= its request/,
    );
    expect(await platformsInNamespace()).toEqual([]);
  });
});
