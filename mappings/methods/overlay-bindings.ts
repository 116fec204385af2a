/**
 * CreateOverlayBinding: attach an existing overlay to one repo under exact tag
 * names. The request is a reference and a selector, not a resource: `parent`
 * (the repo), `overlay` (its UIDP, or its name within the repo's
 * organisation) and `tags` (at least one). From the store in both modes — v1
 * has no overlays; the repo may be v1's (translate mode). The overlay row is locked while the binding is written, so an
 * overlay cannot be deleted under a binding being made to it.
 */
import { invalidArgument, invalidField, notFound } from '../../src/aip/errors.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import type { ResourceStore, StoredResource } from '../../src/store/types.ts';
import { isUidp, newChildUid } from '../../src/uidp.ts';
import { OCI_TAG } from '../tags.ts';

const OVERLAY = 'registry.chainguard.dev/Overlay';

export const createOverlayBinding: CustomMethod = {
  touches: ['overlayBindings', 'overlays'],
  async native(request, access) {
    const repo = String(request.parent);
    if (!isUidp(repo)) throw invalidField('parent', `"${repo}" is not a valid UIDP`);
    const tags = request.tags as string[];
    const bad = tags.findIndex((tag) => !OCI_TAG.test(tag));
    if (bad >= 0) throw invalidField(`tags[${bad}]`, 'must be an OCI tag: up to 128 of [A-Za-z0-9_.-], not starting with . or -');
    await access.get('repos', repo); // NOT_FOUND when the repo is not there
    const uid = await access.store.transaction(async ({ resources }) => {
      const overlay = await overlayFor(resources, String(request.overlay), repo.split('/')[0]!);
      const now = access.now();
      const uid = newChildUid(repo);
      await resources.insert({
        kind: 'overlayBindings', uid, parent: repo, createTime: now, updateTime: now,
        body: { uid, repo, overlay: { uid: overlay.uid }, tags: [...new Set(tags)] },
      });
      return uid;
    });
    return access.get('overlayBindings', uid);
  },
};

/** The overlay a reference names within the organisation, locked until the binding is written. */
async function overlayFor(resources: ResourceStore, reference: string, organisation: string): Promise<StoredResource> {
  let uid = reference;
  if (!isUidp(reference)) {
    const { rows } = await resources.list({
      kind: 'overlays',
      filters: [{ field: 'name', op: 'eq', value: reference }, { field: 'uid', op: 'descendantOf', value: organisation }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: 2,
    });
    if (rows.length > 1) throw invalidArgument([{ field: 'overlay', description: `the name "${reference}" is held by several overlays of the organisation: give the overlay's uid` }]);
    uid = rows[0]?.uid ?? '';
  }
  const overlay = uid && (uid === organisation || uid.startsWith(`${organisation}/`)) ? await resources.getForUpdate('overlays', uid) : undefined;
  if (!overlay) throw notFound(OVERLAY, reference);
  return overlay;
}
