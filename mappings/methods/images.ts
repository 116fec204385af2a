/**
 * ImagesService (registry v2beta1): an image's architectures and its size for
 * one of them, by repo and index digest. v1 has both per digest under
 * `/registry/v1/repos/{repo_id}/digests/{digest}/…` with other names
 * (`archs` → `architectures`, `arch` → `architecture`). Native mode keeps no
 * image manifests — they live in the registry, which only v1 reads.
 */
import { notFound } from '../../src/aip/errors.ts';
import type { CustomMethod, V1Access } from '../../src/vocabulary/custom-method.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { isUidp } from '../../src/uidp.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1Int64, v1String, v1Strings } from '../../src/v1/errors.ts';

const NO_MANIFESTS = 'native mode keeps no image manifests: architectures and sizes live in the registry, which only v1 reads';
/** GetSize's documented default. */
const DEFAULT_ARCHITECTURE = 'amd64';

/** v1's answer about one image; a repo uid that is no UIDP names no image, and never reaches v1's path. */
function digestCall(v1: V1Access, request: Json, what: 'architectures' | 'size', query?: Record<string, string>): Promise<Json> {
  const repo = String(request.repoUid);
  const digest = String(request.digest);
  if (!isUidp(repo)) throw notFound('registry.chainguard.dev/Repo', repo);
  return v1.call({ method: 'GET', path: `/registry/v1/repos/${uidpPath(repo)}/digests/${encodeURIComponent(digest)}/${what}`, ...(query ? { query } : {}) });
}

export const getArchitectures: CustomMethod = {
  async translate(request, v1) {
    return { architectures: v1Strings(await digestCall(v1, request, 'architectures'), 'archs') };
  },
  unserved: { native: NO_MANIFESTS },
};

export const getSize: CustomMethod = {
  async translate(request, v1) {
    // The default is sent, not left to v1, whose own default the facts do not state.
    const arch = String(request.architecture || DEFAULT_ARCHITECTURE);
    const answer = await digestCall(v1, request, 'size', { arch });
    return { size: v1Int64(answer, 'size'), architecture: v1String(answer, 'arch') || arch };
  },
  unserved: { native: NO_MANIFESTS },
};
