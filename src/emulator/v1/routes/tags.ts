/** `/registry/v1/tags` (api-surface.md §9): tags are created under `{repo_id=**}`. */
import { TAG, TAG_FILTER } from '../messages.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import type { TagFields, TagFilter, V1Tag } from '../stores/tags.ts';
import { as, collectionRoutes, renderer } from './collection.ts';

const render = renderer<V1Tag>(TAG);

export function tagRoutes(state: EmulatorState): Route[] {
  return collectionRoutes<V1Tag, TagFilter>({
    path: '/registry/v1/tags',
    resource: TAG,
    filter: TAG_FILTER,
    create: (repo, body) => state.createTag(repo, as<TagFields>(body)),
    update: (id, body) => state.updateTag(id, as<TagFields>(body)),
    list: (filter) => state.listTags(filter).map(render),
    remove: (id) => state.deleteTag(id),
    render,
  });
}
