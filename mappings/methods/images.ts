/**
 * ImagesService (registry v2beta1): an image's architectures and its size for
 * one of them, by repo and index digest. v1 has both per digest under
 * `/registry/v1/repos/{repo_id}/digests/{digest}/…` with other names
 * (`archs` → `architectures`, `arch` → `architecture`).
 *
 * Native mode reads no registry: it answers from a row per image (repo and
 * digest) holding what v1 said of it, which the import copies (manifestFromV1
 * for each digest the repo's tags point at, stored with manifestRow). An
 * image without such a row is NOT_FOUND, as v1 answers for a digest it does
 * not know; the row goes with its repo.
 */
import { ApiError, notFound } from '../../src/aip/errors.ts';
import { Code } from '../../src/rpc-status.ts';
import { allRows, type V1Copy } from './store-rows.ts';
import type { CustomMethod, NativeAccess } from '../../src/vocabulary/custom-method.ts';
import { isObject, type Json } from '../../src/vocabulary/json.ts';
import type { StoredResource } from '../../src/store/types.ts';
import { isUidp } from '../../src/uidp.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1Int64, v1String, v1Strings } from '../../src/v1/answer-fields.ts';

/** GetSize's documented default. */
const DEFAULT_ARCHITECTURE = 'amd64';
const REPO = 'registry.chainguard.dev/Repo';
/** The store's kind for images: uid `<repo uid>@<digest>`, a child of the repo. The repos mapping cascades its deletes to it. */
export const IMAGE_MANIFESTS_KIND = 'imageManifests';

/** An image's request: a repo uid that is no UIDP names no image, and never reaches v1's path or the store. */
function imageOf(request: Json): { repo: string; digest: string } {
  const repo = String(request.repoUid);
  if (!isUidp(repo)) throw notFound(REPO, repo);
  return { repo, digest: String(request.digest) };
}

function digestPath(repo: string, digest: string, what: 'architectures' | 'size'): string {
  return `/registry/v1/repos/${uidpPath(repo)}/digests/${encodeURIComponent(digest)}/${what}`;
}

/** A v1 GET with query parameters: the caller's own client (the gateway's, or the import's). */
export type V1Get = (path: string, query?: Record<string, string>) => Promise<Json>;

/** What v1 says of one image, in the stored row's shape: its architectures, and its size for each. */
export async function manifestFromV1(get: V1Get, repo: string, digest: string): Promise<{ architectures: string[]; sizes: Record<string, string> }> {
  const architectures = v1Strings(await get(digestPath(repo, digest, 'architectures')), 'archs');
  const sizes: Record<string, string> = {};
  for (const arch of architectures) sizes[arch] = v1Int64(await get(digestPath(repo, digest, 'size'), { arch }), 'size');
  return { architectures, sizes };
}

/** Images: one row for each digest a stored tag points at, what v1 says of it (1 + one call per architecture). */
export const IMAGE_COPY: V1Copy = {
  kind: IMAGE_MANIFESTS_KIND,
  async *rows(v1, store, now) {
    const images = new Set<string>();
    for (const tag of await allRows(store, 'tags')) {
      const digest = tag.body.digest;
      if (typeof digest === 'string' && digest !== '') images.add(`${tag.parent}@${digest}`);
    }
    for (const image of images) {
      const [repo, digest] = image.split('@') as [string, string];
      try {
        yield [manifestRow(repo, digest, await manifestFromV1((path, query) => v1.get(path, query), repo, digest), now)];
      } catch (error) {
        // A digest v1 knows no manifest of (a tag pointing at nothing pulled yet) has no image to copy.
        if (!(error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
      }
    }
  },
};

/** The stored row of an image; `now` is the time of the import. */
export function manifestRow(repo: string, digest: string, manifest: { architectures: string[]; sizes: Record<string, string> }, now: string): StoredResource {
  return {
    kind: IMAGE_MANIFESTS_KIND, uid: `${repo}@${digest}`, parent: repo,
    body: { repoUid: repo, digest, architectures: manifest.architectures, sizes: manifest.sizes }, createTime: now, updateTime: now,
  };
}

/** The stored image; NOT_FOUND for a repo the store lacks, or an image no row describes. */
async function storedImage(access: NativeAccess, request: Json): Promise<Json> {
  const { repo, digest } = imageOf(request);
  await access.get('repos', repo);
  const row = await access.store.resources.get(IMAGE_MANIFESTS_KIND, `${repo}@${digest}`);
  if (!row) throw notFound('registry.chainguard.dev/Image', `${repo}@${digest}`);
  return row.body;
}

export const getArchitectures: CustomMethod = {
  touches: [IMAGE_MANIFESTS_KIND],
  async translate(request, v1) {
    const { repo, digest } = imageOf(request);
    return { architectures: v1Strings(await v1.call({ method: 'GET', path: digestPath(repo, digest, 'architectures') }), 'archs') };
  },
  async native(request, access) {
    const image = await storedImage(access, request);
    return { architectures: Array.isArray(image.architectures) ? image.architectures : [] };
  },
};

export const getSize: CustomMethod = {
  touches: [IMAGE_MANIFESTS_KIND],
  async translate(request, v1) {
    const { repo, digest } = imageOf(request);
    // The default is sent, not left to v1, whose own default the facts do not state.
    const arch = String(request.architecture || DEFAULT_ARCHITECTURE);
    const answer = await v1.call({ method: 'GET', path: digestPath(repo, digest, 'size'), query: { arch } });
    return { size: v1Int64(answer, 'size'), architecture: v1String(answer, 'arch') || arch };
  },
  async native(request, access) {
    const image = await storedImage(access, request);
    const arch = String(request.architecture || DEFAULT_ARCHITECTURE);
    const size = isObject(image.sizes) ? image.sizes[arch] : undefined;
    // As v1 answers an architecture the image does not have.
    if (typeof size !== 'string') throw notFound('registry.chainguard.dev/Image', `${String(image.repoUid)}@${String(image.digest)} for ${arch}`);
    return { size, architecture: arch };
  },
};
