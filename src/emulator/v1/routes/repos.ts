/** `/registry/v1/repos` (api-surface.md §8). */
import { CREATE_REPO_QUERY, REPO, REPO_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState, RepoFields } from '../state.ts';
import type { V1Repo } from '../state-records.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1Repo>(REPO);

export function repoRoutes(state: EmulatorState): Route[] {
  return collectionRoutes<V1Repo>({
    path: '/registry/v1/repos',
    resource: REPO,
    filter: REPO_FILTER,
    createQuery: CREATE_REPO_QUERY,
    create: (parent, body, query) =>
      state.createRepo(parent, as<RepoFields>(body), as<{ preventExisting?: boolean }>(query)),
    update: (id, body) => state.updateRepo(id, as<RepoFields>(body)),
    list: (filter) => state.listRepos(filter).map(render),
    remove: (id) => state.deleteRepo(id),
    render,
  });
}
