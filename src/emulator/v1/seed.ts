/**
 * The `demo` seed: a small, realistic organisation to point the gateway at by
 * hand. Built through EmulatorState so it obeys the same invariants as data
 * created over HTTP.
 */
import { createHash } from 'node:crypto';
import type { EmulatorState } from './state.ts';

export interface DemoOrg {
  orgId: string;
  groups: { platform: string; apps: string };
  identities: {
    /** A GitHub Actions workflow identity (claimMatch) inside the org. */
    githubActions: string;
    /** A root-level user identity carrying an email. */
    user: string;
  };
  userEmail: string;
  /** A custom role in the org, alongside the managed viewer/editor/owner. */
  roles: { repoReader: string };
  roleBindings: { userOwner: string; githubEditor: string; githubViewer: string };
  repos: { nginx: string; python: string };
  /** An OIDC provider in the org whose users default to viewer. */
  identityProviders: { okta: string };
  /** The org's account associations are keyed by the org id itself (AWS, Google and a GitHub App). */
  accountAssociationsGroup: string;
  /** Open invites into the org: a viewer invite anyone may redeem, a single-use editor invite for one address. */
  groupInvites: { viewer: string; editor: string };
  /** Tags of the nginx repo, one of each shape the v1 tag filters know. */
  tags: { latest: string; version: string; epoch: string; dated: string; referrer: string };
  /** Advisories in the org; libssl3 is registered as a subpackage of openssl. */
  advisories: { openssl: string; libssl3: string; curl: string; nginx: string };
}

const DAY_MS = 24 * 3600 * 1000;

/** A stable, realistic-looking image digest. */
const digestOf = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function seedIam(state: EmulatorState, orgId: string): Pick<DemoOrg, 'identityProviders' | 'accountAssociationsGroup' | 'groupInvites'> {
  const okta = state.createIdentityProvider(orgId, {
    name: 'okta',
    description: 'Workforce sign-in',
    defaultRole: state.builtinRoles.viewer,
    oidc: {
      issuer: 'https://demo-org.okta.example',
      clientId: '0oa1demo2client3id',
      clientSecret: 'demo-client-secret',
      additionalScopes: ['email', 'groups'],
      groupsClaim: 'groups',
      pkceEnabled: true,
    },
  });
  state.createAccountAssociations(orgId, {
    name: 'demo-org-clouds',
    description: 'Where demo-org pulls from',
    amazon: { account: '123456789012' },
    google: { projectId: 'demo-org-prod', projectNumber: '987654321098' },
    github: { appInstallations: { '123456': { installations: [{ installationId: '7654321', name: 'demo-org' }] } } },
  });
  const viewer = state.createGroupInvite(orgId, { ttl: `${7 * 24 * 3600}s`, role: state.builtinRoles.viewer });
  const editor = state.createGroupInvite(orgId, {
    ttl: '86400s',
    role: state.builtinRoles.editor,
    email: 'bob@demo-org.example',
    singleUse: true,
  });
  return { identityProviders: { okta: okta.id }, accountAssociationsGroup: orgId, groupInvites: { viewer: viewer.id, editor: editor.id } };
}

function seedTags(state: EmulatorState, repo: string): DemoOrg['tags'] {
  const current = digestOf('nginx 1.27.3-r1');
  const tag = (name: string, digest: string) => state.createTag(repo, { name, digest, bundles: ['application'] }).id;
  return {
    latest: tag('latest', current),
    version: tag('1.27', current),
    epoch: tag('1.27.3-r1', current),
    dated: tag('latest-20250101', digestOf('nginx 1.27.3-r0')),
    referrer: tag(`${current.replace(':', '-')}.sig`, digestOf('nginx 1.27.3-r1 signature')),
  };
}

function seedAdvisories(state: EmulatorState, orgId: string): DemoOrg['advisories'] {
  state.registerSubpackages('openssl', ['libssl3', 'libcrypto3']);
  const apk = { artifactType: 'apk', artifactArchitecture: 'x86_64' };
  const scan = (componentName: string) => ({
    detection: { scanv1: { scanner: 'grype', componentName, componentVersion: '3.3.1', componentType: 'apk', scannerVersion: '0.86.1' } },
    author: 'scanner@chainguard.dev',
    status: 'APPROVED',
    timestamp: '2025-01-10T08:00:00Z',
  });
  const openssl = state.createAdvisory(orgId, {
    ...apk,
    artifactName: 'openssl',
    aliases: ['CVE-2025-0001', 'GHSA-demo-0001-aaaa'],
    author: 'alice@demo-org.example',
    events: [
      scan('openssl'),
      { fixed: { fixedVersion: '3.3.2-r0' }, author: 'alice@demo-org.example', reviewer: 'carol@demo-org.example', status: 'APPROVED', timestamp: '2025-01-12T09:30:00Z' },
    ],
  });
  const libssl3 = state.createAdvisory(orgId, {
    ...apk,
    artifactName: 'libssl3',
    componentName: 'libssl3',
    aliases: ['CVE-2025-0001'],
    author: 'alice@demo-org.example',
    events: [scan('libssl3'), { pendingUpstreamFix: { note: 'Waiting for the 3.3.2 release' }, author: 'alice@demo-org.example', status: 'PENDING' }],
  });
  const curl = state.createAdvisory(orgId, {
    ...apk,
    artifactName: 'curl',
    aliases: ['CVE-2025-0002'],
    author: 'bob@demo-org.example',
    legacyAdvisoryID: 'CGA-2c4f-6h8j-9m2p',
    events: [
      scan('curl'),
      {
        falsePositiveDetermination: { type: 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'The affected protocol handler is compiled out' },
        author: 'bob@demo-org.example',
        reviewer: 'carol@demo-org.example',
        status: 'APPROVED',
        timestamp: '2025-01-11T12:00:00Z',
      },
    ],
  });
  const nginx = state.createAdvisory(orgId, {
    artifactType: 'image',
    artifactName: 'nginx',
    artifactArchitecture: 'aarch64',
    componentName: 'zlib',
    componentType: 'apk',
    componentLocation: '/lib/apk/db/installed',
    aliases: ['CVE-2025-0003'],
    author: 'scanner@chainguard.dev',
    events: [{ detection: { manual: {} }, author: 'dave@demo-org.example', status: 'REQUEST_CHANGES', findings: Buffer.from('{"severity":"medium"}').toString('base64') }],
  });
  return { openssl: openssl.id, libssl3: libssl3.id, curl: curl.id, nginx: nginx.id };
}

export function seedDemo(state: EmulatorState): DemoOrg {
  const org = state.createGroup(null, {
    name: 'demo-org',
    description: 'Demo organization served by the v1 emulator',
    kind: 'ORG_KIND_CUSTOMER',
    status: 'ORG_STATUS_READY',
    resourceLimits: { repos: 100 },
  });
  const platform = state.createGroup(org.id, { name: 'platform', description: 'Platform team' });
  const apps = state.createGroup(org.id, { name: 'apps', description: 'Application teams' });

  const userEmail = 'alice@demo-org.example';
  const user = state.createIdentity(null, {
    name: 'Alice Example',
    description: 'Demo user',
    claimMatch: { issuer: 'https://auth.chainguard.dev/', subject: 'google-oauth2|104920111222333444555' },
    email: userEmail,
  });
  const github = state.createIdentity(org.id, {
    name: 'github-actions-deploy',
    description: 'Release workflow of demo-org/app',
    claimMatch: {
      issuer: 'https://token.actions.githubusercontent.com',
      subject: 'repo:demo-org/app:ref:refs/heads/main',
      audience: 'https://issuer.enforce.dev',
      claims: { workflow: 'release' },
    },
  });

  const repoReader = state.createRole(org.id, {
    name: 'repo-reader',
    description: 'Can list repositories and their manifests',
    capabilities: ['repo.list', 'manifest.list'],
  });

  const userOwner = state.createRoleBinding(org.id, { identity: user.id, role: state.builtinRoles.owner! });
  const githubEditor = state.createRoleBinding(apps.id, { identity: github.id, role: state.builtinRoles.editor! });
  const githubViewer = state.createRoleBinding(platform.id, { identity: github.id, role: state.builtinRoles.viewer! });

  const nginx = state.createRepo(org.id, {
    name: 'nginx',
    description: 'Minimal nginx image',
    catalogTier: 'APPLICATION',
    bundles: ['application'],
    readme: '# nginx\n\nA minimal, hardened [nginx](https://nginx.org) image.\n',
    aliases: ['nginx:latest'],
    activeTags: ['latest', '1.27'],
  });
  const python = state.createRepo(org.id, {
    name: 'python',
    description: 'Python runtime and dev images',
    catalogTier: 'BASE',
    bundles: ['base', 'ai'],
    readme: '# python\n\nPython for production (`latest`) and builds (`latest-dev`).\n',
    activeTags: ['latest', 'latest-dev', '3.13'],
    sync_config: {
      // The catalog repository this one mirrors; it lives outside the emulated data.
      source: '0123456789abcdef0123456789abcdef01234567/89abcdef01234567',
      uniqueTags: true,
      expiration: new Date(Date.now() + 14 * DAY_MS).toISOString(),
      gracePeriod: true,
    },
  });

  // Everything below came later; it is created after the objects above so their list order is unchanged.
  const iam = seedIam(state, org.id);
  const tags = seedTags(state, nginx.id);
  const advisories = seedAdvisories(state, org.id);

  return {
    orgId: org.id,
    groups: { platform: platform.id, apps: apps.id },
    identities: { githubActions: github.id, user: user.id },
    userEmail,
    roles: { repoReader: repoReader.id },
    roleBindings: { userOwner: userOwner.id, githubEditor: githubEditor.id, githubViewer: githubViewer.id },
    repos: { nginx: nginx.id, python: python.id },
    ...iam,
    tags,
    advisories,
  };
}
