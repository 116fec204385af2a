/**
 * The `demo` seed: a small, realistic organisation to point the gateway at by
 * hand. Built through EmulatorState so it obeys the same invariants as data
 * created over HTTP.
 */
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
}

const DAY_MS = 24 * 3600 * 1000;

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

  return {
    orgId: org.id,
    groups: { platform: platform.id, apps: apps.id },
    identities: { githubActions: github.id, user: user.id },
    userEmail,
    roles: { repoReader: repoReader.id },
    roleBindings: { userOwner: userOwner.id, githubEditor: githubEditor.id, githubViewer: githubViewer.id },
    repos: { nginx: nginx.id, python: python.id },
  };
}
