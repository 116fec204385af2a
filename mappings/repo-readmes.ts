/**
 * RepoReadme (chainguard-dev/sdk: proto/platform/registry/v1/registry.platform.proto): v2 moved a repo's `readme` out of the Repo
 * into a singleton sub-resource at `/repos/{uid}/readme` with the repo's uid,
 * served by GetRepoReadme and UpdateRepoReadme (the standard Get and Update
 * of that singleton). v1 still keeps it in the repo row, so over v1 the
 * readme is that row read through other field specs, and its update is the
 * repo's read-modify-write PUT with only `readme` changed. In native mode it
 * is a row of its own that exists as long as its repo does.
 *
 * UpdateRepoReadme also needs the internal-only CAP_REPO_INTERNAL_ADMIN in
 * v2; the gateway cannot see capabilities (v1 judges the token, and native
 * mode verifies none), so that rule is v1's or the deployment's to enforce.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';

export default defineResource({
  name: 'repoReadmes',
  resourceType: 'registry.chainguard.dev/RepoReadme',
  service: 'registry',
  operations: ['get', 'update'],
  v1: { collection: 'repos', idParam: 'id' },
  fields: {
    uid: { v1: 'id' },
    content: { v1: 'readme' },
  },
  filters: {},
  orderBy: { fields: ['uid'], default: 'uid asc' },
  validate: z.object({ content: z.string().optional() }),
  native: {
    singletonOf: 'repos',
  },
});
